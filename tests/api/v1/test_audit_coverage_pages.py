"""The page half of the audit coverage, called: each page write below is posted through the
browser's form, as the party that may make it, on the API tests' world, and must succeed and
leave at least one audit entry (or, for the writes that change no shared state, none).

The page writes not called here yet are still accounted for by test_audit_coverage: each names
the API operation whose entry is checked there, or the test or service that records it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Evidence, EvidenceState
from annexes.models import AnnexJob, AnnexJobStatus
from audit.models import AuditEntry
from audit.selectors import chain_verify
from incidents.models import FailedRun, FailedRunState
from ops.models import ExportJob, ExportStatus
from orgs.choices import OrgKind
from tests.acceptance.burnin.helpers import GOOD_SET, file_upload
from tests.api.v1.conftest import ApiWorld
from tests.api.v1.test_audit_coverage import (
    PAGE_ELSEWHERE,
    PAGE_NO_STATE,
    PAGE_WRITES,
)
from tests.factories import OrganizationFactory
from tests.incidents.helpers import recovery_file

pytestmark = pytest.mark.django_db

Args = Callable[[ApiWorld], list[Any]]
Data = Callable[[ApiWorld], dict[str, Any]]


def _none(w: ApiWorld) -> list[Any]:
    return []


def _token(w: ApiWorld) -> list[Any]:
    from api.services import token_create

    return [token_create(user=_provider_user(w), name="old")[0].pk]


def _provider_user(w: ApiWorld) -> Any:
    return w.bid.provider.memberships.order_by("pk").first().user


def _failed_annex_job(w: ApiWorld) -> list[Any]:
    AnnexJob.objects.filter(pk=w.annex_job.pk).update(status=AnnexJobStatus.FAILED, error="lost")
    return [w.annex_job.pk]


def _failed_run_in_error(w: ApiWorld) -> list[Any]:
    FailedRun.objects.filter(pk=w.failed_run.pk).update(state=FailedRunState.ERROR, error="lost")
    return [w.failed_run.pk]


def _evidence_in_error(w: ApiWorld) -> list[Any]:
    Evidence.objects.filter(pk=w.evidence.pk).update(state=EvidenceState.ERROR, error="lost")
    return [w.evidence.pk]


def _failed_export(w: ApiWorld) -> list[Any]:
    org = w.bid.provider
    job = ExportJob.objects.create(organization=org, created_by=_provider_user(w))
    ExportJob.objects.filter(pk=job.pk).update(status=ExportStatus.FAILED, error="lost")
    return [job.pk]


def _evidence_file(w: ApiWorld) -> dict[str, Any]:
    name, _ = GOOD_SET[2]  # not the file the world already holds
    return {"file": file_upload(name), "node": ""}


def _third_provider(w: ApiWorld) -> dict[str, Any]:
    return {"providers": [OrganizationFactory(kind=OrgKind.PROVIDER, slug="third").pk]}


def _recovery_run(w: ApiWorld) -> dict[str, Any]:
    return {
        "kind": "nccl-tests",
        "file": recovery_file("nccl_all_reduce_recovered.txt"),
        "node": "",
    }


def _buyer_endpoint(w: ApiWorld) -> Any:
    from webhooks.services import endpoint_create

    buyer = w.request.buyer
    admin = buyer.memberships.filter(role="admin").order_by("pk").first().user
    return endpoint_create(
        organization=buyer, user=admin, url="https://hooks.example.com/cb", events=["bids_opened"]
    )[0]


def _endpoint(w: ApiWorld) -> list[Any]:
    return [_buyer_endpoint(w).public_id]


def _failed_delivery(w: ApiWorld) -> list[Any]:
    from notices.services import notify_members
    from webhooks.models import Delivery

    endpoint = _buyer_endpoint(w)
    notify_members(
        event="bids_opened",
        organization=w.request.buyer,
        subject="s",
        body="b",
        path="/",
        key="w:1",
    )
    delivery = Delivery.objects.get(endpoint=endpoint)
    Delivery.objects.filter(pk=delivery.pk).update(state="failed")
    return [delivery.public_id]


WEBHOOK_FORM = {"url": "https://hooks.example.com/x", "payload_format": "generic",
                "events": ["incident_opened"]}  # fmt: skip


# Route -> (role, path arguments, form data).
PAGE_CALLS: dict[str, tuple[str, Args, Data]] = {
    "bids:question-ask": ("provider", lambda w: [w.request.pk], lambda w: {"text": "Rails?"}),
    "burnin:run-create": ("buyer", lambda w: [w.reservation.pk], lambda w: {"label": "Again"}),
    "burnin:run-recheck": ("buyer", lambda w: [w.run.pk], lambda w: {}),
    "burnin:evidence-withdraw": ("provider", lambda w: [w.evidence.pk], lambda w: {}),
    "annexes:generate": ("buyer", lambda w: [w.awarded.pk], lambda w: {"kind": "contract"}),
    "ops:export": ("provider", _none, lambda w: {}),
    # Shows the new token's secret once, on the page itself (200).
    "api:token-list": ("provider", _none, lambda w: {"name": "burn-in upload"}),
    "api:token-revoke": ("provider", _token, lambda w: {}),
    "orgs:members": (
        "provider",
        _none,
        lambda w: {"email": "new.person@example.com", "role": "engineer"},
    ),
    "bids:bid-withdraw": ("provider", lambda w: [w.bid.pk], lambda w: {"confirm": "on"}),
    "bids:request-addendum": (
        "buyer",
        lambda w: [w.request.pk],
        lambda w: {"title": "Rails", "text": "Rails are 2U.", "confirm": "on"},
    ),
    "burnin:run-upload": ("provider", lambda w: [w.run.pk], _evidence_file),
    "burnin:evidence-retry": ("provider", _evidence_in_error, lambda w: {}),
    "annexes:retry": ("buyer", _failed_annex_job, lambda w: {}),
    "incidents:failed-run-retry": ("provider", _failed_run_in_error, lambda w: {}),
    "ops:export-retry": ("provider", _failed_export, lambda w: {}),
    "bids:request-invite": ("buyer", lambda w: [w.request.pk], _third_provider),
    "incidents:incident-evidence": ("provider", lambda w: [w.incident.pk], _recovery_run),
    # Changing no shared state: these must succeed and record nothing.
    "evaluation:request-compare-rescore": ("buyer", lambda w: [w.request.pk], lambda w: {}),
    "notices:read-all": ("buyer", _none, lambda w: {}),
    "notices:preferences": ("buyer", _none, lambda w: {}),  # every e-mail and in-app off
    "orgs:switch-org": ("buyer", _none, lambda w: {"organization": w.request.buyer.slug}),
    # The new secret is shown on the page itself (200).
    "webhooks:list": ("buyer", _none, lambda w: WEBHOOK_FORM),
    "webhooks:rotate": ("buyer", _endpoint, lambda w: {}),
    "webhooks:detail": ("buyer", _endpoint, lambda w: WEBHOOK_FORM),
    "webhooks:delete": ("buyer", _endpoint, lambda w: {}),
    "webhooks:redeliver": ("buyer", _failed_delivery, lambda w: {}),
}

SHOWN_IN_PLACE = {"api:token-list", "webhooks:list", "webhooks:rotate"}
ALL_PAGE_WRITES = set(PAGE_WRITES) | set(PAGE_ELSEWHERE) | set(PAGE_NO_STATE)


def test_the_called_and_the_not_yet_called_are_the_page_writes() -> None:
    assert set(PAGE_CALLS) <= ALL_PAGE_WRITES, set(PAGE_CALLS) - ALL_PAGE_WRITES


@pytest.mark.parametrize("name", sorted(PAGE_CALLS))
def test_a_page_write_succeeds_and_leaves_an_audit_entry(name, api_world, request):
    role, args, data = PAGE_CALLS[name]
    client = request.getfixturevalue(role).client()
    url = reverse(name, args=args(api_world))
    before = AuditEntry.objects.count()
    response = client.post(url, data(api_world))
    expected = 200 if name in SHOWN_IN_PLACE else 302
    assert response.status_code == expected, (name, response.status_code, _errors(response))
    made = AuditEntry.objects.order_by("seq")[before:]
    if name in PAGE_NO_STATE:
        assert not made, f"POST {url} is listed as changing nothing, yet recorded {list(made)}"
    else:
        assert made, f"POST {url} as {role} succeeded and left no audit entry"
    assert chain_verify().intact


def _errors(response: Any) -> str:
    text = response.content.decode(errors="replace")
    start = text.find("error")
    return text[max(start - 200, 0) : start + 400] if start >= 0 else text[:300]
