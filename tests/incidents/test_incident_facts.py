"""Incidents are facts both parties stand by, through the API and the pages:

- a clock breach is stored when it happens; a severity change one party proposes moves nothing
  until an approver or admin of the other party accepts it, and even then the breach stays;
- an incident's window lies inside the reservation's term and names the reservation's nodes;
- one party's incident counts once the other acknowledges it, or once its response clock runs
  out without a dispute; a disputed one shows both readings on the delivery panel.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from acceptance.models import Baseline, BurnInRun
from audit.models import AuditEntry
from bids.models import CapacityRequest
from delivery.selectors import delivery_for
from incidents import services
from incidents.models import ClockBreach, Incident, SeverityChange
from incidents.services.opening import incident_open_signal
from incidents.ticket import ticket_for
from orgs.choices import MemberRole
from tests.delivery.helpers import example_reservation
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db

NODES = ["gpu-01", "gpu-02", "gpu-03", "gpu-04"]


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def live_reservation(buyer: Any, provider: Any, *, nodes: list[str] | None = None) -> Any:
    """The worked example's reservation, its term moved around today: accepted ten days ago,
    ending in sixty; `nodes` names its burn-in hosts in the hand-over baseline."""
    reservation = example_reservation(buyer, provider)
    today = timezone.now().date()
    CapacityRequest.objects.filter(pk=reservation.request_id).update(
        reservation_start=today - timedelta(days=10), reservation_end=today + timedelta(days=60)
    )
    start = datetime.combine(today - timedelta(days=10), datetime.min.time(), tzinfo=UTC)
    reservation.clock_starts_at = start
    reservation.save(update_fields=["clock_starts_at"])
    if nodes:
        run = BurnInRun.objects.filter(reservation=reservation).first()
        Baseline.objects.create(
            reservation=reservation, run=run, snapshot={"nccl": [{"hosts": nodes}]}
        )
    reservation.refresh_from_db()
    reservation.request.refresh_from_db()
    return reservation


def _buyer_s1(reservation: Any, buyer: Any, provider: Any, *, hours_ago: float = 6) -> Incident:
    """The buyer's S1 on every node, opened `hours_ago`; the provider responded in time and has
    not restored, so the 4 h restore clock has run out."""
    opened = timezone.now() - timedelta(hours=hours_ago)
    incident = incident_open_signal(
        reservation=reservation, user=buyer.user, severity="S1", nodes=" ".join(NODES),
        window_start=opened, signal="slow-job", summary="Job down on every rank", now=opened,
    )  # fmt: skip
    services.incident_mark(
        incident=incident, user=provider.user, what="responded", now=opened + timedelta(minutes=5)
    )
    return incident


def _availability(client: APIClient, reservation: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/reservations/{reservation.pk}/availability/")
    assert response.status_code == 200, response.content
    return response.json()


def _credit_pct(data: dict[str, Any], report: str = "report") -> Decimal:
    return sum((Decimal(m["credit_pct"]["value"]) for m in data[report]["months"]), Decimal(0))


def _breaches(data: dict[str, Any], report: str = "report") -> int:
    return sum(m["breaches"] for m in data[report]["months"])


def test_a_provider_downgrade_waits_for_the_buyer_and_the_breach_stays(buyer, provider):
    reservation = live_reservation(buyer, provider)
    incident = _buyer_s1(reservation, buyer, provider)
    nora, alice = _api(provider.user), _api(buyer.user)
    before = _availability(alice, reservation)
    assert _breaches(before) == 1 and _credit_pct(before) > 0

    proposed = nora.post(
        f"/api/v1/incidents/{incident.pk}/severity/",
        {"severity": "S3", "reason": "Only one node is really out."},
        format="json",
    )
    assert proposed.status_code == 201, proposed.content
    body = proposed.json()
    assert body["severity"] == "S1"  # nothing moves on one party's word
    assert body["severity_changes"][0]["status"] == "pending"
    assert [b["clock"] for b in body["breaches"]] == ["restore"]  # stored when seen
    assert body["breaches"][0]["severity"] == "S1" and body["breaches"][0]["minutes"] == 240
    # The provider cannot accept its own proposal, nor close the buyer's S1.
    assert nora.post(f"/api/v1/incidents/{incident.pk}/severity/accept/").status_code == 403
    closing = nora.post(f"/api/v1/incidents/{incident.pk}/close/", {"confirm": True}, format="json")
    assert closing.status_code == 409
    waiting = _availability(alice, reservation)
    assert _breaches(waiting) == 1 and _credit_pct(waiting) == _credit_pct(before)
    page = alice_page(buyer, incident)
    assert "Proposed S3" in page and "Proposed S1" not in page
    assert "the incident stays S1 and its clocks keep running" in page

    # A buyer requester may not answer for the buyer: an approver or admin does.
    rhea = MembershipFactory(organization=buyer.org, role=MemberRole.REQUESTER).user
    refused = _api(rhea).post(f"/api/v1/incidents/{incident.pk}/severity/accept/")
    assert refused.status_code == 403 and "Approver" in refused.json()["detail"]

    accepted = alice.post(
        f"/api/v1/incidents/{incident.pk}/severity/accept/", {"reason": "Seen."}, format="json"
    )
    assert accepted.status_code == 200, accepted.content
    agreed = accepted.json()
    assert agreed["severity"] == "S3"
    assert agreed["severity_history"][0].startswith("opened as S1 by alice at ")
    assert agreed["severity_history"][1].startswith(
        "then changed to S3 by nora on alice's agreement at "
    )
    # The S1 restore breach is a fact: the 1,440-minute S3 clock does not erase it.
    after = _availability(alice, reservation)
    assert _breaches(after) == 1
    assert ClockBreach.objects.filter(incident=incident, severity="S1", clock="restore").exists()
    # Who closes follows the agreed severity: an S3 is the provider's to close too (the
    # checklist still refuses, 409, not the role).
    closing = nora.post(f"/api/v1/incidents/{incident.pk}/close/", {"confirm": True}, format="json")
    assert closing.status_code == 409

    ticket = ticket_for(Incident.objects.get(pk=incident.pk)).text()
    assert "opened as S1 by alice at " in ticket
    assert "then changed to S3 by nora on alice's agreement at " in ticket
    assert "S1 restore clock breached (240 min)" in ticket
    page = alice_page(buyer, incident)
    assert "opened as S1 by alice" in page
    assert "then changed to S3 by nora on alice&#x27;s agreement" in page
    assert "Proposed S" not in page


def alice_page(buyer: Any, incident: Incident) -> str:
    response = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_rejected_proposal_leaves_the_severity_with_its_reason(buyer, provider):
    reservation = live_reservation(buyer, provider)
    incident = _buyer_s1(reservation, buyer, provider, hours_ago=1)
    nora, alice = _api(provider.user), _api(buyer.user)
    nothing = alice.post(
        f"/api/v1/incidents/{incident.pk}/severity/reject/", {"reason": "No."}, format="json"
    )
    assert nothing.status_code == 409
    nora.post(f"/api/v1/incidents/{incident.pk}/severity/",
              {"severity": "S2", "reason": "It runs, slowly."}, format="json")  # fmt: skip
    second = nora.post(f"/api/v1/incidents/{incident.pk}/severity/",
                       {"severity": "S3", "reason": "Again."}, format="json")  # fmt: skip
    assert second.status_code == 409  # one proposal at a time
    no_reason = alice.post(f"/api/v1/incidents/{incident.pk}/severity/reject/", {}, format="json")
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["errors"]
    rejected = alice.post(
        f"/api/v1/incidents/{incident.pk}/severity/reject/",
        {"reason": "Every rank is stuck."},
        format="json",
    )
    assert rejected.status_code == 200, rejected.content
    assert rejected.json()["severity"] == "S1"
    assert "rejected by alice" in rejected.json()["severity_history"][1]
    change = SeverityChange.objects.get(incident=incident)
    assert (change.status, change.decided_party, change.decision_reason) == (
        "rejected",
        "buyer",
        "Every rank is stuck.",
    )
    actions = list(
        AuditEntry.objects.filter(obj_key=f"incident:{incident.pk}")
        .order_by("seq")
        .values_list("action", "party", "reason")
    )
    assert ("incident.severity.propose", "provider", "It runs, slowly.") in actions
    assert ("incident.severity.reject", "buyer", "Every rank is stuck.") in actions


def test_the_page_buttons_propose_and_accept(buyer, provider):
    reservation = live_reservation(buyer, provider)
    incident = _buyer_s1(reservation, buyer, provider, hours_ago=1)
    nora = provider.client()
    response = nora.post(
        reverse("incidents:incident-severity", args=[incident.pk]),
        {"severity": "S2", "reason": "Throughput only."},
    )
    assert response.status_code == 302
    page = alice_page(buyer, incident)
    assert 'id="severity-accept"' in page and 'id="severity-reject"' in page
    mine = nora.get(reverse("incidents:incident-detail", args=[incident.pk])).content.decode()
    assert 'id="severity-accept"' not in mine
    buyer.client().post(reverse("incidents:incident-severity-answer", args=[incident.pk, "accept"]))
    assert Incident.objects.get(pk=incident.pk).severity == "S2"


def test_a_refused_rejection_keeps_the_reason_typed(buyer, provider):
    """GIVEN a proposal WHEN the buyer's reason is refused (too long) THEN the page says why
    and the reject box still holds what was typed."""
    reservation = live_reservation(buyer, provider)
    incident = _buyer_s1(reservation, buyer, provider, hours_ago=1)
    provider.client().post(
        reverse("incidents:incident-severity", args=[incident.pk]),
        {"severity": "S2", "reason": "Throughput only."},
    )
    typed = "Every rank is stuck on the same all-reduce. " * 50
    url = reverse("incidents:incident-severity-answer", args=[incident.pk, "reject"])
    page = buyer.client().post(url, {"reason": typed}, follow=True).content.decode()
    assert "Too long: at most 2000 characters" in page
    assert f"required>{typed}</textarea>" in page
    assert Incident.objects.get(pk=incident.pk).severity == "S1"


def test_a_refused_severity_proposal_is_shown_open_with_its_reason(buyer, provider):
    """The proposal form sits in a collapsed box: refused, it must come back open, or the
    page looks as if nothing happened."""
    reservation = live_reservation(buyer, provider)
    incident = _buyer_s1(reservation, buyer, provider, hours_ago=1)
    url = reverse("incidents:incident-severity", args=[incident.pk])
    page = provider.client().post(url, {"severity": "S3", "reason": ""}).content.decode()
    assert "<details open><summary>Propose a severity change</summary>" in page
    assert 'id="id_reason_error">This field is required.' in page
    assert '<option value="S3" selected>' in page
    assert Incident.objects.get(pk=incident.pk).severity == "S1"


def test_a_backdated_or_foreign_node_incident_is_refused(buyer, provider):
    reservation = live_reservation(buyer, provider, nodes=NODES)
    alice = _api(buyer.user)
    url = f"/api/v1/reservations/{reservation.pk}/incidents/"
    body = {"severity": "S3", "signal": "slow-job", "nodes": ["gpu-02"],
            "summary": "Node out", "window_start": "2019-01-01T00:00:00Z"}  # fmt: skip
    backdated = alice.post(url, body, format="json")
    assert backdated.status_code == 400
    assert "before the reservation's term began" in backdated.json()["errors"]["window_start"][0]
    inside = (reservation.clock_start + timedelta(hours=1)).isoformat()
    foreign = alice.post(url, {**body, "window_start": inside, "nodes": ["gpu-zz9"]}, format="json")
    assert foreign.status_code == 400
    assert "gpu-zz9 is not a node of this reservation" in foreign.json()["errors"]["nodes"][0]
    future = (timezone.now() + timedelta(hours=2)).isoformat()
    ahead = alice.post(url, {**body, "window_start": future}, format="json")
    assert ahead.status_code == 400 and "window_start" in ahead.json()["errors"]
    ok = alice.post(url, {**body, "window_start": inside}, format="json")
    assert ok.status_code == 201, ok.content
    assert not Incident.objects.filter(nodes=["gpu-zz9"]).exists()


def test_a_reservation_without_a_node_list_takes_any_node(buyer, provider):
    reservation = live_reservation(buyer, provider)
    inside = (reservation.clock_start + timedelta(hours=1)).isoformat()
    made = _api(buyer.user).post(
        f"/api/v1/reservations/{reservation.pk}/incidents/",
        {"severity": "S3", "signal": "slow-job", "nodes": ["gpu-zz9"], "summary": "Node out",
         "window_start": inside},
        format="json",
    )  # fmt: skip
    assert made.status_code == 201, made.content


def test_a_one_sided_incident_moves_nothing_until_acknowledged(buyer, provider):
    reservation = live_reservation(buyer, provider)
    alice, nora = _api(buyer.user), _api(provider.user)
    quiet = _availability(alice, reservation)
    opened = alice.post(
        f"/api/v1/reservations/{reservation.pk}/incidents/",
        {"severity": "S3", "signal": "slow-job", "nodes": ["gpu-01"], "summary": "Node out",
         "window_start": (timezone.now() - timedelta(hours=3)).isoformat()},
        format="json",
    )  # fmt: skip
    assert opened.status_code == 201, opened.content
    incident = Incident.objects.get(pk=opened.json()["id"])
    assert opened.json()["standing"] == "awaiting"
    waiting = _availability(alice, reservation)
    assert waiting["standing"][str(incident.pk)] == "awaiting"
    assert waiting["report"]["months"] == quiet["report"]["months"] or all(
        Decimal(m["down_node_hours"]["value"]) == 0 for m in waiting["report"]["months"]
    )
    # The opener cannot acknowledge its own claim; the other party can.
    assert alice.post(f"/api/v1/incidents/{incident.pk}/acknowledge/").status_code == 403
    acked = nora.post(f"/api/v1/incidents/{incident.pk}/acknowledge/")
    assert acked.status_code == 200 and acked.json()["standing"] == "acknowledged"
    counted = _availability(alice, reservation)
    assert sum(Decimal(m["down_node_hours"]["value"]) for m in counted["report"]["months"]) > 0


def test_an_unanswered_incident_counts_once_its_response_clock_runs_out(buyer, provider):
    reservation = example_reservation(buyer, provider)
    opened = datetime(2026, 1, 10, 8, tzinfo=UTC)
    incident = incident_open_signal(
        reservation=reservation, user=buyer.user, severity="S3", nodes="gpu-03",
        window_start=opened, signal="slow-job", summary="Node out", now=opened,
    )  # fmt: skip
    services.incident_mark(incident=incident, user=provider.user, what="restored",
                           now=opened + timedelta(hours=12))  # fmt: skip
    due = Incident.objects.get(pk=incident.pk).response_due
    early = delivery_for(reservation=reservation, now=due - timedelta(minutes=1))
    late = delivery_for(reservation=reservation, now=due + timedelta(minutes=1))
    assert early.standing[incident.pk] == "awaiting"
    assert late.standing[incident.pk] == "unanswered"
    assert early.report.months[0].down_node_hours.value == 0
    assert late.report.months[0].down_node_hours.value > 0
    # Too late to dispute: it stands.
    with pytest.raises(Exception, match="without a dispute"):
        services.incident_dispute_opening(
            incident=incident, user=provider.user, reason="No.", now=due + timedelta(minutes=1)
        )
    assert date(2026, 1, 10) == incident.opened_at.date()


def test_a_disputed_incident_shows_both_figures(buyer, provider):
    reservation = live_reservation(buyer, provider)
    alice, nora = _api(buyer.user), _api(provider.user)
    opened = alice.post(
        f"/api/v1/reservations/{reservation.pk}/incidents/",
        {"severity": "S1", "signal": "slow-job", "nodes": NODES, "summary": "All ranks hang",
         "window_start": (timezone.now() - timedelta(minutes=1)).isoformat()},
        format="json",
    )  # fmt: skip
    incident_id = opened.json()["id"]
    bare = nora.post(f"/api/v1/incidents/{incident_id}/dispute/", {}, format="json")
    assert bare.status_code == 400 and "reason" in bare.json()["errors"]
    disputed = nora.post(
        f"/api/v1/incidents/{incident_id}/dispute/",
        {"reason": "Our fabric was healthy; the job's own loader hung."},
        format="json",
    )
    assert disputed.status_code == 200, disputed.content
    assert disputed.json()["standing"] == "disputed"
    data = _availability(alice, reservation)
    assert data["standing"][str(incident_id)] == "disputed"
    without = [Decimal(m["down_node_hours"]["value"]) for m in data["report"]["months"]]
    with_it = [Decimal(m["down_node_hours"]["value"]) for m in data["report_if_counted"]["months"]]
    assert sum(without) == 0 and sum(with_it) > 0
    page = buyer.client().get(reverse("burnin:reservation-detail", args=[reservation.pk]))
    html = page.content.decode()
    assert 'id="delivery-disputed"' in html and "the job&#x27;s own loader hung" in html
    assert "Availability without the disputed" in html and "Availability with them" in html
    # Acknowledging settles it: it counts.
    alice_ack = alice.post(f"/api/v1/incidents/{incident_id}/acknowledge/")
    assert alice_ack.status_code == 403
    nora.post(f"/api/v1/incidents/{incident_id}/acknowledge/")
    settled = _availability(alice, reservation)
    assert settled["report_if_counted"] is None
    assert settled["standing"][str(incident_id)] == "acknowledged"
