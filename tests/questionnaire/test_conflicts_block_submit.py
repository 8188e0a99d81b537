"""One fact, two values blocks the submit until each conflict is changed or kept as stated with
a reason; the buyer reads the reason beside the conflict."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.forms.models import model_to_dict
from django.urls import reverse

from audit.models import AuditEntry
from bids.forms import BidForm
from bids.services import bid_save_draft, bid_submit
from questionnaire.services import conflicts_keep

pytestmark = pytest.mark.django_db

REASON = "Two spares are on site; one is reserved for this cluster alone."


@pytest.fixture
def conflicting(world, provider):
    bid_save_draft(
        bid=world.bid,
        user=provider.user,
        data={"spares_count": 1, "spares_location": "same_site", "notes": "We keep 2 spare nodes."},
    )
    world.bid.refresh_from_db()
    return world.bid


def test_a_conflict_blocks_the_submit_in_the_service_and_on_the_page(conflicting, provider):
    before = conflicting.revisions.count()
    with pytest.raises(ValidationError, match="One fact, two values"):
        bid_submit(bid=conflicting, user=provider.user)
    client = provider.client()
    response = client.post(
        reverse("bids:bid-edit", args=[conflicting.pk]),
        {**_draft_post(conflicting), "submit": "1"},
        follow=True,
    )
    assert "One fact, two values" in response.content.decode()
    assert conflicting.revisions.count() == before


def test_kept_with_a_reason_the_submit_goes_on_and_the_buyer_reads_why(
    conflicting, provider, buyer
):
    with pytest.raises(ValidationError, match="full sentence"):
        conflicts_keep(bid=conflicting, user=provider.user, reason="Aaaaaaaaaaaaaaaaaaaaaaa.")
    conflicts_keep(bid=conflicting, user=provider.user, reason=REASON)
    assert AuditEntry.objects.filter(action="bid.conflicts.keep").count() == 1
    bid_submit(bid=conflicting, user=provider.user)
    html = buyer.client().get(reverse("bids:bid-detail", args=[conflicting.pk])).content.decode()
    flag = html[html.index('id="fact-conflicts"') :]
    assert "kept as stated" in flag and REASON in flag


def test_a_new_conflict_after_keeping_blocks_again(conflicting, provider):
    conflicts_keep(bid=conflicting, user=provider.user, reason=REASON)
    bid_save_draft(bid=conflicting, user=provider.user, data={"notes": "We keep 3 spare nodes."})
    with pytest.raises(ValidationError, match="3 in the bid's notes"):
        bid_submit(bid=conflicting, user=provider.user)


def test_the_page_keeps_a_refused_reason_and_prints_each_conflict_once(conflicting, provider):
    client = provider.client()
    url = reverse("questionnaire:conflicts-keep", args=[conflicting.pk])
    html = client.post(url, {"reason": "Because."}, follow=True).content.decode()
    assert "full sentence" in html
    assert "required>Because.</textarea>" in html
    flag = html[html.index('id="fact-conflicts"') :]
    flag = flag[: flag.index("</div>")]
    assert flag.count("Spare nodes: 1 in the bid field") == 1
    html = client.post(url, {"reason": REASON}, follow=True).content.decode()
    assert "Both values kept as stated" in html and 'id="keep-conflicts"' not in html


def _draft_post(bid):
    data = model_to_dict(bid, fields=BidForm.Meta.fields)
    return {k: v for k, v in data.items() if v is not None and v is not False}


def test_the_api_keeps_conflicts_with_a_reason_and_then_submits(conflicting, provider):
    from tests.api.v1.conftest import token_client

    api = token_client(provider.user)
    refused = api.post(f"/api/v1/bids/{conflicting.pk}/submit/", format="json")
    assert refused.status_code == 400 and "One fact, two values" in str(refused.json())
    short = api.post(
        f"/api/v1/bids/{conflicting.pk}/conflicts/keep/", {"reason": "Ok."}, format="json"
    )
    assert short.status_code == 400 and "full sentence" in str(short.json())
    kept = api.post(
        f"/api/v1/bids/{conflicting.pk}/conflicts/keep/", {"reason": REASON}, format="json"
    )
    assert kept.status_code == 200 and kept.json()["reason"] == REASON
    assert len(kept.json()["kept"]) == 1
    assert api.post(f"/api/v1/bids/{conflicting.pk}/submit/", format="json").status_code == 201
