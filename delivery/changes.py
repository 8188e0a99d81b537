"""Planned changes with their release canaries: the provider announces a driver, firmware or
image change inside a maintenance window with the canary that will prove it; the buyer reads
the canary's verdict and accepts or objects before the window opens; when it opens the outcome
is written once. Keyword-only writes, each audited on the reservation's trail and told to the
other party; the two-party story is an entry of the incidents' change log."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from acceptance.services.canary import canary_create
from delivery.lifecycle import ANNOUNCING, CHANGE
from delivery.models import ChangeKind, MaintenanceWindow, PlannedChange
from delivery.selectors import reservation_node_labels
from incidents.lifecycle import reservation_actor
from incidents.models import ChangeStatus
from incidents.selectors import terms_for
from incidents.services.opening import clean_nodes
from incidents.services.release import release_decide, release_propose, release_roll_out
from notices.choices import Event
from notices.services import notify_members

MAX_TEXT = 2000
MAX_VERSION = 120


def change_path(change: PlannedChange) -> str:
    return reverse("delivery:change-detail", args=[change.pk])


def _utc(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


def _text_errors(component: str, from_version: str, to_version: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for field, value, what in (
        ("component", component, "Name what changes (e.g. NVIDIA driver, HCA firmware)."),
        ("from_version", from_version, "Give the version running now."),
        ("to_version", to_version, "Give the version the change installs."),
    ):
        if not value.strip():
            errors[field] = [what]
        elif len(value.strip()) > MAX_VERSION:
            errors[field] = [f"Keep it to {MAX_VERSION} characters."]
    if not errors and from_version.strip() == to_version.strip():
        errors["to_version"] = [f"The change installs {to_version.strip()}, which runs now."]
    return errors


def _window_errors(
    reservation: Reservation, window: MaintenanceWindow | None, when: datetime
) -> dict[str, list[str]]:
    """The window the change rolls out in: the reservation's, agreed (or given with notice),
    not yet open, and announced at least the terms' maintenance notice ahead."""
    if window is None or window.reservation_id != reservation.pk:
        return {"window": ["Name the maintenance window the change rolls out in."]}
    if window.state == "awaiting":
        return {"window": [f"Maintenance #{window.pk} was announced at short notice and the "
                           "buyer has not agreed to it: name an agreed window."]}  # fmt: skip
    if window.starts_at <= when:
        return {"window": [f"Maintenance #{window.pk} opened at {_utc(window.starts_at)}; "
                           "announce a change before its window."]}  # fmt: skip
    _revision, snapshot, _source = terms_for(reservation)
    notice = int(snapshot.get("maintenance_notice_hours") or 0)
    lead = window.starts_at - when
    if lead < timedelta(hours=notice):
        return {"window": [
            f"The terms require {notice} h notice of a planned change; maintenance #{window.pk} "
            f"opens in {lead.total_seconds() / 3600:.1f} h. Name a later window."]}  # fmt: skip
    return {}


def _known_nodes(reservation: Reservation, labels: list[str], *, field: str) -> None:
    """On a whole-allocation window, a label the record knows for none of the reservation's
    nodes is a typo, once the record names as many nodes as were contracted; before that an
    unnamed node may still be one of them."""
    known = reservation_node_labels(reservation=reservation)
    if len(known) < (reservation.nodes or 0) or not known:
        return
    stray = [n for n in labels if n not in known]
    if stray:
        raise ValidationError({field: [f"{stray[0]} is not one of this reservation's nodes "
                                       f"({', '.join(known)})."]})  # fmt: skip


def _nodes(
    reservation: Reservation, window: MaintenanceWindow, nodes: str, canary_nodes: str
) -> tuple[list[str], list[str]]:
    """The nodes the change reaches (inside the window's) and the canary's: at least one of
    them and never all, so the rest run the old version while the buyer reads the result."""
    affected = clean_nodes(nodes) if nodes.strip() else list(window.nodes)
    if not window.nodes:
        _known_nodes(reservation, affected, field="nodes")
    outside = [n for n in affected if window.nodes and n not in window.nodes]
    if outside:
        raise ValidationError({"nodes": [f"{outside[0]} is outside maintenance #{window.pk} "
                                         f"({window.node_label})."]})  # fmt: skip
    canary = clean_nodes(canary_nodes, field="canary_nodes")
    if not affected:
        _known_nodes(reservation, canary, field="canary_nodes")
    if affected:
        stray = [n for n in canary if n not in affected]
        if stray:
            raise ValidationError({"canary_nodes": [f"{stray[0]} is not among the nodes the "
                                                    "change reaches."]})  # fmt: skip
        total = len(affected)
    else:
        total = reservation.nodes or 0
    if total and len(canary) >= total:
        raise ValidationError({"canary_nodes": [
            f"A canary runs on fewer nodes than the change reaches ({total}): leave at least "
            "one node on the old version."]})  # fmt: skip
    return affected, canary


@transaction.atomic
def change_announce(
    *,
    reservation: Reservation,
    user: User,
    window: MaintenanceWindow | None,
    kind: str,
    component: str,
    from_version: str,
    to_version: str,
    canary_nodes: str | Iterable[str],
    nodes: str | Iterable[str] = "",
    description: str = "",
    now: datetime | None = None,
) -> PlannedChange:
    """The provider's team announces a change inside an agreed window, with its canary."""
    ANNOUNCING.require(reservation, "announce_change", actor=reservation_actor(reservation, user))
    when = now or timezone.now()
    errors = _text_errors(component, from_version, to_version)
    if kind not in ChangeKind.values:
        errors["kind"] = [f"Choose one of: {', '.join(ChangeKind.labels)}."]
    if len(description) > MAX_TEXT:
        errors["description"] = [f"Keep it to {MAX_TEXT:,} characters."]
    # Read afresh: the window's agreement may have come after the caller loaded it.
    window = MaintenanceWindow.objects.filter(pk=window.pk).first() if window else None
    errors.update(_window_errors(reservation, window, when))
    if errors:
        raise ValidationError(errors)
    assert window is not None
    as_text = [v if isinstance(v, str) else " ".join(v) for v in (nodes, canary_nodes)]
    affected, canary_on = _nodes(reservation, window, *as_text)
    versions = f"{from_version.strip()} → {to_version.strip()}"
    label = f"{ChangeKind(kind).label} {component.strip()}: {versions}"
    canary = canary_create(
        reservation=reservation, user=user, nodes=canary_on, closes_at=window.starts_at,
        label=f"Canary: {label}",
        driver_version=to_version if kind == ChangeKind.DRIVER else "",
    )  # fmt: skip
    entry = release_propose(
        reservation=reservation, user=user, now=when,
        what=f"{label} on {', '.join(affected) or 'the whole allocation'} in maintenance "
             f"#{window.pk}; canary on {', '.join(canary_on)}.",
    )  # fmt: skip
    notice = int(terms_for(reservation)[1].get("maintenance_notice_hours") or 0)
    change = PlannedChange.objects.create(
        reservation=reservation, window=window, kind=kind, component=component.strip(),
        from_version=from_version.strip(), to_version=to_version.strip(), nodes=affected,
        description=description.strip(), announced_at=when, announced_by=user,
        notice_hours=notice, canary=canary, entry=entry,
    )  # fmt: skip
    record_on_reservation(
        reservation=reservation, action="change.announce", user=user,
        obj_key=f"change:{change.pk}",
        after={"kind": kind, "component": change.component, "from": change.from_version,
               "to": change.to_version, "nodes": affected, "canary_nodes": canary_on,
               "window": window.pk, "change_log": entry.pk},
    )  # fmt: skip
    notify_members(
        event=Event.CHANGE_ANNOUNCED,
        organization=reservation.request.buyer,
        subject=f"Planned change on “{reservation.request.title}”: {label}",
        body=(
            f"{reservation.bid.provider.name} plans {label} on {change.node_label} in the "
            f"maintenance window from {_utc(window.starts_at)}. Its canary runs first on "
            f"{', '.join(canary_on)}; read the result and accept or object before the window opens."
        ),
        path=change_path(change),
        key=f"change-announced:{change.pk}",
    )
    return change


def _locked(change: PlannedChange) -> PlannedChange:
    return (
        PlannedChange.objects.select_for_update(of=("self",))
        .select_related(
            "window",
            "entry",
            "reservation__request__buyer",
            "reservation__bid__provider",
            "canary__run",
        )
        .order_by("pk")
        .get(pk=change.pk)
    )


@transaction.atomic
def change_answer(
    *, change: PlannedChange, user: User, accept: bool, reason: str = "",
    now: datetime | None = None,
) -> PlannedChange:  # fmt: skip
    """The buyer's team accepts the change, or objects with a reason, before its window opens.
    An objection stands on the record: the change rolls out without a passing canary."""
    change = _locked(change)
    reservation = change.reservation
    CHANGE.allow(change, "accept" if accept else "object",
                 actor=reservation_actor(reservation, user))  # fmt: skip
    if not accept and not reason.strip():
        raise ValidationError({"reason": ["Say why you object; the provider reads it."]})
    before = change.entry.status
    release_decide(entry=change.entry, user=user, approve=accept, note=reason.strip()[:MAX_TEXT],
                   now=now or timezone.now())  # fmt: skip
    record_on_reservation(
        reservation=reservation, action=f"change.{'accept' if accept else 'object'}",
        user=user, obj_key=f"change:{change.pk}", before={"status": before},
        after={"status": change.entry.status}, reason=reason.strip(),
    )  # fmt: skip
    verdict = "accepted" if accept else f"objected to: {reason.strip()}"
    notify_members(
        event=Event.CHANGE_ANSWERED,
        organization=reservation.bid.provider,
        subject=f"Planned change on “{reservation.request.title}” {verdict.split(':')[0]}",
        body=f"{reservation.request.buyer.name} {verdict}",
        path=change_path(change),
        key=f"change-answered:{change.pk}:{change.entry.status}",
    )
    return change


def _outcome(change: PlannedChange) -> tuple[bool | None, bool, str]:
    """(the canary passed?, rolled out unguarded?, the sentence for the record)."""
    run = change.canary.run
    passed = run.gate_passed if run.checks_current else None
    if change.entry.status == ChangeStatus.DECLINED:
        return passed, True, (f"Rolled out without a passing canary: the buyer objected "
                              f"({change.entry.decision_note}).")  # fmt: skip
    if passed is None:
        return None, True, "Rolled out without a passing canary: no canary result was checked."
    if not passed:
        return False, True, f"Rolled out without a passing canary: {run.gate_summary}"
    return True, False, "Rolled out after a passing canary."


@transaction.atomic
def change_window_open(*, change: PlannedChange, now: datetime | None = None) -> PlannedChange:
    """Written once when the window opens: the canary's verdict then, and whether the change
    rolled out unguarded (objected to, or without a passing canary). Running it twice is safe."""
    change = _locked(change)
    when = now or timezone.now()
    if change.opened_at is not None or when < change.window.starts_at:
        return change
    passed, unguarded, outcome = _outcome(change)
    change.opened_at, change.canary_passed = change.window.starts_at, passed
    change.unguarded, change.outcome = unguarded, outcome
    change.save(update_fields=["opened_at", "canary_passed", "unguarded", "outcome"])
    release_roll_out(entry=change.entry, at=change.window.starts_at, checks=outcome)
    record_on_reservation(
        reservation=change.reservation, action="change.window_open", user=None,
        obj_key=f"change:{change.pk}",
        after={"canary_passed": passed, "unguarded": unguarded, "window": change.window_id},
        reason=outcome,
    )  # fmt: skip
    return change


def change_windows_sweep(*, now: datetime | None = None) -> int:
    """Every change whose window has opened and whose outcome is not yet written."""
    when = now or timezone.now()
    due = PlannedChange.objects.filter(opened_at__isnull=True, window__starts_at__lte=when)
    done = 0
    for change in due.order_by("pk"):
        change_window_open(change=change, now=when)
        done += 1
    return done
