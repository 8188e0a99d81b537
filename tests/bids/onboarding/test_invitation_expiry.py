"""Celery beat's sweep marks a supplier invitation whose link has expired: the row stays, the
buyer's list says "Expired" with a way to invite the address again, the request's record says
when it expired, and running the sweep again changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from bids.models import SupplierInvitation
from bids.services import supplier_invitations_expire, supplier_invite
from bids.tasks import expire_supplier_invitations
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_request(buyer):
    return CapacityRequestFactory(buyer=buyer.org, title="16 × H200, EU")


def test_the_sweep_marks_an_expired_invitation_once_and_keeps_it(open_request, buyer, settings):
    invitation = supplier_invite(
        capacity_request=open_request, user=buyer.user, email="bea@borealis.example"
    )
    used = supplier_invite(
        capacity_request=open_request, user=buyer.user, email="cy@corvid.example"
    )
    SupplierInvitation.objects.filter(pk=used.pk).update(used_at=timezone.now())
    # Still inside its SUPPLIER_INVITATION_DAYS: nothing to mark.
    assert expire_supplier_invitations() == 0
    later = invitation.expires_at + timedelta(seconds=1)
    assert supplier_invitations_expire(now=invitation.expires_at - timedelta(seconds=1)) == 0
    assert supplier_invitations_expire(now=later) == 1
    assert supplier_invitations_expire(now=later + timedelta(days=1)) == 0  # idempotent
    invitation.refresh_from_db()
    assert invitation.expired_at == invitation.expires_at and invitation.is_expired
    assert SupplierInvitation.objects.get(pk=used.pk).expired_at is None  # used: never expires
    (entry,) = AuditEntry.objects.filter(action="request.supplier_invitation_expired")
    assert entry.actor is None and entry.request_id == open_request.pk
    assert entry.after["email"] == "bea@borealis.example" and not entry.shared
    beat = settings.CELERY_BEAT_SCHEDULE["expire-supplier-invitations"]
    assert beat["task"] == expire_supplier_invitations.name


def test_the_buyer_sees_expired_and_invites_the_address_again(open_request, buyer):
    invitation = supplier_invite(
        capacity_request=open_request, user=buyer.user, email="bea@borealis.example", company="Bo"
    )
    SupplierInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=5)
    )
    assert expire_supplier_invitations() == 1
    client = buyer.client()
    page = client.get(reverse("bids:request-detail", args=[open_request.pk])).content.decode()
    cell = page.split(f'id="supplier-invitation-{invitation.pk}"')[1].split("</td>")[0]
    assert "<strong>Expired</strong>" in cell and f'id="reinvite-{invitation.pk}"' in cell
    again = client.post(
        reverse("bids:supplier-invite", args=[open_request.pk]),
        {"email": "bea@borealis.example", "company": "Bo"},
        follow=True,
    )
    assert "Invitation e-mailed to bea@borealis.example" in again.content.decode()
    rows = SupplierInvitation.objects.filter(email="bea@borealis.example").order_by("pk")
    assert [row.is_expired for row in rows] == [True, False]  # the expired one is kept
    assert rows[1].company == "Bo"
