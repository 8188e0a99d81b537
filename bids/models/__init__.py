from bids.models.addenda import Addendum
from bids.models.bids import Bid, BidRevision, BidTerms
from bids.models.notifications import SentNotification
from bids.models.requests import CapacityRequest, Invitation

__all__ = [
    "Addendum",
    "Bid",
    "BidRevision",
    "BidTerms",
    "CapacityRequest",
    "Invitation",
    "SentNotification",
]
