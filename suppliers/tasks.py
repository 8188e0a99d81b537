from __future__ import annotations

from celery import shared_task

from suppliers.services import send_expiry_reminders


@shared_task(acks_late=True)
def send_compliance_reminders() -> int:
    """Celery beat's sweep; safe to run twice (one reminder per document per threshold)."""
    return send_expiry_reminders()
