from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from bids.audit import record_request
from bids.lifecycle import request_move, require_preparing
from bids.models import CapacityRequest, Lot
from bids.signals import scoring_inputs_changed_on_commit
from contracts.defaults import DEFAULT_TERMS_TEMPLATE, terms_template
from contracts.models import HandoffTerms, HandoffTermsRevision, TermsFields
from contracts.validation import validate_terms
from core.errors import ServiceError


def _snapshot_sha(snapshot: dict[str, Any]) -> str:
    text = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# People, not template values: a template leaves them empty and a reset keeps them.
OWNER_FIELDS = (
    "buyer_owner_name",
    "buyer_owner_contact",
    "provider_owner_name",
    "provider_owner_contact",
)


def _check(terms: HandoffTerms, *, owners_required: bool = True) -> None:
    errors = validate_terms(terms.snapshot(), owners_required=owners_required)
    if errors:
        raise ValidationError(errors)
    terms.full_clean(exclude=["request", "updated_by", "template", "version"])


def _freeze(
    terms: HandoffTerms, user: User, before: dict[str, Any] | None = None
) -> HandoffTermsRevision:
    snapshot = terms.snapshot()
    # New terms are named by their template; a new version by the values that changed.
    changed = sorted(k for k in snapshot if before and before.get(k) != snapshot[k])
    revision = HandoffTermsRevision.objects.create(
        terms=terms,
        number=terms.version,
        snapshot=snapshot,
        sha256=_snapshot_sha(snapshot),
        created_by=user,
    )
    lot = {"lot": terms.lot.number} if terms.lot is not None else {}
    record_request(
        capacity_request=terms.capacity_request,
        action="terms.version",
        user=user,
        before={k: before[k] for k in changed} if before else None,
        after=lot
        | {"version": revision.number, "template": terms.template}
        | {k: snapshot[k] for k in changed},
    )
    # The target clocks come from the terms: bids are compared against them when re-scored.
    scoring_inputs_changed_on_commit(capacity_request=terms.capacity_request)
    return revision


@transaction.atomic
def terms_create(*, capacity_request: CapacityRequest, user: User, template: str) -> HandoffTerms:
    """Attach terms from a template, or reset existing terms to it (a new version).

    New terms name the user who sets them as the buyer's incident owner until the buyer edits
    that; a reset keeps the owners already named.
    """
    require_preparing(capacity_request, user=user, what="terms")
    try:
        tpl = terms_template(template)
    except KeyError:
        raise ValidationError({"template": ["Choose one of the templates."]}) from None
    values = dict(tpl.values)
    existing = HandoffTerms.objects.select_for_update().filter(request=capacity_request).first()
    if existing is not None:
        for field in OWNER_FIELDS:
            values[field] = values.get(field) or getattr(existing, field)
        return _apply(
            terms=existing, user=user, data=values, template=tpl.key, owners_required=False
        )
    # Field lengths: a name or address that does not fit is left for the buyer to type.
    name = user.get_full_name().strip() or user.get_username()
    values["buyer_owner_name"] = values.get("buyer_owner_name") or (
        name if len(name) <= 120 else ""
    )
    email = user.email or ""
    values["buyer_owner_contact"] = values.get("buyer_owner_contact") or (
        email if len(email) <= 200 else ""
    )
    terms = HandoffTerms(request=capacity_request, template=tpl.key, updated_by=user, **values)
    _check(terms, owners_required=False)
    terms.save()
    _freeze(terms, user)
    return terms


@transaction.atomic
def terms_update(
    *, terms: HandoffTerms, user: User, data: dict[str, Any], template: str | None = None
) -> HandoffTerms:
    """Save edited terms; a change in any value freezes the next revision (providers re-ack).

    Saving the same values changes nothing: the version stays, and so do acknowledgements.
    """
    return _apply(terms=terms, user=user, data=data, template=template, owners_required=True)


def _apply(
    *,
    terms: HandoffTerms,
    user: User,
    data: dict[str, Any],
    template: str | None,
    owners_required: bool,
) -> HandoffTerms:
    require_preparing(terms.capacity_request, user=user, what="terms")
    terms = (
        HandoffTerms.objects.select_for_update(of=("self",))
        .select_related("request", "lot")
        .get(pk=terms.pk)
    )
    before = terms.snapshot()
    names = set(TermsFields.term_field_names())
    for field, value in data.items():
        if field not in names:
            raise ServiceError(f"{field} is not a handoff term.")
        setattr(terms, field, value)
    _check(terms, owners_required=owners_required)
    if terms.snapshot() == before:
        return terms
    terms.version += 1
    if template is not None:
        terms.template = template
    terms.updated_by = user
    terms.save()
    _freeze(terms, user, before)
    return terms


@transaction.atomic
def lot_terms_own(*, lot: Lot, user: User) -> HandoffTerms:
    """Give the lot its own handoff terms, starting from the request's (or the standard
    template where the request has none); edits then go through `terms_update`. Whether a lot
    has its own is part of the lot: chosen while the request is a draft."""
    lot = Lot.objects.select_related("request").get(pk=lot.pk)
    request_move(lot.request, "lots", user=user)
    require_preparing(lot.request, user=user, what="terms")
    existing = HandoffTerms.objects.filter(lot=lot).first()
    if existing is not None:
        return existing
    shared = HandoffTerms.objects.filter(request=lot.request).first()
    names = TermsFields.term_field_names()
    if shared is not None:
        values = {name: getattr(shared, name) for name in names}
        template = shared.template
    else:
        tpl = terms_template(DEFAULT_TERMS_TEMPLATE)
        values, template = dict(tpl.values), tpl.key
    terms = HandoffTerms(lot=lot, template=template, updated_by=user, **values)
    _check(terms, owners_required=False)
    terms.save()
    _freeze(terms, user)
    return terms


@transaction.atomic
def lot_terms_share(*, lot: Lot, user: User) -> None:
    """The lot goes back to the request's terms (its own are dropped), while a draft."""
    lot = Lot.objects.select_related("request").get(pk=lot.pk)
    request_move(lot.request, "lots", user=user)
    require_preparing(lot.request, user=user, what="terms")
    terms = HandoffTerms.objects.select_for_update().filter(lot=lot).first()
    if terms is None:
        return
    # A draft's terms: no provider acknowledged them. Revisions refuse the ORM's delete (they
    # are what providers sign up to), so the draft's go by a raw delete.
    HandoffTermsRevision.objects.filter(terms=terms)._raw_delete(HandoffTermsRevision.objects.db)
    terms.delete()
    record_request(
        capacity_request=lot.request, action="terms.lot_share", user=user, after={"lot": lot.number}
    )
