"""Every operation in the OpenAPI schema, called by every named role: who gets what.

The table is keyed by operationId. An operation the schema has and the table lacks fails the
suite, so a new endpoint cannot ship without saying who may use it. Objects are real: an open
request with two bids, fixture, terms and questionnaire, and an awarded one with a reservation,
a burn-in run and an evidence file (see conftest.api_world).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from tests import tenancy_registry
from tests.acceptance.burnin.helpers import DATA
from tests.api.v1.conftest import ROLES
from tests.api.v1.signing_builders import signed_annex
from tests.api.v1.tenancy_builders import (
    ALL_ORGS,
    ANY_BUYER,
    BIDDERS,
    BUYER,
    CONFLICT,
    CREATED,
    INVITED,
    NO_CONTENT,
    OK,
    OWNER_AND_BUYER,
    REFUSED,
    Body,
    Multipart,
    Params,
    addendum,
    approval,
    export_job,
    fresh_invite_body,
    lot,
    member_invitation,
    none,
    only,
    own_lot,
    pilot,
    pilot_evidence,
    pilot_invite_body,
    pilot_request,
    providers_notice,
    question,
    reference_file,
    req,
    scenario,
    webhook,
    webhook_body,
    webhook_delivery,
)
from tests.api.v1.tenancy_delivery import BID_AND_DELIVERY_OPERATIONS
from tests.api.v1.tenancy_outcomes import OUTCOME_OPERATIONS
from tests.api.v1.test_api_team import COST_ONLY

# operationId -> (path parameters, JSON body (None: no body), expected status per role)
OPERATIONS: dict[str, tuple[Params, Body, dict[str, int]]] = {
    "me_retrieve": (none, None, ALL_ORGS),
    # The bid's history: its provider's and its buyer's; a party that reads nothing of it is
    # answered 404, as for a bid that does not exist (tests/audit/test_tenancy.py).
    "audit_list": (none, lambda w: {"object": f"bid:{w.bid.pk}"}, OWNER_AND_BUYER),
    # Each organisation's own members (tests/api/v1/test_api_members.py).
    "members_list": (none, None, ALL_ORGS),
    # Invitations (tests/api/v1/test_api_member_invitations.py): each administrator lists and
    # sends its own organisation's; only the buyer's withdraws the buyer's; only the invited
    # person (the provider's user here) lists, accepts or declines an invitation to them.
    "members_invitations_list": (none, None, ALL_ORGS),
    "members_invitations_create": (
        none,
        fresh_invite_body,
        only(buyer=CREATED, provider=CREATED, rival_provider=CREATED, outsider=CREATED),
    ),
    "members_invitations_destroy": (member_invitation, None, only(buyer=NO_CONTENT)),
    "me_invitations_list": (none, None, ALL_ORGS),
    "me_invitations_accept_create": (member_invitation, None, only(provider=OK)),
    "me_invitations_decline_create": (member_invitation, None, only(provider=NO_CONTENT)),
    # Webhooks (tests/api/v1/test_api_webhooks.py): each administrator lists and adds its own
    # organisation's; the buyer's endpoint and delivery are its administrators' alone.
    "webhooks_list": (none, None, ALL_ORGS),
    "webhooks_create": (
        none,
        webhook_body,
        only(buyer=CREATED, provider=CREATED, rival_provider=CREATED, outsider=CREATED),
    ),
    "webhooks_retrieve": (webhook, None, BUYER),
    "webhooks_partial_update": (webhook, lambda w: {"description": "Renamed"}, BUYER),
    "webhooks_destroy": (webhook, None, only(buyer=NO_CONTENT)),
    "webhooks_rotate_create": (webhook, None, BUYER),
    "webhooks_deliveries_list": (webhook, None, BUYER),
    "webhook_deliveries_redeliver_create": (webhook_delivery, None, only(buyer=202)),
    # Each organisation's administrators export its own data (tests/ops/test_export*.py);
    # every role here is an administrator of the organisation it acts for.
    "organization_export_list": (none, None, ALL_ORGS),
    "organization_export_create": (
        none,
        None,
        only(buyer=202, provider=202, rival_provider=202, outsider=202),
    ),
    "organization_export_retrieve": (export_job("done"), None, BUYER),
    "organization_export_file_retrieve": (export_job("done"), None, BUYER),
    "organization_export_retry_create": (export_job("failed"), None, only(buyer=202)),
    "providers_list": (none, None, ANY_BUYER),
    # The awarded provider's card: itself and its buyer (tests/scorecards/test_scorecard.py).
    "providers_scorecard_retrieve": (
        lambda w: {"id": w.bid.provider.pk},
        None,
        OWNER_AND_BUYER,
    ),
    # Everyone lists their own notices; a notice is its recipient's alone, colleagues included.
    "notices_list": (none, None, ALL_ORGS),
    "notices_read_create": (providers_notice, None, only(provider=OK)),
    "requests_list": (none, None, ALL_ORGS),
    # A buyer organisation may create (empty body: 400 names the fields); providers may not.
    "requests_create": (none, lambda w: {}, only(buyer=REFUSED, outsider=REFUSED)),
    "requests_retrieve": (req, None, INVITED),
    "requests_partial_update": (req, lambda w: {"title": "Renamed"}, BUYER),
    "requests_publish_create": (req, None, only(buyer=CONFLICT)),  # already open: 409
    # Close and cancel need `confirm: true` (without it: 400, see test_api_early_close.py).
    "requests_close_create": (req, lambda w: {"confirm": True}, BUYER),
    "requests_cancel_create": (req, lambda w: {"confirm": True}, BUYER),
    # The request is open: only a closed one reopens (409 for its buyer).
    "requests_reopen_create": (
        req,
        lambda w: {"confirm": True, "bid_deadline": w.request.bid_deadline.isoformat()},
        only(buyer=CONFLICT),
    ),
    # The request is open: the final round follows a close (409 for its buyer).
    "requests_final_round_create": (
        req,
        lambda w: {
            "confirm": True,
            "shortlist": [w.bid.pk],
            "bid_deadline": w.request.bid_deadline.isoformat(),
        },
        only(buyer=CONFLICT),
    ),
    # A request's lots are part of it: every invitee reads them. The request is open, so they
    # are fixed (409); the buyer's writes on a draft: tests/api/v1/test_api_lots.py.
    "requests_lots_list": (req, None, INVITED),
    "requests_lots_create": (
        req,
        lambda w: {"name": "Inference", "nodes": 1, "gpus_per_node": 8},
        only(buyer=CONFLICT),
    ),
    "requests_lots_retrieve": (lot, None, INVITED),
    "requests_lots_partial_update": (lot, lambda w: {"nodes": 1}, only(buyer=CONFLICT)),
    "requests_lots_destroy": (lot, None, only(buyer=CONFLICT)),
    # A lot's own fixture and terms read as the request's; whether a lot has its own is fixed
    # once published (409), while their contents change as the request's do (PATCH).
    "requests_lots_fixture_retrieve": (own_lot, None, INVITED),
    "requests_lots_fixture_create": (
        own_lot,
        lambda w: {"template": "rank-sum-allreduce"},
        only(buyer=CONFLICT),
    ),
    "requests_lots_fixture_partial_update": (own_lot, lambda w: {"changes": {}}, BUYER),
    "requests_lots_fixture_destroy": (own_lot, None, only(buyer=CONFLICT)),
    "requests_lots_fixture_bundle_retrieve": (own_lot, None, INVITED),
    "requests_lots_terms_retrieve": (own_lot, None, INVITED),
    "requests_lots_terms_create": (own_lot, None, only(buyer=CONFLICT)),
    "requests_lots_terms_partial_update": (
        own_lot,
        lambda w: {"s1_response_minutes": 20},
        BUYER,
    ),
    "requests_lots_terms_destroy": (own_lot, None, only(buyer=CONFLICT)),
    # Award scenarios are the buyer's deliberation: providers and other buyers see nothing.
    # Pilots before the award: the buyer and the invited provider; the rival, shortlisted on
    # the same request, sees nothing of the other's pilot. The provider uploads first; the
    # buyer's upload of the same file is a duplicate (200).
    "pilots_list": (none, None, ALL_ORGS),
    "pilots_retrieve": (pilot, None, OWNER_AND_BUYER),
    "pilots_evidence_retrieve": (pilot, None, OWNER_AND_BUYER),
    "pilots_evidence_upload": (
        pilot,
        lambda w: Multipart(node="gpu-a01"),
        only(provider=CREATED, buyer=OK),
    ),
    "pilot_evidence_retry_create": (pilot_evidence, None, only(provider=202, buyer=202)),
    "requests_pilots_create": (pilot_request, pilot_invite_body, only(buyer=CREATED)),
    "requests_pilot_scoring_retrieve": (pilot_request, None, BUYER),
    "requests_pilot_scoring_update": (pilot_request, lambda w: {"use_verified": True}, BUYER),
    # Approval by policy is the buyer's own business (tests/api/v1/test_api_approvals.py). The
    # open request's publish is refused by its state; the buyer role asked for the award, so
    # it may not approve it, and withdraws it.
    "requests_approvals_list": (req, None, BUYER),
    "requests_approvals_create": (req, lambda w: {"action": "publish"}, only(buyer=CONFLICT)),
    "approvals_approve_create": (approval, None, only(buyer=CONFLICT)),
    "approvals_decline_create": (
        approval,
        lambda w: {"reason": "The budget is spent for this quarter."},
        only(buyer=CONFLICT),
    ),
    "approvals_withdraw_create": (approval, None, BUYER),
    "requests_scenarios_list": (req, None, BUYER),
    "requests_scenarios_create": (req, lambda w: {"name": "Cheapest"}, only(buyer=CREATED)),
    "requests_scenarios_retrieve": (scenario, None, BUYER),
    "requests_scenarios_solve_create": (scenario, None, only(buyer=202)),
    # Awarding a scenario not yet solved is refused by its state (409); the award itself:
    # tests/evaluation/scenarios/test_scenario_api_award.py.
    "requests_scenarios_award_create": (scenario, None, only(buyer=CONFLICT)),
    # The same addenda for the buyer and every invitee; only the buyer publishes one.
    "requests_addenda_list": (req, None, INVITED),
    "requests_addenda_create": (
        req,
        lambda w: {"title": "Site visit", "text": "Site visits are on 3 March.", "confirm": True},
        only(buyer=CREATED),
    ),
    # Clarifications (tests/api/v1/test_api_clarifications.py): invitees ask and acknowledge,
    # the buyer answers; a rival reads a published question without its asker.
    "requests_questions_list": (req, None, INVITED),
    "requests_questions_create": (
        req,
        lambda w: {"text": "Is the fabric rail-optimised?"},
        only(provider=CREATED, rival_provider=CREATED),
    ),
    "requests_questions_answer_create": (
        question,
        lambda w: {"answer": "Yes.", "publish": False},
        BUYER,
    ),
    "requests_addenda_acknowledge_create": (addendum, None, BIDDERS),
    "requests_invitations_list": (req, None, BUYER),
    "requests_invitations_create": (
        req,
        lambda w: {"providers": [w.bid.provider.slug]},
        only(buyer=CREATED),
    ),
    # Northwind has a bid on the request, so it stays invited.
    "requests_invitations_destroy": (
        lambda w: {"id": w.request.pk, "provider": w.bid.provider.slug},
        None,
        only(buyer=REFUSED),
    ),
    "requests_fixture_retrieve": (req, None, INVITED),
    "requests_fixture_create": (
        req,
        lambda w: {"template": "rank-sum-allreduce"},
        only(buyer=CREATED),
    ),
    "requests_fixture_partial_update": (req, lambda w: {"changes": {}}, BUYER),
    "requests_fixture_bundle_retrieve": (req, None, INVITED),
    # Reference runs: read with the fixture, attached by its buyer (test_api_references.py).
    "requests_fixture_references_list": (req, None, INVITED),
    "requests_fixture_references_create": (req, lambda w: Multipart(), only(buyer=CREATED)),
    "fixture_references_file_retrieve": (reference_file, None, INVITED),
    "requests_terms_retrieve": (req, None, INVITED),
    "requests_terms_create": (
        req,
        lambda w: {"template": DEFAULT_TERMS_TEMPLATE},
        only(buyer=CREATED),
    ),
    "requests_terms_partial_update": (req, lambda w: {"s1_response_minutes": 20}, BUYER),
    "requests_questionnaire_retrieve": (req, None, INVITED),
    "requests_questionnaire_create": (req, None, only(buyer=CREATED)),
    "requests_weights_retrieve": (req, None, BUYER),
    "requests_weights_update": (
        req,
        lambda w: {
            "effective_cost": 40,
            "fabric_placement": 20,
            "incident_sla": 20,
            "acceptance_terms": 10,
            "delivery_risk": 10,
        },
        BUYER,
    ),
    "requests_bids_list": (req, None, BUYER),
    "requests_comparison_retrieve": (req, None, BUYER),
    # Team evaluation: the buyer's members only; providers never learn of evaluators.
    "requests_team_retrieve": (req, None, BUYER),
    "requests_team_mine_retrieve": (req, None, BUYER),
    "requests_team_mine_update": (req, lambda w: {"weights": COST_ONLY}, BUYER),
    # Bidding is still open: the buyer reaches the rule, nobody else the request.
    # The request is open: only a closed one is awarded (409 for its buyer).
    "requests_award_create": (req, lambda w: {"bid": w.bid.pk}, only(buyer=CONFLICT)),
    # Annexes concern the buyer and the awarded provider only (contract annex).
    "requests_annexes_list": (lambda w: {"id": w.awarded.pk}, None, OWNER_AND_BUYER),
    "annexes_pdf_retrieve": (lambda w: {"id": w.annex.pk}, None, OWNER_AND_BUYER),
    "requests_annexes_create": (
        lambda w: {"id": w.awarded.pk},
        lambda w: {"kind": "contract"},
        only(buyer=202, provider=202),
    ),
    "annex_jobs_retrieve": (lambda w: {"id": w.annex_job.pk}, None, OWNER_AND_BUYER),
    # Signatures: the two parties read them; the buyer's approver signs first (the buyer here
    # has no signing identity yet: 400 naming it), so the provider's turn has not come (409).
    "annexes_signatures_retrieve": (lambda w: {"id": w.annex.pk}, None, OWNER_AND_BUYER),
    "annexes_sign_create": (
        lambda w: {"id": w.annex.pk},
        lambda w: {"confirm": True},
        only(buyer=REFUSED, provider=CONFLICT),
    ),
    "annexes_signed_pdf_retrieve": (signed_annex, None, OWNER_AND_BUYER),
    # Each organisation's own signing identity; every role here is an administrator of it.
    "organization_signing_identity_retrieve": (none, None, ALL_ORGS),
    "organization_signing_identity_create": (
        none,
        lambda w: Multipart(password="x"),  # no `pkcs12` field: 400 names it
        only(buyer=REFUSED, provider=REFUSED, rival_provider=REFUSED, outsider=REFUSED),
    ),
    "organization_signing_identity_trial_create": (
        none,
        None,
        only(buyer=CREATED, provider=CREATED, rival_provider=CREATED, outsider=CREATED),
    ),
}
OPERATIONS.update(BID_AND_DELIVERY_OPERATIONS)
OPERATIONS.update(OUTCOME_OPERATIONS)

# Routes outside the operations: the schema, its two readers and the fixture schema are public.
PUBLIC = dict.fromkeys(ROLES, OK)
PAGES = {
    "api:schema": PUBLIC,
    "api:docs": PUBLIC,
    "api:redoc": PUBLIC,
    "api:fixture-schema": PUBLIC,
}


def _route_names() -> set[str]:
    from api import urls

    names = {f"api:{p.name}" for p in urls.v1 if p.name}
    return names - {"api:run-evidence"}  # its row lives with the burn-in routes


tenancy_registry.register(*_route_names())


def schema_operations() -> dict[str, tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        op["operationId"]: (path, method)
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }


# Denied roles first: an allowed role's write must not change what the others see.
ORDER = ["anonymous", "outsider", "rival_provider", "dual_as_rival", "provider", "buyer"]


def test_every_operation_has_a_row() -> None:
    operations = set(schema_operations())
    missing = sorted(operations - set(OPERATIONS))
    stale = sorted(set(OPERATIONS) - operations)
    assert not missing, f"Add these operations to the API tenancy table: {missing}"
    assert not stale, f"These rows name operations the schema no longer has: {stale}"


def test_the_pages_are_registered_routes() -> None:
    assert set(PAGES) <= _route_names()


def _call(client: Any, method: str, path: str, body: Any) -> Any:
    if body == "multipart" or isinstance(body, Multipart):
        upload = SimpleUploadedFile(
            "all_reduce.txt", (DATA / "burnin/nccl-tests/all_reduce_2node_slow.txt").read_bytes()
        )
        fields = body.fields if isinstance(body, Multipart) else {"node": ""}
        return client.post(path, {"file": upload, **fields}, format="multipart")
    if body is None:
        return getattr(client, method)(path)
    return getattr(client, method)(path, body, format="json")


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_operation_gives_each_role_what_it_may_see(operation_id, api_world, clients):
    path, method = schema_operations()[operation_id]
    params, body, expected = OPERATIONS[operation_id]
    url = path.format(**params(api_world))
    got = {}
    for role in ORDER:
        response = _call(clients[role], method, url, body(api_world) if body else None)
        got[role] = response.status_code
        if response.status_code >= 400:
            assert set(response.json()) >= {"detail"}, (operation_id, role, response.content)
    # A member of two organisations acting as the rival sees what the rival sees.
    expected = {**expected, "dual_as_rival": expected["rival_provider"]}
    assert got == {role: expected[role] for role in ORDER}, f"{method.upper()} {url}"


def test_options_answers_every_path_without_an_error(api_world, clients):
    """OPTIONS on each path the schema lists (one call per path) describes it or hides it, in
    the API's JSON, for a party and an outsider alike: never a 500."""
    seen: set[str] = set()
    for operation_id, (path, _method) in sorted(schema_operations().items()):
        if path in seen or operation_id not in OPERATIONS:
            continue
        try:  # some builders make their object by a move (a proposal) that cannot repeat
            url = path.format(**OPERATIONS[operation_id][0](api_world))
        except ValidationError:  # MoveRefused is one
            continue
        seen.add(path)
        for role in ("outsider", "buyer"):
            response = clients[role].options(url)
            assert response.status_code in (200, 404), (url, role, response.content[:300])
            assert response["Content-Type"].startswith("application/json"), url
    assert len(seen) > 40


@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("role", ROLES)
def test_schema_and_docs_are_public(name, role, clients, db):
    response = clients[role].get(reverse(name))
    assert response.status_code == PAGES[name][role]


@pytest.mark.parametrize("name", ["api:docs", "api:redoc"])
def test_the_docs_load_nothing_from_outside(name, client, db):
    html = client.get(reverse(name)).content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith("/static/") for a in assets), assets
    assert "googleapis" not in html and "cdn." not in html
    if name == "api:redoc":  # ReDoc's bundle draws its footer logo from cdn.redoc.ly: refused
        assert "content=\"img-src 'self' data: blob:\"" in html
