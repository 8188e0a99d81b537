"""One fact, two values: a submit waits until each conflict is resolved (one value changed) or
kept with a reason the buyer will read beside it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from audit.services import Audience
from bids.audit import record_bid
from bids.models import Bid
from bids.services import require_draft_editable
from core.sentences import sentence_problem
from questionnaire.models import KeptConflicts
from questionnaire.selectors import draft_state

MAX_REASON = 2000
CONFLICTS = "conflicts"  # the name a submit's refusal of unsettled conflicts goes under


def unresolved_conflicts(*, bid: Bid) -> list[str]:
    """The draft's conflicts neither resolved nor kept with a reason, each printed once."""
    current = [c.message for c in draft_state(bid=bid).conflicts if not c.settles_itself]
    kept = KeptConflicts.objects.filter(bid=bid).values_list("messages", flat=True).first() or []
    return [m for m in current if m not in kept]


def require_conflicts_settled(*, bid: Bid) -> None:
    unresolved = unresolved_conflicts(bid=bid)
    if unresolved:
        raise ValidationError(
            {
                CONFLICTS: [
                    "One fact, two values: change one of them, or keep them as stated with a "
                    "reason, before you submit. " + " ".join(unresolved)
                ]
            }
        )


@transaction.atomic
def conflicts_keep(*, bid: Bid, user: User, reason: str) -> KeptConflicts:
    """Keep the draft's current conflicts as stated; the reason is on the record."""
    require_draft_editable(bid=bid, user=user)
    messages = [c.message for c in draft_state(bid=bid).conflicts]
    if not messages:
        raise ValidationError("This draft states no fact twice: there is nothing to keep.")
    text = reason.strip()
    if len(text) > MAX_REASON:
        raise ValidationError(
            {"reason": [f"Too long: at most {MAX_REASON:,} characters (this has {len(text):,})."]}
        )
    problem = sentence_problem(text, ask="Say why both values stand")
    if problem:
        raise ValidationError({"reason": [problem]})
    kept, _ = KeptConflicts.objects.update_or_create(
        bid=bid, defaults={"messages": messages, "reason": text, "kept_by": user}
    )
    record_bid(
        bid=bid,
        action="bid.conflicts.keep",
        user=user,
        after={"conflicts": len(messages), "reason": text},
        audience=Audience(provider_org_id=bid.provider_id),
    )
    return kept
