from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import Audience
from bids.audit import record_bid
from bids.choices import BidStatus, IsolationClass
from bids.clarification_selectors import addenda_unacknowledged
from bids.lifecycle import bid_move, open_for_bidding
from bids.lots import bid_lot_totals, canonical_lot_json, lot_specs, lot_terms
from bids.models import Bid, BidRevision, CapacityRequest
from bids.models.bids import validate_bid_terms
from bids.models.requests import FIRST_ROUND
from bids.notices import bid_revision_notify
from bids.services.attachments import attachments_freeze
from bids.signals import frozen_parts, scoring_inputs_changed_on_commit
from core.errors import ServiceError
from orgs.choices import OrgKind
from orgs.models import Organization


def require_draft_editable(*, bid: Bid, user: User | None) -> None:
    """Terms and answers change only through the bid's 'edit' move. `user` is None only for the
    product's own seeding, which is held to the state rule alone."""
    if user is not None:
        bid_move(bid, "edit", user=user)
        return
    reason = bid.draft_locked_reason()
    if reason is not None:
        raise ServiceError(reason)


# On a request with lots, the bid fields that `lot_rules` works out from the lot offers.
DERIVED_FROM_OFFERS = ("nodes", "price_per_gpu_hour")


def lot_rules(*, bid: Bid, for_submit: bool) -> dict[str, list[str]]:
    """Check the bid's lot offers and bundles against the request's lots. When they hold, store
    them in their plain form, and on a request with lots set the bid's own nodes and price to
    its offers' total and GPU-weighted price, which whole-bid scoring reads."""
    specs = lot_specs(capacity_request=bid.request)
    terms = lot_terms(bid, specs)
    errors = dict(terms.errors)
    if for_submit and specs and not terms.offers and not errors:
        errors["lot_offers"] = ["Make an offer on at least one lot before submitting."]
    if errors:
        return errors
    canonical = canonical_lot_json(terms)
    bid.lot_offers, bid.bundles = canonical["lot_offers"], canonical["bundles"]
    totals = bid_lot_totals(terms.offers, specs)
    if totals is not None:
        bid.nodes, bid.price_per_gpu_hour = totals
    return {}


def _require_invited(capacity_request: CapacityRequest, provider: Organization) -> None:
    if not capacity_request.invitations.filter(provider=provider).exists():
        raise ServiceError("Your organisation is not invited to bid on this request.")


def first_offer_kind(capacity_request: CapacityRequest) -> str:
    """A new draft offers the strongest isolation the request accepts."""
    accepted = capacity_request.accepted_offer_kinds or []
    return next((k for k in IsolationClass.values if k in accepted), IsolationClass.WHOLE_DEVICE)


@transaction.atomic
def bid_start(*, capacity_request: CapacityRequest, provider: Organization, user: User) -> Bid:
    """Open the provider's draft for a request, pre-filled with the requested shape."""
    if provider.kind != OrgKind.PROVIDER:
        raise ServiceError("Only a provider organisation can bid.")
    _require_invited(capacity_request, provider)
    existing = Bid.objects.filter(request=capacity_request, provider=provider).first()
    if existing is not None:
        return existing
    closed = open_for_bidding(capacity_request)
    if closed:
        raise ServiceError(closed)
    bid = Bid.objects.create(
        request=capacity_request,
        provider=provider,
        created_by=user,
        gpu_model=capacity_request.gpu_model,
        nodes=capacity_request.nodes,
        gpus_per_node=capacity_request.gpus_per_node,
        nvlink_domain_size=capacity_request.nvlink_domain_size,
        fabric=capacity_request.fabric,
        isolation_class=first_offer_kind(capacity_request),
        scheduler=capacity_request.scheduler,
        available_start=capacity_request.reservation_start,
    )
    # A draft is the provider's own working copy: nobody else hears of it.
    record_bid(
        bid=bid,
        action="bid.start",
        user=user,
        after={"status": bid.status},
        audience=Audience(provider_org_id=provider.pk),
    )
    return bid


@transaction.atomic
def bid_save_draft(*, bid: Bid, user: User, data: dict[str, Any]) -> Bid:
    bid_move(bid, "edit", user=user)
    # A ModelForm has already copied its values onto `bid`: compare with the stored row.
    stored = Bid.objects.get(pk=bid.pk)
    for field, value in data.items():
        if field not in Bid.term_field_names():
            raise ServiceError(f"{field} is not a bid term.")
        setattr(bid, field, value)
    errors = lot_rules(bid=bid, for_submit=False) | validate_bid_terms(
        bid, for_submit=False, capacity_request=bid.request
    )
    if errors:
        raise ValidationError(errors)
    bid.full_clean(exclude=["request", "provider", "created_by"])
    # Saving unchanged terms leaves nothing new to submit.
    bid.has_unsubmitted_changes = stored.has_unsubmitted_changes or (
        bid.terms_dict() != stored.terms_dict()
    )
    # Only the terms: a stale instance must never roll back status or revision bookkeeping.
    bid.save(update_fields=[*Bid.term_field_names(), "has_unsubmitted_changes", "updated_at"])
    before, after = stored.terms_dict(), bid.terms_dict()
    changed = sorted(k for k in after if before.get(k) != after[k])
    if changed:
        # A draft is the provider's notes: its edits are the provider's alone to read.
        record_bid(
            bid=bid,
            action="bid.draft",
            user=user,
            before={k: before.get(k) for k in changed},
            after={k: after[k] for k in changed},
            audience=Audience(provider_org_id=bid.provider_id),
        )
    return bid


def _require_addenda_acknowledged(bid: Bid) -> None:
    """Every addendum changes what is bid on: the provider acknowledges each before it submits."""
    pending = addenda_unacknowledged(capacity_request=bid.request, provider_id=bid.provider_id)
    if pending:
        numbers = " and ".join(
            [", ".join(str(n) for n in pending[:-1]), str(pending[-1])]
            if len(pending) > 1
            else [str(pending[0])]
        )
        raise ServiceError(
            f"Acknowledge addend{'a' if len(pending) > 1 else 'um'} {numbers} on the "
            "request's page before submitting: the request changed since your organisation "
            "last read it."
        )


@transaction.atomic
def bid_submit(*, bid: Bid, user: User) -> BidRevision:
    """Freeze the draft into the next immutable revision and tell the buyer."""
    bid = Bid.objects.select_for_update().select_related("request").get(pk=bid.pk)
    bid_move(bid, "submit", user=user)
    _require_invited(bid.request, bid.provider)
    _require_addenda_acknowledged(bid)
    lot_errors = lot_rules(bid=bid, for_submit=True)
    term_errors = validate_bid_terms(bid, for_submit=True, capacity_request=bid.request)
    if lot_errors and lot_specs(capacity_request=bid.request):
        # Nodes and price follow from the offers: the offers' refusal says what to change.
        for name in DERIVED_FROM_OFFERS:
            term_errors.pop(name, None)
    errors = lot_errors | term_errors
    # The receivers are asked even when the terms fail: one refusal names everything to fix.
    frozen = frozen_parts(bid=bid)
    for name, messages in frozen.refusals.items():
        errors[name] = [*errors.get(name, []), *messages]
    if errors:
        raise ValidationError(errors)
    before = {"status": bid.status, "revision": bid.latest_revision_number}

    number = bid.latest_revision_number + 1
    revision = BidRevision.objects.create(
        bid=bid,
        number=number,
        submitted_by=user,
        submitted_at=timezone.now(),
        questionnaire=frozen.parts.get("questionnaire", {}),
        round=bid.request.round,
        attachments=attachments_freeze(bid=bid, number=number),
        **bid.terms_dict(),
    )
    bid.latest_revision_number = number
    bid.status = BidStatus.SUBMITTED
    bid.has_unsubmitted_changes = False
    bid.withdrawn_at = None
    bid.save(
        update_fields=[
            "latest_revision_number",
            "status",
            "has_unsubmitted_changes",
            "withdrawn_at",
            "updated_at",
        ]
    )

    record_bid(
        bid=bid,
        action="bid.submit",
        user=user,
        before=before,
        after={
            "status": bid.status,
            "revision": number,
            "price_per_gpu_hour": revision.price_per_gpu_hour,
            # Named only in a final round: round 1 is every bid's until then.
            **({"round": revision.round} if revision.round > FIRST_ROUND else {}),
        },
    )
    bid_revision_notify(revision=revision)
    scoring_inputs_changed_on_commit(capacity_request=bid.request)
    return revision


@transaction.atomic
def bid_withdraw(*, bid: Bid, user: User) -> Bid:
    bid_move(bid, "withdraw", user=user)
    before = {"status": bid.status}
    bid.status = BidStatus.WITHDRAWN
    bid.withdrawn_at = timezone.now()
    bid.save(update_fields=["status", "withdrawn_at", "updated_at"])
    record_bid(
        bid=bid,
        action="bid.withdraw",
        user=user,
        before=before,
        after={"status": bid.status, "revision": bid.latest_revision_number},
    )
    scoring_inputs_changed_on_commit(capacity_request=bid.request)
    return bid
