"""A throwaway Django for the in-process benches: SQLite and media in a temporary folder (never
the project's), tasks in-process, mail kept in memory, only warnings logged, migrated."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_sandbox(
    workdir: Path | None = None, *, prefix: str = "cb-bench-", broker: str | None = None
) -> Path:
    """Set up Django in `workdir` (a new temporary folder when None) and return the folder.
    With `broker`, tasks go to that Celery broker instead of running in-process."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix=prefix))
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ["MEDIA_ROOT"] = str(workdir / "media")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if broker:
        os.environ["CELERY_BROKER_URL"] = broker
    else:
        os.environ.pop("CELERY_BROKER_URL", None)
    # Seeding and the tasks send mail and log each run; the benches print only their figures.
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return workdir
