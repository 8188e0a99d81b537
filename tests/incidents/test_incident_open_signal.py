"""Opening an incident from any signal: the provider's alert or drained node, the buyer's slow
job; both told, clocks and checklist frozen from the terms as for a failed run, an audit entry;
bad input named on the field with what was typed kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from acceptance.models import ReservationStatus
from audit.models import AuditEntry
from engine import failures
from incidents import services
from incidents.models import Incident, Signal
from incidents.selectors import repaired_nodes, terms_for
from incidents.services import opening, owner
from notices.models import Notice
from tests.incidents.helpers import term_from

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 4, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _term_from_november(accepted):
    """The term runs from 1 Nov, so the incidents these tests open on 4 Nov lie inside it."""
    term_from(accepted.reservation, datetime(2026, 11, 1, tzinfo=UTC))


def _open(reservation, user, **kw):
    values = {
        "severity": "S1",
        "nodes": "gpu-a02",
        "window_start": START,
        "signal": Signal.ALERT,
        "summary": "Xid 79 on gpu-a02, node drained by the scheduler.",
        **kw,
    }
    return opening.incident_open_signal(reservation=reservation, user=user, **values)


def test_the_provider_opens_from_its_alert_with_clocks_frozen_from_the_terms(
    accepted, buyer, provider, rival_provider
):
    incident = _open(
        accepted.reservation,
        provider.user,
        nodes="gpu-a02, gpu-a01",
        window_end=START + timedelta(hours=1),
    )
    _revision, _snapshot, source = terms_for(accepted.reservation)
    assert incident.signal == "alert" and incident.opened_by_party == "provider"
    assert incident.nodes == ["gpu-a02", "gpu-a01"] and repaired_nodes(incident) == incident.nodes
    assert (incident.window_start, incident.window_end) == (START, START + timedelta(hours=1))
    assert incident.terms_source == source and incident.clocks["S1"]["response_minutes"] == 15
    assert [i["key"] for i in incident.checklist][:2] == ["diagnostics", "nccl_margin_pct"]
    assert incident.gpus == 16  # two nodes × the bid's 8 GPUs
    # The page's "Suggested owner" says why, where no analysis has named a cause yet.
    assert incident.owner == "provider"
    assert (
        incident.owner_reasons[0] == "The provider's own signal (provider alert) on nodes it runs."
    )
    assert "attach a failed run's" in incident.owner_reasons[1]
    told = set(Notice.objects.filter(subject__contains=f"#{incident.pk}").values_list(
        "recipient__username", flat=True))  # fmt: skip
    assert buyer.user.username in told and provider.user.username in told
    assert rival_provider.user.username not in told
    entry = AuditEntry.objects.get(obj_key=f"incident:{incident.pk}", action="incident.open")
    assert entry.after["nodes"] == ["gpu-a02", "gpu-a01"] and entry.after["signal"] == "alert"


def test_the_buyer_opens_from_a_slow_job_but_not_from_the_providers_alert(accepted, buyer):
    incident = _open(accepted.reservation, buyer.user, severity="S2", signal=Signal.SLOW_JOB)
    assert incident.opened_by_party == "buyer" and incident.severity == "S2"
    assert incident.owner == "undetermined"
    assert "whether the job or the cluster is at fault" in incident.owner_reasons[0]
    with pytest.raises(ValidationError) as refused:
        _open(accepted.reservation, buyer.user, signal=Signal.ALERT)
    assert "The buyer opens from: slow job (buyer), other." in str(refused.value)


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"nodes": " , "}, "nodes", "Name at least one affected node"),
        ({"nodes": "gpu-a02 gpu-A02"}, "nodes", "gpu-A02 is named twice"),
        ({"nodes": "gpu a02/../x"}, "nodes", "“a02/../x” is not a node label"),
        ({"window_start": None}, "window_start", "Give the UTC time"),
        ({"window_end": START - timedelta(minutes=1)}, "window_end", "must come after the start"),
        ({"summary": "  "}, "summary", "Say what was seen"),
    ],
)
def test_bad_input_names_its_field(accepted, provider, change, field, words):
    with pytest.raises(ValidationError) as refused:
        _open(accepted.reservation, provider.user, **change)
    assert words in " ".join(refused.value.message_dict[field])
    assert not Incident.objects.exists()


def test_a_start_in_the_future_is_refused(accepted, provider):
    later = timezone.now() + timedelta(hours=2)
    with pytest.raises(ValidationError) as refused:
        _open(accepted.reservation, provider.user, window_start=later)
    assert "is in the future" in refused.value.message_dict["window_start"][0]


def test_only_an_accepted_reservation_takes_an_incident(accepted, provider):
    accepted.reservation.status = ReservationStatus.PENDING
    accepted.reservation.save(update_fields=["status"])
    with pytest.raises(ValidationError, match="belongs to an accepted reservation"):
        _open(accepted.reservation, provider.user)


def test_the_page_of_a_reservation_not_accepted_says_why_and_offers_no_form(accepted, provider):
    accepted.reservation.status = ReservationStatus.PENDING
    accepted.reservation.save(update_fields=["status"])
    url = reverse("incidents:incident-new", args=[accepted.reservation.pk])
    html = provider.client().get(url).content.decode()
    assert 'id="open-refused"' in html and "cannot be given an incident" in html
    assert 'id="signal-open"' not in html and 'id="steps-open"' not in html


def test_the_page_opens_it_and_a_bad_form_keeps_what_was_typed(accepted, provider):
    client = provider.client()
    url = reverse("incidents:incident-new", args=[accepted.reservation.pk])
    form = {
        "severity": "S3",
        "signal": "drained-node",
        "nodes": "gpu-a02, gpu-a02",
        "window_start": "2026-11-04 10:00",
        "window_end": "",
        "summary": "Drained for a failing DIMM",
    }
    page = client.post(url, form)
    html = page.content.decode()
    assert page.status_code == 200 and "gpu-a02 is named twice." in html
    assert 'value="gpu-a02, gpu-a02"' in html and "Drained for a failing DIMM" in html
    assert not Incident.objects.exists()
    page = client.post(url, {**form, "nodes": "gpu-a02"})
    incident = Incident.objects.get()
    assert page.status_code == 302 and page["Location"] == reverse(
        "incidents:incident-detail", args=[incident.pk]
    )
    assert (incident.severity, incident.signal, incident.nodes) == (
        "S3",
        "drained-node",
        ["gpu-a02"],
    )
    detail = client.get(page["Location"]).content.decode()
    assert "Drained node by the provider" in detail and "2026-11-04 10:00:00 → ongoing" in detail
    panel = client.get(reverse("burnin:reservation-detail", args=[accepted.reservation.pk]))
    assert f"#{incident.pk} · S3" in panel.content.decode()


def test_a_failed_run_attaches_to_an_open_incident(analysed, accepted, buyer, provider):
    incident = _open(accepted.reservation, provider.user)
    page = buyer.client().get(reverse("incidents:failed-run-detail", args=[analysed.pk]))
    assert f"Attach to incident #{incident.pk}" in page.content.decode()
    url = reverse("incidents:failed-run-attach", args=[analysed.pk])
    response = buyer.client().post(url, {"incident": incident.pk})
    assert response["Location"] == reverse("incidents:incident-detail", args=[incident.pk])
    incident.refresh_from_db()
    assert incident.failed_run_id == analysed.pk and incident.nodes == ["gpu-a02"]  # its own
    assert not any("No analysis yet" in reason for reason in incident.owner_reasons)
    found = failures.contract_owner(analysed.analysis.get("suggested_owner"))
    assert found != "undetermined"  # the fixture's analysis settles an owner: it takes over
    assert incident.suggested_owner == found
    reasons = list(analysed.analysis["owner_reasons"])
    assert incident.owner_reasons[: len(reasons)] == reasons
    assert any("on nodes it runs" in r for r in incident.owner_reasons)  # the signal's, kept
    entry = AuditEntry.objects.get(obj_key=f"incident:{incident.pk}", action="incident.attach")
    assert entry.before["suggested_owner"] == "provider"
    assert entry.after["suggested_owner"] == found
    # Attached once: the run now has its incident, and a second incident cannot take it.
    other = _open(accepted.reservation, provider.user, nodes="gpu-a01")
    with pytest.raises(ValidationError, match="already attached"):
        opening.incident_attach_failed_run(incident=other, failed_run=analysed, user=buyer.user)


def test_attaching_fills_the_nodes_from_the_analysis_when_the_incident_names_none(
    analysed, accepted, provider
):
    incident = _open(accepted.reservation, provider.user)
    Incident.objects.filter(pk=incident.pk).update(nodes=[])  # e.g. opened by the API, bare
    incident.refresh_from_db()
    opening.incident_attach_failed_run(incident=incident, failed_run=analysed, user=provider.user)
    incident.refresh_from_db()
    node = analysed.analysis["initiating_node"]
    assert node and incident.nodes == [node] and repaired_nodes(incident) == [node]


def test_opening_from_a_failed_run_still_works_and_names_its_door(analysed, buyer):
    incident = services.incident_open(failed_run=analysed, user=buyer.user)
    assert incident.signal == Signal.FAILED_RUN and incident.opened_by_party == "buyer"
    assert repaired_nodes(incident) == [analysed.analysis["initiating_node"]]


def test_the_form_offers_each_party_its_own_signals_with_one_chosen(accepted, buyer, provider):
    """GIVEN the buyer's form THEN 'Provider alert', which the buyer may not choose, is neither
    offered nor chosen: the form's own default goes through on the first submit."""
    url = reverse("incidents:incident-new", args=[accepted.reservation.pk])
    mine = buyer.client().get(url).context["signal_form"]
    assert [value for value, _ in mine.fields["signal"].choices] == ["slow-job", "other"]
    assert mine["signal"].value() == "slow-job"
    html = buyer.client().get(url).content.decode()
    assert "Provider alert" not in html.split('name="signal"', 1)[1].split("</select>", 1)[0]
    theirs = provider.client().get(url).context["signal_form"]
    assert theirs["signal"].value() == "alert"
    page = buyer.client().post(
        url,
        {
            "severity": "S2",
            "signal": mine["signal"].value(),
            "nodes": "gpu-a02",
            "window_start": "2026-11-04 10:00",
            "summary": "Step time doubled on every rank",
        },
    )
    assert page.status_code == 302
    assert Incident.objects.get().signal == "slow-job"


def test_an_analysis_that_settles_no_owner_keeps_the_signals_guess():
    reasons = ["The provider's own signal (drained node) on nodes it runs.", owner.NO_ANALYSIS]
    unsettled = {"suggested_owner": "undetermined", "owner_reasons": ["Too few ranks logged."]}
    assert owner.owner_with_analysis(owner="provider", reasons=reasons, analysis=unsettled) == (
        "provider",
        reasons[:1],
    )
    settled = {"suggested_owner": "customer", "owner_reasons": ["Rank 3 raised in user code."]}
    assert owner.owner_with_analysis(owner="provider", reasons=reasons, analysis=settled) == (
        "customer",
        ["Rank 3 raised in user code.", reasons[0]],
    )
