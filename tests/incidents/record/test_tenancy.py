"""Who reaches the incident record's routes: the buyer's members and the awarded provider; the
rival provider and outsiders get 404, the ticket downloads (text and PDF) included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import ChangeLogEntry, RepairEstimate
from incidents.services import record
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.incidents.helpers import scenario_upload

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})
PARTIES_FORM = PARTIES_GET  # an empty form comes back with its errors

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "incidents:change-propose": ("post", lambda w: [w.incident.pk], PARTIES_FORM),
    "incidents:change-decide": ("post", lambda w: [w.incident.pk, w.change.pk], PARTIES_POST),
    "incidents:change-apply": ("post", lambda w: [w.incident.pk, w.change.pk], PARTIES_POST),
    # An empty estimate: the page again with its errors (the buyer's is refused and flashed).
    "incidents:estimate-post": (
        "post",
        lambda w: [w.incident.pk],
        _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": OK}),
    ),
    "incidents:ticket-txt": ("get", lambda w: [w.incident.pk], PARTIES_GET),
    "annexes:incident-ticket-pdf": ("get", lambda w: [w.incident.pk], PARTIES_GET),
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
    change = record.change_propose(
        incident=incident, user=provider.user, kind="config", what="NCCL_IB_TIMEOUT=22"
    )
    accepted.incident, accepted.change = incident, change
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
def test_non_parties_cannot_write_the_record(role, tenancy_world, request):
    client = client_for(role, request)
    pk, change = tenancy_world.incident.pk, tenancy_world.change.pk
    propose = client.post(
        reverse("incidents:change-propose", args=[pk]), {"kind": "config", "what": "x"}
    )
    approve = client.post(
        reverse("incidents:change-decide", args=[pk, change]), {"decision": "approve"}
    )
    estimate = client.post(
        reverse("incidents:estimate-post", args=[pk]),
        {"cause_class": "gpu", "eta": "2099-01-01 00:00", "confidence": "low"},
    )
    assert {propose.status_code, approve.status_code, estimate.status_code} == {HIDDEN}
    assert ChangeLogEntry.objects.get().status == "proposed"
    assert ChangeLogEntry.objects.count() == 1 and not RepairEstimate.objects.exists()
