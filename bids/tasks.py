from celery import shared_task

from bids.models import BidRevision
from bids.notices import bid_revision_notify


# Kept for messages queued before notices moved to the notices app: `bid_submit` now writes the
# notice itself. Safe to run twice (the notice's key dedupes).
@shared_task(acks_late=True, reject_on_worker_lost=True)
def notify_bid_revision(revision_id: int) -> str:
    revision = (
        BidRevision.objects.select_related("bid__request__buyer", "bid__provider")
        .filter(pk=revision_id)
        .first()
    )
    if revision is None:
        return "gone"
    return "sent" if bid_revision_notify(revision=revision) else "nothing to send"
