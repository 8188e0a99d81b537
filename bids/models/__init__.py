from bids.models.addenda import Addendum, AddendumAcknowledgement
from bids.models.bids import Bid, BidRevision, BidTerms
from bids.models.clarifications import Question, QuestionState
from bids.models.notifications import SentNotification
from bids.models.requests import CapacityRequest, Invitation

__all__ = [
    "Addendum",
    "AddendumAcknowledgement",
    "Bid",
    "BidRevision",
    "BidTerms",
    "CapacityRequest",
    "Invitation",
    "Question",
    "QuestionState",
    "SentNotification",
]
