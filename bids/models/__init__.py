from bids.models.addenda import Addendum
from bids.models.attachments import BidAttachment
from bids.models.bids import Bid, BidRevision, BidTerms
from bids.models.notifications import SentNotification
from bids.models.requests import CapacityRequest, Invitation

__all__ = [
    "Addendum",
    "Bid",
    "BidAttachment",
    "BidRevision",
    "BidTerms",
    "CapacityRequest",
    "Invitation",
    "SentNotification",
]
