from celery import shared_task

from ops.services import export_build


@shared_task(acks_late=True, reject_on_worker_lost=True)
def build_export(job_id: int) -> str:
    job = export_build(job_id=job_id)
    return f"export {job.pk} ({job.status}, {job.size} bytes)"
