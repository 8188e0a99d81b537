from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from bids.services.onboarding import supplier_invitation_email


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError, SMTPException),
    retry_backoff=True,
    max_retries=5,
)
def send_supplier_invitation(invitation_id: int) -> str:
    """Mail a new provider's invitation link; sends once however often it runs."""
    return supplier_invitation_email(invitation_id=invitation_id)
