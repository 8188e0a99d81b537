from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from suppliers.services import send_expiry_reminders


class Command(BaseCommand):
    help = (
        "Remind provider administrators of compliance documents that expire within "
        "COMPLIANCE_REMINDER_DAYS (once per document and threshold); for cron without beat."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        sent = send_expiry_reminders()
        self.stdout.write(f"{sent} reminder(s) sent.")
