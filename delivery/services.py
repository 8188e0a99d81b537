"""Maintenance windows: the provider announces, the buyer agrees to short notice. Keyword-only
writes, each audited on the reservation's trail and told to the other party."""

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
from delivery.lifecycle import ANNOUNCING, WINDOW
from delivery.models import MaintenanceWindow
from delivery.terms import term_bounds
from incidents.lifecycle import reservation_actor
from incidents.selectors import terms_for
from incidents.services.opening import clean_nodes
from notices.choices import Event
from notices.services import notify_members

MAX_REASON = 2000


def _utc(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


def _clean_window(
    reservation: Reservation, starts_at: datetime | None, ends_at: datetime | None
) -> tuple[datetime, datetime]:
    if starts_at is None:
        raise ValidationError({"starts_at": ["Give the UTC time the maintenance starts."]})
    if ends_at is None:
        raise ValidationError({"ends_at": ["Give the UTC time the maintenance ends."]})
    if ends_at <= starts_at:
        raise ValidationError(
            {"ends_at": [f"The end must come after the start ({_utc(starts_at)})."]}
        )
    term = term_bounds(reservation)
    if term is None:  # the lifecycle already refuses an unaccepted reservation
        raise ValidationError({"starts_at": ["The term starts when the buyer accepts."]})
    start, end = term
    if starts_at < start or ends_at > end:
        raise ValidationError(
            {"starts_at" if starts_at < start else "ends_at": [
                f"Maintenance must sit inside the term, {_utc(start)} to {_utc(end)}."]}
        )  # fmt: skip
    return starts_at, ends_at


def _path(reservation: Reservation) -> str:
    return reverse("burnin:reservation-detail", args=[reservation.pk]) + "#delivery"


@transaction.atomic
def maintenance_announce(
    *,
    reservation: Reservation,
    user: User,
    starts_at: datetime | None,
    ends_at: datetime | None,
    reason: str,
    nodes: str | Iterable[str] = "",
    now: datetime | None = None,
) -> MaintenanceWindow:
    """The provider announces a window. Less notice than the terms require makes it short
    notice: downtime unless a buyer approver or admin agrees."""
    ANNOUNCING.require(reservation, "announce", actor=reservation_actor(reservation, user))
    when = now or timezone.now()
    start, end = _clean_window(reservation, starts_at, ends_at)
    if start < when:
        raise ValidationError(
            {"starts_at": [f"{_utc(start)} has passed; announce maintenance before it starts."]}
        )
    given = nodes if isinstance(nodes, str) else " ".join(nodes)
    labels = clean_nodes(given) if given.strip() else []
    if not reason.strip():
        raise ValidationError({"reason": ["Say what the maintenance is for; the buyer reads it."]})
    _revision, snapshot, source = terms_for(reservation)
    notice = int(snapshot.get("maintenance_notice_hours") or 0)
    short = start - when < timedelta(hours=notice)
    window = MaintenanceWindow.objects.create(
        reservation=reservation, nodes=labels, starts_at=start, ends_at=end,
        reason=reason.strip()[:MAX_REASON], announced_at=when, announced_by=user,
        notice_hours=notice, short_notice=short,
    )  # fmt: skip
    record_on_reservation(
        reservation=reservation, action="maintenance.announce", user=user,
        obj_key=f"maintenance:{window.pk}",
        after={"starts_at": start, "ends_at": end, "nodes": labels, "short_notice": short,
               "notice_hours": notice, "terms": source},
        reason=window.reason,
    )  # fmt: skip
    lead = f"{(start - when).total_seconds() / 3600:.1f} h"
    ask = (
        f" That is less than the {notice} h notice the terms require: it counts as downtime "
        "unless a buyer approver or admin agrees to it."
        if short
        else ""
    )
    notify_members(
        event=Event.MAINTENANCE_ANNOUNCED,
        organization=reservation.request.buyer,
        subject=f"Maintenance on “{reservation.request.title}”: {_utc(start)}",
        body=(
            f"{reservation.bid.provider.name} announced maintenance on {window.node_label} from "
            f"{_utc(start)} to {_utc(end)} ({lead} notice): {window.reason}{ask}"
        ),
        path=_path(reservation),
        key=f"maintenance-announced:{window.pk}",
    )
    return window


@transaction.atomic
def maintenance_agree(
    *, window: MaintenanceWindow, user: User, now: datetime | None = None
) -> MaintenanceWindow:
    """A buyer approver or admin agrees to a short-notice window: it leaves the downtime."""
    window = (
        MaintenanceWindow.objects.select_for_update()
        .select_related("reservation__request__buyer", "reservation__bid__provider")
        .get(pk=window.pk)
    )
    reservation = window.reservation
    WINDOW.require(window, "agree", actor=reservation_actor(reservation, user))
    window.agreed_at, window.agreed_by = now or timezone.now(), user
    window.save(update_fields=["agreed_at", "agreed_by"])
    record_on_reservation(
        reservation=reservation, action="maintenance.agree", user=user,
        obj_key=f"maintenance:{window.pk}", before={"agreed_at": None},
        after={"agreed_at": window.agreed_at},
    )  # fmt: skip
    notify_members(
        event=Event.MAINTENANCE_AGREED,
        organization=reservation.bid.provider,
        subject=f"Maintenance on “{reservation.request.title}” agreed",
        body=(
            f"{reservation.request.buyer.name} agreed to the short-notice maintenance on "
            f"{window.node_label}, {_utc(window.starts_at)} to {_utc(window.ends_at)}: it does "
            "not count as downtime."
        ),
        path=_path(reservation),
        key=f"maintenance-agreed:{window.pk}",
    )
    return window
