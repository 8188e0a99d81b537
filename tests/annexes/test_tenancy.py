"""Annex routes: the buyer sees both documents, the awarded provider only the contract annex."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse

from annexes.models import Annex, AnnexJob, AnnexKind
from annexes.services import annex_render_job
from tests import tenancy_registry
from tests.annexes.signing_helpers import placeholder_signature

ROLES = ["buyer", "buyer_colleague", "provider", "rival_provider", "outsider", "anonymous"]
LOGIN = "login"


def _expect(**allowed: Any) -> dict[str, Any]:
    expected: dict[str, Any] = dict.fromkeys(ROLES, 404)
    expected["anonymous"] = LOGIN
    expected.update(allowed)
    return expected


BOTH_PARTIES = _expect(buyer=200, buyer_colleague=200, provider=200)
BUYER_ONLY = _expect(buyer=200, buyer_colleague=200)

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any], dict[str, Any]]] = {
    "annexes:list": ("get", lambda s: [s.request.pk], BOTH_PARTIES, {}),
    "annexes:status": ("get", lambda s: [s.request.pk], BOTH_PARTIES, {}),
    "annexes:generate": (
        "post",
        lambda s: [s.request.pk],
        _expect(buyer=302, buyer_colleague=302, provider=302),
        {"kind": "contract"},
    ),
    "annexes:diff": (
        "get",
        lambda s: [s.request.pk],
        _expect(buyer=302, buyer_colleague=302, provider=302),
        {},
    ),
    "annexes:download": ("get", lambda s: [s.contract.pk], BOTH_PARTIES, {}),
    "annexes:preview": ("get", lambda s: [s.real.pk], BOTH_PARTIES, {}),
    # Signing: the two parties only. The buyer has no signing identity yet, so the sign button
    # redirects with the reason; the signed copy exists once someone signed.
    "annexes:signatures": ("get", lambda s: [s.contract.pk], BOTH_PARTIES, {}),
    "annexes:sign": (
        "post",
        lambda s: [s.contract.pk],
        _expect(buyer=302, buyer_colleague=302, provider=302),
        {"confirm": "on"},
    ),
    "annexes:signed-download": ("get", lambda s: [s.signed().pk], BOTH_PARTIES, {}),
    "annexes:retry": (
        "post",
        lambda s: [s.job.pk],
        _expect(buyer=302, buyer_colleague=302, provider=302),
        {},
    ),
}
tenancy_registry.register(*ROUTES)


def issued(request: Any, kind: str) -> Annex:
    """An issued version without the render (tenancy is about who reaches it, not its pages)."""
    annex = Annex(
        request=request,
        kind=kind,
        version=1,
        snapshot={"kind": kind},
        snapshot_sha256="0" * 64,
        pdf_sha256="0" * 64,
        pdf_bytes=9,
        pages=1,
    )
    annex.pdf.save(annex.filename, ContentFile(b"%PDF-1.4\n"), save=False)
    annex.save()
    return annex


class Scene:
    def __init__(self, awarded: Any) -> None:
        self.request = awarded.request
        self.contract = issued(self.request, AnnexKind.CONTRACT)
        self.job = AnnexJob.objects.create(
            request=self.request, kind=AnnexKind.CONTRACT, status="failed"
        )

    def signed(self) -> Annex:
        return placeholder_signature(self.contract)


@pytest.fixture
def scene(awarded: Any) -> Scene:
    return Scene(awarded)


@pytest.fixture
def real_scene(scene: Scene) -> Scene:
    # The preview renders the stored snapshot, so it needs a real one.
    job = AnnexJob.objects.create(request=scene.request, kind=AnnexKind.CONTRACT)
    scene.real = annex_render_job(job_id=job.pk).annex
    return scene


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_annex_route_per_role(name, role, request):
    scene = request.getfixturevalue("real_scene" if name == "annexes:preview" else "scene")
    method, args, expected, data = ROUTES[name]
    client = Client() if role == "anonymous" else request.getfixturevalue(role).client()
    response = getattr(client, method)(reverse(name, args=args(scene)), data)
    if expected[role] == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == expected[role], f"{name} as {role}"


def test_the_buyer_only_summary_is_hidden_from_the_awarded_provider(scene, buyer, provider):
    from evaluation.services import request_score

    request_score(capacity_request=scene.request)
    job = AnnexJob.objects.create(request=scene.request, kind=AnnexKind.COMPARISON)
    summary = annex_render_job(job_id=job.pk).annex
    assert summary.kind == AnnexKind.COMPARISON
    provider_client = provider.client()
    for name in ("annexes:download", "annexes:preview"):
        assert provider_client.get(reverse(name, args=[summary.pk])).status_code == 404
        assert buyer.client().get(reverse(name, args=[summary.pk])).status_code == 200
    listing = provider_client.get(reverse("annexes:list", args=[scene.request.pk])).content
    assert b"comparison summary" not in listing.lower()
    response = provider_client.post(
        reverse("annexes:generate", args=[scene.request.pk]), {"kind": "comparison"}
    )
    assert response.status_code == 404
