"""Who reaches the export routes: the acting organisation's administrators, for its own exports
only; another organisation's export id is a 404, page, download, retry and API alike. /metrics
answers no organisation: it is guarded by its token or the loopback bind (test_metrics)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from ops.models import ExportJob, ExportStatus
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, client_for

EVERY_MEMBER = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}
API_EVERY_MEMBER = {**dict.fromkeys(ROLES, OK), "anonymous": 401}


def _helix(allowed: int, anonymous: Any = LOGIN) -> dict[str, Any]:
    return {
        **dict.fromkeys(ROLES, HIDDEN),
        "buyer": allowed,
        "buyer_colleague": allowed,
        "anonymous": anonymous,
    }


# name -> (method, which Helix export, expected per role); every role here is an administrator.
ROUTES = {
    "ops:export": ("get", None, EVERY_MEMBER),
    "ops:export-download": ("get", "done", _helix(OK)),
    "ops:export-retry": ("post", "failed", _helix(REDIRECT)),
    "ops:api-export-list": ("get", None, API_EVERY_MEMBER),
    "ops:api-export-detail": ("get", "done", _helix(OK, 401)),
    "ops:api-export-file": ("get", "done", _helix(OK, 401)),
    "ops:api-export-retry": ("post", "failed", _helix(202, 401)),
    "ops:metrics": ("get", None, {**dict.fromkeys(ROLES, OK)}),
}
tenancy_registry.register(*ROUTES)


def _job(buyer: Any, which: str) -> ExportJob:
    job = ExportJob.objects.create(organization=buyer.org, created_by=buyer.user)
    if which == "done":
        job.file.save("helix-export.zip", ContentFile(b"PK\x05\x06" + bytes(18)), save=False)
        job.status = ExportStatus.DONE
    else:
        job.status, job.error = ExportStatus.FAILED, "The worker was lost."
    job.save()
    return job


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_export_route_gives_each_role_what_it_may_see(
    name: str, role: str, buyer: Any, buyer_colleague: Any, request: Any
) -> None:
    method, which, expected = ROUTES[name]
    args = [_job(buyer, which).pk] if which else []
    response = getattr(client_for(role, request), method)(reverse(name, args=args))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"
