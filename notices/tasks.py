"""One e-mail per notice: an id in, one service call; a second run finds it sent."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from notices.services import notice_email


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError, SMTPException),
    retry_backoff=True,
    max_retries=5,
)
def send_notice_email(notice_id: int) -> str:
    return notice_email(notice_id=notice_id)
