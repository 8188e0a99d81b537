"""Pilot writes: the buyer's invitation, the verified figures a check stores, and the buyer's
choice to score on verified figures.

The evidence itself goes through the burn-in services (`services.burnin`) on the pilot's run:
stored before it is parsed, parsed and checked by the same workers, retried the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from acceptance.audit import record_on_pilot
from acceptance.models import PILOT_MAX_DAYS, BurnInRun, Pilot, PilotScoring
from acceptance.notices import pilot_checked_notify, pilot_invited_notify
from acceptance.pilot_lifecycle import PilotCase, pilot_move
from acceptance.selectors.pilot import uses_verified
from acceptance.services.award import awarded_fixture_version
from audit.services import buyer_only
from bids.audit import record_request
from bids.lifecycle import REQUEST, request_actor
from bids.models import Bid, CapacityRequest
from bids.signals import scoring_inputs_changed_on_commit
from core.errors import ServiceError
from core.limits import TEXT_LIMIT
from engine.evidence.checks import EvidenceItem, load_spec
from engine.evidence.pilot_figures import verified_figures


def _window_errors(starts_on: date | None, ends_on: date | None) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if starts_on is None:
        errors["starts_on"] = ["Give the pilot's first day."]
    if ends_on is None:
        errors["ends_on"] = ["Give the pilot's last day."]
    if starts_on is None or ends_on is None:
        return errors
    if ends_on < starts_on:
        errors["ends_on"] = ["The last day is before the first day."]
    elif (ends_on - starts_on).days + 1 > PILOT_MAX_DAYS:
        errors["ends_on"] = [f"A pilot lasts at most {PILOT_MAX_DAYS} days."]
    return errors


@transaction.atomic
def pilot_invite(
    *,
    bid: Bid,
    user: User,
    starts_on: date | None,
    ends_on: date | None,
    instructions: str = "",
) -> Pilot:
    """Invite a shortlisted bid to a pilot over the window, checked against the fixture version
    the bid acknowledged (the request's current one where it acknowledged none)."""
    bid = Bid.objects.select_for_update().select_related("request", "provider").get(pk=bid.pk)
    pilot_move(PilotCase(bid, Pilot.objects.filter(bid=bid).first()), "invite", user=user)
    errors = _window_errors(starts_on, ends_on)
    instructions = instructions.strip()
    if len(instructions) > TEXT_LIMIT:
        errors["instructions"] = [f"Keep the application run to {TEXT_LIMIT:,} characters."]
    if errors:
        raise ValidationError(errors)
    assert starts_on is not None and ends_on is not None
    version = awarded_fixture_version(bid=bid)
    if version is None:
        raise ServiceError(
            "Attach an acceptance fixture to the request first: the pilot's evidence is "
            "checked against it."
        )
    pilot = Pilot.objects.create(
        bid=bid,
        fixture_version=version,
        starts_on=starts_on,
        ends_on=ends_on,
        instructions=instructions,
        invited_by=user,
    )
    BurnInRun.objects.create(pilot=pilot, label=f"Pilot of {bid.provider.name}", created_by=user)
    record_on_pilot(
        pilot=pilot,
        action="pilot.invite",
        user=user,
        after={
            "bid": bid.pk,
            "starts_on": starts_on.isoformat(),
            "ends_on": ends_on.isoformat(),
            "fixture_version": version.number,
        },
    )
    pilot_invited_notify(pilot=pilot)
    return pilot


def pilot_store_figures(*, run: BurnInRun, items: Sequence[EvidenceItem]) -> None:
    """After a pilot run's check: keep the figures its evidence verifies, tell both parties,
    and have the request re-scored when the buyer scores on verified figures."""
    pilot = Pilot.objects.select_related("bid__request__buyer", "bid__provider").get(run=run)
    spec = load_spec(pilot.fixture_version.spec)
    figures = verified_figures(items, large_bytes=spec.large_message_bytes)
    pilot.figures = [f.to_json() for f in figures]
    pilot.figures_version = run.checked_version
    pilot.save(update_fields=["figures", "figures_version"])
    pilot_checked_notify(pilot=pilot, run=run)
    if uses_verified(capacity_request=pilot.bid.request):
        scoring_inputs_changed_on_commit(capacity_request=pilot.bid.request)


def pilot_clear_figures(*, run: BurnInRun) -> None:
    """The pilot's evidence was all withdrawn: it verifies nothing any more."""
    changed = (
        Pilot.objects.filter(run=run)
        .exclude(figures=[])
        .update(figures=[], figures_version=run.evidence_version)
    )
    if changed:
        pilot = Pilot.objects.select_related("bid__request").get(run=run)
        if uses_verified(capacity_request=pilot.bid.request):
            scoring_inputs_changed_on_commit(capacity_request=pilot.bid.request)


@transaction.atomic
def pilot_scoring_set(
    *, capacity_request: CapacityRequest, user: User, use_verified: bool
) -> PilotScoring:
    """Score on the pilots' verified figures (where a pilot verified them) or on the claims;
    the bids are re-scored. On the record for the buyer alone, like the weights."""
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    REQUEST.allow(stored, "evaluate", actor=request_actor(stored, user))
    setting, _ = PilotScoring.objects.get_or_create(request=stored)
    before = setting.use_verified
    if before != use_verified:
        setting.use_verified = use_verified
        setting.changed_by = user
        setting.save(update_fields=["use_verified", "changed_by", "changed_at"])
        record_request(
            capacity_request=stored,
            action="request.pilot_scoring",
            user=user,
            before={"use_verified": before},
            after={"use_verified": use_verified},
            audience=buyer_only(buyer_org_id=stored.buyer_id),
        )
        scoring_inputs_changed_on_commit(capacity_request=stored)
    return setting
