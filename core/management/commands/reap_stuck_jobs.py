"""`manage.py reap_stuck_jobs`: fail every job past its time limit, so Retry is offered again
(for cron, where Celery beat does not run)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from core.jobs import reap_stuck_jobs


class Command(BaseCommand):
    help = "Mark background jobs that ran past their time limit as failed, so they can be retried."

    def handle(self, *args: Any, **options: Any) -> None:
        for name, count in reap_stuck_jobs().items():
            self.stdout.write(f"{name}: {count} stuck job{'s' if count != 1 else ''} failed")
