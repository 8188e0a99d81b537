"""The request's gate: until an invitee's administrator accepts it, the invitee reads only the
title and the gate, on every page, API call and download; the acceptance is on the audit
chain with who, when and the hash of what was accepted."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.services import fixture_from_template
from audit.models import AuditEntry
from audit.selectors import chain_verify
from bids.gate_selectors import DetailsGated
from bids.models import GateAcceptance
from bids.selectors import request_get_for_org
from bids.services import addendum_publish, gate_accept, gate_set
from core.errors import Conflict
from core.lifecycle import MoveRefused
from notices.models import Notice
from orgs.choices import MemberRole
from tests.api.v1.conftest import token_client
from tests.bids.onboarding.helpers import NDA, file_iso27001, gated_request
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def gated(buyer, provider, rival_provider):
    req = gated_request(buyer, provider, rival_provider)
    fixture_from_template(capacity_request=req, user=None, template="rank-sum-allreduce")
    return req


def test_a_gated_invitee_reads_only_the_title_and_the_gate(gated, provider):
    html = unescape(
        provider.client().get(reverse("bids:request-detail", args=[gated.pk])).content.decode()
    )
    assert gated.title in html and NDA in html
    for detail in ("Placement", "Bid deadline", "Start a bid", "Ask a question"):
        assert detail not in html, detail
    with pytest.raises(DetailsGated):
        request_get_for_org(org=provider.org, pk=gated.pk)


@pytest.mark.parametrize(
    "name,method",
    [
        ("acceptance:fixture-detail", "get"),
        ("contracts:terms-detail", "get"),
        ("bids:question-ask", "post"),
        ("bids:bid-start", "post"),
    ],
)
def test_every_details_page_sends_a_gated_invitee_to_the_gate(gated, provider, name, method):
    client = provider.client()
    response = getattr(client, method)(reverse(name, args=[gated.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("bids:request-detail", args=[gated.pk])
    assert not gated.bids.exists() and not gated.questions.exists()


def test_the_fixture_downloads_wait_for_the_gate(gated, provider):
    client = provider.client()
    for name in ("acceptance:fixture-json", "acceptance:fixture-bundle"):
        response = client.get(reverse(name, args=[gated.pk, 1]))
        assert response.status_code == 302, name


@pytest.mark.parametrize(
    "path",
    ["", "fixture/", "terms/", "questionnaire/", "lots/", "addenda/", "questions/"],
)
def test_the_api_answers_409_naming_the_gate(gated, provider, path):
    response = token_client(provider.user).get(f"/api/v1/requests/{gated.pk}/{path}")
    assert response.status_code == 409
    assert "non-disclosure" in response.json()["detail"]


def test_the_api_list_leaves_a_gated_request_out_until_accepted(gated, provider):
    client = token_client(provider.user)
    assert gated.pk not in [r["id"] for r in client.get("/api/v1/requests/").json()["results"]]
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    assert gated.pk in [r["id"] for r in client.get("/api/v1/requests/").json()["results"]]


def test_accepting_opens_the_details_to_that_provider_only(gated, provider, rival_provider):
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    assert request_get_for_org(org=provider.org, pk=gated.pk) == gated
    assert provider.client().get(
        reverse("contracts:terms-detail", args=[gated.pk])
    ).status_code in (
        200,
        404,  # no terms attached: the page's own 404, past the gate
    )
    html = provider.client().get(reverse("bids:request-detail", args=[gated.pk])).content.decode()
    assert "Start a bid" in html and "Placement" in html
    with pytest.raises(DetailsGated):
        request_get_for_org(org=rival_provider.org, pk=gated.pk)


def test_the_acceptance_is_on_the_audit_chain_with_who_and_the_ndas_hash(gated, provider):
    acceptance = gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    entry = AuditEntry.objects.get(action="request.gate_accept")
    assert entry.actor == provider.user and entry.org_id == provider.org.pk
    assert entry.after["nda_sha256"] == gated.details_gate.nda_sha256 == acceptance.nda_sha256
    assert chain_verify().intact


def test_only_an_administrator_accepts(gated, provider):
    engineer = MembershipFactory(organization=provider.org, role=MemberRole.ENGINEER).user
    with pytest.raises(MoveRefused, match="Administrator"):
        gate_accept(capacity_request=gated, provider=provider.org, user=engineer)
    assert not GateAcceptance.objects.exists()


def test_a_second_acceptance_is_refused_by_state(gated, provider):
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    with pytest.raises(Conflict, match="already accepted"):
        gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)


def test_a_required_document_must_be_on_file_and_current(buyer, provider):
    req = gated_request(buyer, provider, documents=["iso27001", "soc2_type2"])
    file_iso27001(provider)
    with pytest.raises(Conflict, match="SOC 2 Type II"):
        gate_accept(capacity_request=req, provider=provider.org, user=provider.user)
    page = provider.client().get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    assert "missing or expired" in page


def test_the_gate_is_fixed_once_published(gated, buyer):
    with pytest.raises(MoveRefused, match="invitees may already have read"):
        gate_set(capacity_request=gated, user=buyer.user, nda_text="Changed", required_documents=[])


def test_an_unknown_document_type_names_the_field(buyer):
    from tests.factories import CapacityRequestFactory

    req = CapacityRequestFactory(buyer=buyer.org, status="draft", published_at=None)
    with pytest.raises(ValidationError) as refused:
        gate_set(capacity_request=req, user=buyer.user, nda_text="", required_documents=["x"])
    assert "required_documents" in refused.value.message_dict


def test_a_gated_invitee_hears_of_no_addendum_until_it_accepts(
    gated, buyer, provider, rival_provider
):
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    addendum_publish(
        capacity_request=gated, user=buyer.user, title="Rails", text="2U rails", confirmed=True
    )
    assert Notice.objects.filter(recipient=provider.user, event="addendum").exists()
    assert not Notice.objects.filter(recipient=rival_provider.user, event="addendum").exists()


def test_the_invitation_notice_of_a_gated_request_tells_no_detail(gated, provider):
    notice = Notice.objects.get(recipient=provider.user, event="invitation")
    assert "non-disclosure" in notice.body and "H200 (" not in notice.body


def test_the_inbox_shows_a_gated_request_by_its_title_only(gated, provider):
    client = provider.client()
    row = client.get(reverse("bids:inbox")).content.decode()
    assert gated.title in row and "terms are to be accepted first" in row
    assert "16 × H200</td>" not in row
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    assert "16 × H200</td>" in client.get(reverse("bids:inbox")).content.decode()


def test_the_organisations_export_holds_no_gated_detail_until_accepted(gated, provider):
    from ops.export_collect import collect

    def exported() -> list[int]:
        return [row["id"] for row in collect(org=provider.org).tables["requests"].rows]

    assert gated.pk not in exported()
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    assert gated.pk in exported()


def test_the_requests_shared_history_waits_for_the_gate_too(gated, provider):
    client = token_client(provider.user)

    def actions() -> list[str]:
        response = client.get(f"/api/v1/audit/?object=request:{gated.pk}")
        if response.status_code == 404:  # nothing of its history to read yet
            return []
        return [row["action"] for row in response.json()["results"]]

    assert "request.publish" not in actions()
    gate_accept(capacity_request=gated, provider=provider.org, user=provider.user)
    assert {"request.publish", "request.gate_accept"} <= set(actions())
