from celery import shared_task

from bids.models import BidRevision
from bids.services.notifications import notification_bid_revision


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=5)
def notify_bid_revision(revision_id: int) -> str:
    revision = BidRevision.objects.select_related("bid__request__buyer", "bid__provider").get(
        pk=revision_id
    )
    notice = notification_bid_revision(revision=revision)
    return "sent" if notice else "already sent"
