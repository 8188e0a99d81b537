"""The promised service envelope on a bid: typed fields with units, refused when they contradict
themselves (by field, on the page and in the API), audited, frozen with the revision, documented
in the API schema, and compared side by side; a bid that promises none of it stays valid."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.models import AuditEntry
from bids.forms import BidForm
from bids.services import bid_save_draft, bid_submit
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import score
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db

ENVELOPE = {
    "placement_class": "same_leaf",
    "start_p50_minutes": 12,
    "start_p95_minutes": 45,
    "idle_capacity_lent": True,
    "preemptible": False,
    "health_check_minutes": 15,
    "node_fail_criteria": "DCGM level 2 failure, XID 79 or 94, any IB link down",
}


def form_data(bid: Any, **overrides: Any) -> dict[str, Any]:
    """What the bid page posts for `bid` as it stands, with `overrides` typed in."""
    form = BidForm(instance=bid)
    data: dict[str, Any] = {}
    for name in form.Meta.fields:
        value = overrides.get(name, form.initial.get(name))
        unticked = value is False and name not in ("idle_capacity_lent", "preemptible")
        if value is None or unticked:
            continue
        data[name] = value
    return data


def test_a_tail_shorter_than_its_median_is_refused_and_the_page_keeps_what_was_typed(provider):
    bid = BidFactory(provider=provider.org)
    data = form_data(bid, start_p50_minutes="40", start_p95_minutes="25", site="Tampere T2")
    response = provider.client().post(reverse("bids:bid-edit", args=[bid.pk]), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "The p95 time to running (25) cannot be shorter than the median (40)." in html
    assert 'value="25"' in html and 'value="Tampere T2"' in html
    bid.refresh_from_db()
    assert bid.start_p95_minutes is None and bid.site == "Frankfurt"


def test_the_form_labels_carry_their_units(provider):
    bid = BidFactory(provider=provider.org)
    html = provider.client().get(reverse("bids:bid-edit", args=[bid.pk])).content.decode()
    for label in (
        "Service envelope",
        "Time to running, p95 (min)",
        "Reclaim notice (min)",
        "Health-check cadence (min)",
        "Inference: time to first token, p95 (ms)",
        "Inference: output throughput (tokens/s)",
        "Inference: cost per million output tokens (USD)",
    ):
        assert label in html, label


@pytest.mark.parametrize(
    ("terms", "field", "message"),
    [
        (
            {"preemptible": True},
            "reclaim_notice_minutes",
            "Give the notice, in minutes, before a reclaim.",
        ),
        ({"preemptible": True}, "reclaim_effect", "Say what a reclaim does to a running job."),
        (
            {"preemptible": False, "reclaim_notice_minutes": 30},
            "reclaim_notice_minutes",
            "Running jobs are never reclaimed: clear this, or answer Yes above.",
        ),
        (
            {"health_check_minutes": 15},
            "node_fail_criteria",
            "Say what a health check fails a node for.",
        ),
        (
            {"ttft_p95_ms": Decimal("450")},
            "inference_concurrency",
            "Give the concurrency the promised latencies hold at.",
        ),
        (
            {"inference_concurrency": 64, "itl_p50_ms": Decimal("30"), "itl_p95_ms": Decimal("20")},
            "itl_p95_ms",
            "The p95 inter-token latency (20) cannot be shorter than the median (30).",
        ),
    ],
)
def test_a_promise_that_contradicts_itself_is_refused_by_field(provider, terms, field, message):
    bid = BidFactory(provider=provider.org)
    with pytest.raises(ValidationError) as exc:
        bid_save_draft(bid=bid, user=provider.user, data=terms)
    assert message in exc.value.message_dict[field]


def test_the_api_saves_the_envelope_audits_it_and_refuses_slips_by_field(provider):
    req = CapacityRequestFactory(status="open")
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    api = token_client(provider.user)
    url = f"/api/v1/bids/{bid.pk}/"
    unstated = api.get(url).json()  # nothing promised: blank choices, null numbers and yes/no
    assert (unstated["placement_class"], unstated["reclaim_effect"]) == ("", "")
    assert unstated["preemptible"] is None and unstated["start_p95_minutes"] is None
    response = api.patch(url, {**ENVELOPE, "start_p95_minutes": 5}, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "cannot be shorter than the median (12)" in errors["start_p95_minutes"][0]
    response = api.patch(url, {"reclaim_effect": "vanished"}, format="json")
    assert response.status_code == 400 and "reclaim_effect" in response.json()["errors"]
    response = api.patch(url, {"health_check_minutes": 0}, format="json")
    assert response.status_code == 400 and "health_check_minutes" in response.json()["errors"]

    response = api.patch(url, ENVELOPE, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["placement_class"] == "same_leaf" and body["start_p95_minutes"] == 45
    assert body["idle_capacity_lent"] is True and body["preemptible"] is False
    entry = AuditEntry.objects.filter(action="bid.draft", obj_key=f"bid:{bid.pk}").latest("seq")
    assert entry.after["start_p95_minutes"] == 45 and entry.before["start_p95_minutes"] is None


def test_the_api_schema_documents_the_fields_with_their_units(client):
    schema = client.get("/api/v1/schema/?format=json").json()
    props = schema["components"]["schemas"]["PatchedBidTermsWriteRequest"]["properties"]
    assert props["start_p95_minutes"]["title"] == "Time to running, p95 (min)"
    assert "fixture's size" in props["start_p95_minutes"]["description"]
    assert props["cost_per_million_tokens"]["title"].endswith("(USD)")
    refs = [choice["$ref"].rsplit("/", 1)[1] for choice in props["reclaim_effect"]["oneOf"]]
    effects = schema["components"]["schemas"][refs[0]]["enum"]
    assert set(effects) >= {"checkpoint_requeue", "requeue", "killed", "suspended"}
    assert props["preemptible"]["nullable"] is True


def test_a_bid_without_an_envelope_still_submits_and_the_envelope_is_frozen(provider):
    bare = BidFactory(provider=provider.org)
    assert bid_submit(bid=bare, user=provider.user).start_p95_minutes is None
    bid = BidFactory(provider=provider.org)
    bid_save_draft(bid=bid, user=provider.user, data=ENVELOPE)
    revision = bid_submit(bid=bid, user=provider.user)
    assert (revision.placement_class, revision.start_p95_minutes) == ("same_leaf", 45)
    assert revision.node_fail_criteria == ENVELOPE["node_fail_criteria"]


def _compare(client: Any, req: Any, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def _envelope_world(world: Any, provider: Any, rival_provider: Any) -> Any:
    bid_save_draft(bid=world.bid, user=provider.user, data=ENVELOPE)
    bid_submit(bid=world.bid, user=provider.user)
    inference = {
        "placement_class": "anywhere",
        "start_p50_minutes": 30,
        "start_p95_minutes": 240,
        "preemptible": True,
        "reclaim_notice_minutes": 10,
        "reclaim_effect": "checkpoint_requeue",
        "inference_concurrency": 64,
        "ttft_p50_ms": Decimal("180"),
        "ttft_p95_ms": Decimal("420"),
        "throughput_tokens_per_s": 5200,
        "cost_per_million_tokens": Decimal("0.85"),
    }
    bid_save_draft(bid=world.rival_bid, user=rival_provider.user, data=inference)
    bid_submit(bid=world.rival_bid, user=rival_provider.user)
    run = score(world.request)
    assert run.status == "done", run.error
    return world


def _row(html: str, key: str) -> str:
    start = html.index(f'<tr data-row="{key}">')
    return html[start : html.index("</tr>", start)]


def test_the_comparison_sets_the_envelopes_side_by_side(world, buyer, provider, rival_provider):
    _envelope_world(world, provider, rival_provider)
    html = _compare(buyer.client(), world.request)
    assert "Service envelope" in html and "Inference offer" in html
    p95 = _row(html, "start_p95")
    assert "Time to running, p95 <small" in p95 and "(min)" in p95
    assert '<td class="best">45</td><td>240</td>' in p95  # the shorter tail is the better one
    assert "Under one leaf / rail group (non-blocking)" in _row(html, "placement")
    assert "<td>yes</td><td>—</td>" in _row(html, "lent")  # unstated is not "no"
    reclaim = _row(html, "reclaim_effect")
    assert "<td>—</td><td>Signalled to checkpoint, then requeued</td>" in reclaim
    assert "XID 79" in _row(html, "node_fail")
    assert "<td>—</td><td>420.0</td>" in _row(html, "ttft_p95")
    assert "(tokens/s)" in _row(html, "throughput")
    assert "<td>—</td><td>0.85</td>" in _row(html, "cost_mtok")


def test_the_anonymised_comparison_hides_what_fails_a_node(world, buyer, provider, rival_provider):
    _envelope_world(world, provider, rival_provider)
    html = _compare(buyer.client(), world.request, "?labels=anonymous")
    assert "XID 79" not in html
    assert '<td class="best">45</td>' in _row(html, "start_p95")


def test_a_sealed_request_shows_no_envelope(world, buyer, provider, rival_provider):
    _envelope_world(world, provider, rival_provider)
    world.request.sealed = True
    world.request.save()
    html = _compare(buyer.client(), world.request)
    assert "Service envelope" not in html and "XID 79" not in html
