"""Who reaches the failed-run and incident routes: the buyer's members and the awarded provider;
the rival provider and outsiders get 404 everywhere, file downloads included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import IncidentEvidence
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.incidents.helpers import recovery_file, scenario_upload

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})
PARTIES_FORM = PARTIES_GET  # an empty form comes back with its errors

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "incidents:failed-run-upload": ("post", lambda w: [w.reservation.pk], PARTIES_FORM),
    "incidents:failed-run-detail": ("get", lambda w: [w.run.pk], PARTIES_GET),
    "incidents:failed-run-status": ("get", lambda w: [w.run.pk], PARTIES_GET),
    "incidents:failed-run-retry": ("post", lambda w: [w.run.pk], PARTIES_POST),
    "incidents:failed-run-file": ("get", lambda w: [w.run.files.get().pk], PARTIES_GET),
    "incidents:incident-open": ("post", lambda w: [w.run.pk], PARTIES_FORM),
    "incidents:incident-detail": ("get", lambda w: [w.incident.pk], PARTIES_GET),
    "incidents:incident-severity": ("post", lambda w: [w.incident.pk], PARTIES_FORM),
    "incidents:incident-mark": ("post", lambda w: [w.incident.pk, "responded"], PARTIES_POST),
    "incidents:incident-evidence": ("post", lambda w: [w.incident.pk], PARTIES_FORM),
    "incidents:incident-signoff": ("post", lambda w: [w.incident.pk], PARTIES_POST),
    "incidents:incident-dispute": ("post", lambda w: [w.incident.pk], PARTIES_POST),
    "incidents:incident-times": ("post", lambda w: [w.incident.pk], PARTIES_POST),
    "incidents:incident-close": ("post", lambda w: [w.incident.pk], PARTIES_POST),
    "incidents:incident-evidence-download": ("get", lambda w: [w.evidence.pk], PARTIES_GET),
    "incidents:incident-new": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "incidents:incident-from-steps": ("post", lambda w: [w.reservation.pk], PARTIES_FORM),
    "incidents:failed-run-attach": ("post", lambda w: [w.run.pk], PARTIES_POST),
    "incidents:incident-fewer-nodes": ("post", lambda w: [w.incident.pk], PARTIES_FORM),
    # Nothing proposed, or not theirs to answer: the parties are sent back with the reason.
    "incidents:incident-severity-answer": (
        "post",
        lambda w: [w.incident.pk, "accept"],
        PARTIES_POST,
    ),
    "incidents:incident-answer": ("post", lambda w: [w.incident.pk, "acknowledge"], PARTIES_POST),
    # The S2 baseline (tests/incidents/test_baseline_agreement.py): nothing proposed yet, so an
    # answer sends the parties back with the reason; an empty proposal comes back with errors.
    "incidents:baseline": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "incidents:baseline-answer": ("post", lambda w: [w.reservation.pk, "accept"], PARTIES_POST),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def tenancy_world(accepted, buyer, provider, django_capture_on_commit_callbacks) -> Any:
    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
        )
    run.refresh_from_db()
    incident = services.incident_open(failed_run=run, user=buyer.user)
    evidence = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests",
        upload=recovery_file("nccl_all_reduce_recovered.txt"),
    )  # fmt: skip
    accepted.run, accepted.incident, accepted.evidence = run, incident, evidence
    return accepted


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, tenancy_world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(tenancy_world)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_add_evidence_or_see_the_panel(role, tenancy_world, request):
    client = client_for(role, request)
    url = reverse("incidents:incident-evidence", args=[tenancy_world.incident.pk])
    response = client.post(
        url, {"kind": "nccl-tests", "file": recovery_file("nccl_all_reduce_recovered.txt")}
    )
    assert response.status_code == HIDDEN
    assert IncidentEvidence.objects.count() == 1


def test_the_reservation_page_lists_failed_runs_for_the_parties(tenancy_world, request):
    url = reverse("burnin:reservation-detail", args=[tenancy_world.reservation.pk])
    link = reverse("incidents:failed-run-detail", args=[tenancy_world.run.pk])
    for role in ("buyer", "provider"):
        html = client_for(role, request).get(url).content.decode()
        assert link in html and "Failed runs and incidents" in html


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_open_an_incident_from_a_signal(role, tenancy_world, request):
    from incidents.models import Incident

    url = reverse("incidents:incident-new", args=[tenancy_world.reservation.pk])
    response = client_for(role, request).post(
        url,
        {"severity": "S1", "signal": "alert", "nodes": "gpu-a02",
         "window_start": "2026-11-04 10:00", "summary": "Not mine to say"},
    )  # fmt: skip
    assert response.status_code == HIDDEN
    assert Incident.objects.count() == 1
