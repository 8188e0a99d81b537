from bids.models.bids import Bid, BidRevision, BidTerms
from bids.models.notifications import SentNotification
from bids.models.orgs import Membership, Organization
from bids.models.requests import CapacityRequest, Invitation
from bids.models.scores import BidScore, ScoringRun, ScoringStatus

__all__ = [
    "Bid",
    "BidRevision",
    "BidScore",
    "BidTerms",
    "CapacityRequest",
    "Invitation",
    "Membership",
    "Organization",
    "ScoringRun",
    "ScoringStatus",
    "SentNotification",
]
