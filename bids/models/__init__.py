from bids.models.addenda import Addendum, AddendumAcknowledgement
from bids.models.approvals import (
    Approval,
    ApprovalAction,
    ApprovalPolicy,
    ApprovalRequest,
    ApprovalStatus,
    Delegation,
)
from bids.models.attachments import BidAttachment
from bids.models.bids import Bid, BidRevision, BidTerms
from bids.models.clarifications import Question, QuestionState
from bids.models.gate import DetailsGate, GateAcceptance
from bids.models.lots import Lot
from bids.models.onboarding import SupplierInvitation
from bids.models.requests import CapacityRequest, Invitation

__all__ = [
    "Addendum",
    "AddendumAcknowledgement",
    "Approval",
    "ApprovalAction",
    "ApprovalPolicy",
    "ApprovalRequest",
    "ApprovalStatus",
    "Bid",
    "BidAttachment",
    "BidRevision",
    "BidTerms",
    "CapacityRequest",
    "Delegation",
    "DetailsGate",
    "GateAcceptance",
    "Invitation",
    "Lot",
    "Question",
    "QuestionState",
    "SupplierInvitation",
]
