"""Writes. Each function is keyword-only, typed, and holds the rule it enforces."""

from bids.services.addenda import addendum_acknowledge, addendum_publish
from bids.services.attachments import bid_attachment_add, bid_attachment_remove
from bids.services.bids import (
    bid_save_draft,
    bid_start,
    bid_submit,
    bid_withdraw,
    require_draft_editable,
)
from bids.services.clarifications import question_answer, question_ask
from bids.services.final_round import final_round_open
from bids.services.gate import gate_accept, gate_set
from bids.services.lots import lot_add, lot_remove, lot_update
from bids.services.onboarding import (
    supplier_invitations_expire,
    supplier_invite,
    supplier_join,
)
from bids.services.requests import (
    request_cancel,
    request_close,
    request_create,
    request_invite,
    request_publish,
    request_reopen,
    request_uninvite,
    request_update,
)
from core.errors import ServiceError

__all__ = [
    "ServiceError",
    "addendum_acknowledge",
    "addendum_publish",
    "bid_attachment_add",
    "bid_attachment_remove",
    "bid_save_draft",
    "bid_start",
    "bid_submit",
    "bid_withdraw",
    "final_round_open",
    "gate_accept",
    "gate_set",
    "lot_add",
    "lot_remove",
    "lot_update",
    "question_answer",
    "question_ask",
    "request_cancel",
    "request_close",
    "request_create",
    "request_invite",
    "request_publish",
    "request_reopen",
    "request_uninvite",
    "request_update",
    "require_draft_editable",
    "supplier_invitations_expire",
    "supplier_invite",
    "supplier_join",
]
