from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from bids.services.onboarding import supplier_invitation_email, supplier_invitations_expire


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


@shared_task(acks_late=True)
def expire_supplier_invitations() -> int:
    """Celery beat's sweep: marks the expired invitations; safe to run twice or at once."""
    return supplier_invitations_expire()
