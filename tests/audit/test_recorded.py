"""What the request, bid and reservation services put on the record, and for whom."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from acceptance.services.decision import reservation_reject
from audit.models import AuditEntry
from audit.selectors import entries_for
from bids.audit import record_request
from bids.choices import RequestStatus
from bids.models import CapacityRequest
from bids.services import (
    bid_withdraw,
    lot_add,
    request_cancel,
    request_uninvite,
    request_update,
)
from tests.factories import CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db


def test_an_edit_records_the_changed_fields_before_and_after(world, buyer, provider):
    req = CapacityRequest.objects.get(pk=world.request.pk)
    old_deadline = req.bid_deadline
    request_update(
        capacity_request=req,
        user=buyer.user,
        data={"title": "Renamed", "bid_deadline": old_deadline + timedelta(days=1)},
    )
    entry = AuditEntry.objects.get(action="request.edit")
    assert set(entry.before) == set(entry.after) == {"title", "bid_deadline"}
    assert entry.after["title"] == "Renamed" and entry.before["title"] == world.request.title
    # A published request's terms are the providers' to read anyway.
    assert entries_for(org=provider.org, obj_key=f"request:{req.pk}").filter(pk=entry.pk)


def test_a_drafts_edits_are_the_buyers_alone(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT)
    InvitationFactory(request=req, provider=provider.org)
    request_update(capacity_request=req, user=buyer.user, data={"title": "Draft v2"})
    key = f"request:{req.pk}"
    assert [e.action for e in entries_for(org=buyer.org, obj_key=key)] == ["request.edit"]
    assert not entries_for(org=provider.org, obj_key=key).exists()


def test_saving_an_unchanged_request_records_nothing(world, buyer):
    request_update(capacity_request=world.request, user=buyer.user, data={})
    assert not AuditEntry.objects.filter(action="request.edit").exists()


def test_withdraw_and_cancel_are_recorded(world, buyer, provider, rival_provider):
    bid_withdraw(bid=world.bid, user=provider.user)
    request_cancel(capacity_request=world.request, user=buyer.user, confirmed=True)
    withdraw = AuditEntry.objects.get(action="bid.withdraw")
    assert (withdraw.before, withdraw.after) == (
        {"status": "submitted"},
        {"status": "withdrawn", "revision": 1},
    )
    cancel = AuditEntry.objects.get(action="request.cancel")
    assert cancel.after == {"status": "cancelled"}
    assert entries_for(org=rival_provider.org, obj_key=cancel.obj_key).filter(pk=cancel.pk)
    assert not entries_for(org=rival_provider.org, obj_key=withdraw.obj_key).exists()


def test_an_uninvitation_is_the_buyers_and_that_providers(buyer, provider, rival_provider):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT)
    InvitationFactory(request=req, provider=provider.org)
    request_uninvite(capacity_request=req, user=buyer.user, provider=provider.org)
    entry = AuditEntry.objects.get(action="request.uninvite")
    assert entry.before == {"provider": "Northwind"}
    assert (entry.buyer_org, entry.provider_org) == (buyer.org, provider.org)


def test_a_rejection_records_its_reason(walk, buyer, provider):
    reservation_reject(reservation=walk.reservation, user=buyer.user, reason="Fabric too slow.")
    entry = AuditEntry.objects.get(action="reservation.reject")
    assert (entry.party, entry.reason) == ("buyer", "Fabric too slow.")
    assert entry.before == {"status": "pending"} and entry.after == {"status": "rejected"}
    assert entries_for(org=provider.org, obj_key=entry.obj_key).filter(pk=entry.pk)


def test_a_failed_move_leaves_no_entry(world, rival_provider):
    from core.lifecycle import MoveRefused

    with pytest.raises(MoveRefused):
        bid_withdraw(bid=world.bid, user=rival_provider.user)
    assert not AuditEntry.objects.filter(action="bid.withdraw").exists()


def test_the_history_panel_reads_recorded_values_as_words(buyer):
    """A yes/no, a list and an empty value read as a person writes them, never as Python's
    True, None or ['a', 'b']."""
    req = CapacityRequestFactory(buyer=buyer.org, draft=True, gpu_count=32, nodes=4)
    lot_add(
        capacity_request=req,
        user=buyer.user,
        data={"name": "Pre-training", "nodes": 2, "gpus_per_node": 8, "region": ""},
    )
    record_request(
        capacity_request=req,
        action="request.edit",
        user=buyer.user,
        after={"acceptable_regions": ["eu", "uk"]},
    )
    page = buyer.client().get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    start = page.index('id="audit-history"')
    history = page[start : page.index("</table>", start)]
    assert "single_fabric_domain: yes" in history and "reservation_start: —" in history
    assert "acceptable_regions: eu, uk" in history
    assert "True" not in history and "None" not in history and "[&#x27;" not in history
