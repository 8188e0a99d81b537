"""Whose mapping a usage file is read with: the provider's saved mapping belongs to the provider;
a buyer may map one file differently, for that file alone. Also Retry, and a broker that is
away (503, the file kept and waiting)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from audit.models import AuditEntry
from bids.services import bid_save_draft, bid_submit
from billing.models import UsageMapping, UsageUpload
from core.models import WaitingTask
from core.queueing import send_waiting
from orgs.choices import MemberRole, OrgKind
from tests.api.v1.conftest import token_client
from tests.api.v1.tenancy_builders import USAGE_MAPPING
from tests.api.v1.test_api_usage import _post
from tests.billing.conftest import CLOCK, contracted, media_root
from tests.conftest import Role, World
from tests.factories import (
    BidFactory,
    CapacityRequestFactory,
    InvitationFactory,
    MembershipFactory,
    OrganizationFactory,
    UserFactory,
)
from tests.incidents.helpers import accept

pytestmark = pytest.mark.django_db
__all__ = ["contracted", "media_root"]

# The buyer's own reading of the file: periods from their start and length alone.
BUYER_MAPPING = {
    **USAGE_MAPPING,
    "columns": {k: v for k, v in USAGE_MAPPING["columns"].items() if k != "period_end"},
}


@pytest.fixture
def second_buyer_reservation(provider, contracted):
    """The same provider's reservation with another buyer, same term and rate."""
    org = OrganizationFactory(name="Second Buyer", slug="second", kind=OrgKind.BUYER)
    user = UserFactory(username="sam")
    MembershipFactory(user=user, organization=org, role=MemberRole.ADMIN)
    other = Role(user=user, org=org)
    request = CapacityRequestFactory(buyer=org, sealed=False)
    InvitationFactory(request=request, provider=provider.org)
    bid = BidFactory(request=request, provider=provider.org)
    bid_save_draft(
        bid=bid,
        user=provider.user,
        data={"price_per_gpu_hour": Decimal("2.50"), "fees_usd": 1000, "egress_usd": 500},
    )
    bid_submit(bid=bid, user=provider.user)
    bid.refresh_from_db()
    reservation = accept(
        World(request=request, bid=bid, rival_bid=bid), other, provider
    ).reservation
    reservation.clock_starts_at = CLOCK
    reservation.save(update_fields=["clock_starts_at"])
    mine = contracted.reservation.request
    request.reservation_start, request.reservation_end = (
        mine.reservation_start,
        mine.reservation_end,
    )
    request.save(update_fields=["reservation_start", "reservation_end"])
    return other, reservation


def _map(client, reservation, upload_id, mapping, capture):
    url = f"/api/v1/reservations/{reservation.pk}/usage/{upload_id}/mapping/"
    with capture(execute=True):
        return client.put(url, mapping, format="json")


def test_a_buyers_mapping_is_for_its_file_and_never_moves_another_buyers_bill(
    contracted, buyer, provider, second_buyer_reservation, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    other, other_reservation = second_buyer_reservation
    mine = contracted.reservation
    # The provider maps its export once: that becomes its saved mapping.
    first = _post(token_client(provider.user), mine).json()
    assert (
        _map(token_client(provider.user), mine, first["id"], USAGE_MAPPING, capture).status_code
        == 202
    )
    saved = UsageMapping.objects.get(provider=provider.org).as_json()
    assert UsageUpload.objects.get(pk=first["id"]).mapping_scope == "provider"

    # The other buyer's bill is read with it at once.
    with capture(execute=True):
        theirs = _post(token_client(other.user), other_reservation).json()
    before = UsageUpload.objects.get(pk=theirs["id"])
    assert before.state == "done" and before.totals["billed"] == "632.00"

    # This buyer maps its own copy differently.
    response = _map(token_client(buyer.user), mine, first["id"], BUYER_MAPPING, capture)
    assert response.status_code == 202
    body = (
        token_client(provider.user)
        .get(f"/api/v1/reservations/{mine.pk}/usage/{first['id']}/")
        .json()
    )  # the provider sees how its file was read, and by whom
    assert body["mapping_scope"] == "file" and body["mapping_set_by"] == buyer.user.username
    assert body["state"] == "done" and "period_end" not in body["reconciled_mapping"]["columns"]

    # The provider's saved mapping is untouched, and the other buyer's next bill reads as before.
    assert UsageMapping.objects.get(provider=provider.org).as_json() == saved
    with capture(execute=True):
        again = _post(token_client(other.user), other_reservation).json()
    after = UsageUpload.objects.get(pk=again["id"])
    assert after.state == "done" and after.totals == before.totals
    assert after.reconciled_mapping == saved
    entry = AuditEntry.objects.get(action="usage.file_mapping_set")
    assert "period_end" not in entry.after["columns"] and entry.after["scope"] == "file"


def test_retry_runs_a_failed_reconciliation_again_for_either_party_only(
    contracted, buyer, provider, rival_provider, outsider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    upload = _post(client, contracted.reservation).json()
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{upload['id']}/"
    _map(
        client,
        contracted.reservation,
        upload["id"],
        USAGE_MAPPING,
        django_capture_on_commit_callbacks,
    )
    # A worker that died mid-run left the row as the reaper would: failed with a reason.
    UsageUpload.objects.filter(pk=upload["id"]).update(state="error", error="worker lost")
    for stranger in (rival_provider, outsider):
        assert token_client(stranger.user).post(base + "retry/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(buyer.user).post(base + "retry/")
    assert response.status_code == 202
    row = UsageUpload.objects.get(pk=upload["id"])
    assert row.state == "done" and row.error == "" and row.totals["billed"] == "632.00"
    assert AuditEntry.objects.filter(action="usage.retried").count() == 1
    # Nothing to retry once done.
    refused = token_client(buyer.user).post(base + "retry/")
    assert refused.status_code == 409 and "nothing to retry" in refused.json()["detail"]


@pytest.mark.django_db(transaction=True)  # commits for real, so the queueing runs in the request
def test_while_the_broker_is_away_an_upload_answers_503_and_the_file_waits(
    contracted, provider, broker_away
):
    client = token_client(provider.user)
    first = _post(client, contracted.reservation).json()
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{first['id']}/"
    response = client.put(base + "mapping/", USAGE_MAPPING, format="json")
    assert response.status_code == 503
    assert response["Retry-After"] and "could not be reached" in response.json()["detail"]
    row = UsageUpload.objects.get(pk=first["id"])
    assert row.state == "queued" and row.queued_at is not None  # kept, waiting
    again = _post(client, contracted.reservation)  # the saved mapping fits: queued at once
    assert again.status_code == 503 and again.json()["detail"].startswith("Usage file usage.csv")
    assert UsageUpload.objects.count() == 2
    assert client.get(base).json()["state"] == "queued"
    assert (
        list(WaitingTask.objects.values_list("task", flat=True))
        == ["billing.tasks.reconcile_usage"] * 2
    )
    assert send_waiting() == 0  # still away: nothing sent, both kept

    broker_away()  # the broker is back: the sweep sends both, and both files are reconciled
    assert send_waiting() == 2 and not WaitingTask.objects.exists()
    assert set(UsageUpload.objects.values_list("state", flat=True)) == {"done"}
