import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("clusterbid")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Heavy work (a whole failed run, a burn-in re-check, a usage file) waits on its own queue, so
# that one provider's batch never holds up another tenant's annex or scoring. docker-compose
# runs one worker per queue; a worker started without -Q consumes both (task_queues below).
HEAVY_TASKS = frozenset(
    {
        "incidents.tasks.analyse_failed_run",
        "acceptance.tasks.recheck_run",
        "billing.tasks.reconcile_usage",  # a year of lines: up to USAGE_MAX_BYTES
        "ops.tasks.build_export",  # every file an organisation may read, zipped
        "observed.tasks.parse_observed",  # a result file of up to EVIDENCE_MAX_BYTES
    }
)


def heavy_queue(default: str) -> str:
    return f"{default}-heavy"


def route_task(name: str, args: object, kwargs: object, options: object, **_: object) -> object:
    if name in HEAVY_TASKS:
        return {"queue": heavy_queue(app.conf.task_default_queue)}
    return None


app.conf.task_routes = (route_task,)
app.conf.task_queues = [
    Queue(app.conf.task_default_queue),
    Queue(heavy_queue(app.conf.task_default_queue)),
]
