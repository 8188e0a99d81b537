"""Every write route is on the audit chain: a successful write leaves at least one entry.

The API half calls every write operation of the OpenAPI schema (POST, PUT, PATCH, DELETE) as a
role the tenancy table (test_tenancy.OPERATIONS) lets through, or by a builder below where that
table only reaches a refusal, and counts the chain's entries before and after. The page half
walks the URL resolver: every page route is a read, or a write that calls the service of a
named API operation (so the API half covers its entry), or a write on the allow-list below.
A new write route that is on none of these lists fails here, as does one that writes no entry.
test_audit_coverage_pages.py posts a growing share of the page writes themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from audit.models import AuditEntry
from audit.selectors import chain_verify
from contracts.services import terms_update
from orgs.choices import OrgKind
from tests.api.v1.conftest import ApiWorld
from tests.api.v1.test_tenancy import OPERATIONS, ORDER, _call, schema_operations
from tests.factories import CapacityRequestFactory, OrganizationFactory
from tests.tenancy import named_routes

WRITES = {"post", "put", "patch", "delete"}

# Successful writes that change no shared state, so nothing is recorded. Keyed by operationId.
NO_STATE = {
    # The bidder already has a bid on the request: the answer is that bid, nothing is made.
    "bids_create": "returns the existing bid",
    # A notice marked read is its reader's own inbox state, not a fact between parties.
    "notices_read_create": "the reader's own inbox",
    # The second party's identical file is the evidence already stored (200, nothing new).
    "runs_evidence_upload@buyer": "the same file as the provider's, already on the record",
    "pilots_evidence_upload@buyer": "the same file as the provider's, already on the record",
}

# Writes the table only reaches as a refusal (a lifecycle or role rule), with the test that
# makes them succeed and names their entry's action, or where none does yet, the service that
# records it (checked: the file must name the action).
ELSEWHERE = {
    "requests_create": "tests/audit/test_recorded_writes.py (request.create)",
    "requests_publish_create": "tests/audit/test_chain.py (request.publish)",
    "requests_reopen_create": "tests/bids/test_early_close.py (request.reopen)",
    "requests_final_round_create": "tests/bids/test_final_round.py (request.final_round)",
    "requests_invitations_destroy": "tests/audit/test_recorded.py (request.uninvite)",
    "requests_lots_create": "tests/api/v1/test_api_lots.py (request.lot_add)",
    "requests_lots_partial_update": "tests/api/v1/test_api_lots.py (request.lot_edit)",
    "requests_lots_destroy": "tests/api/v1/test_api_lots.py (request.lot_remove)",
    # Whether a lot has its own fixture and terms is chosen while a draft; the table's is open.
    "requests_lots_fixture_create": "tests/api/v1/test_api_lot_parts.py (fixture.version)",
    "requests_lots_fixture_destroy": "tests/api/v1/test_api_lot_parts.py (fixture.lot_share)",
    "requests_lots_terms_create": "tests/api/v1/test_api_lot_parts.py (terms.version)",
    "requests_lots_terms_destroy": "tests/api/v1/test_api_lot_parts.py (terms.lot_share)",
    "requests_award_create": "tests/audit/test_chain.py (bid.award)",
    "requests_scenarios_award_create": (
        "tests/evaluation/scenarios/test_scenario_api_award.py (scenario.award)"
    ),
    "requests_approvals_create": "tests/api/v1/test_api_approvals.py (request.approval.ask)",
    "approvals_approve_create": "tests/api/v1/test_api_approvals.py (request.approval.give)",
    "approvals_decline_create": ("tests/api/v1/test_api_approvals.py (request.approval.decline)"),
    "bids_submit_create": "tests/audit/test_chain.py (bid.submit)",
    # Accepting needs a run whose checks passed; no test world here has one.
    "reservations_accept_create": "acceptance/services/decision.py (reservation.accept)",
    "reservations_override_create": (
        "tests/acceptance/burnin/test_override.py (reservation.override_request)"
    ),
    "reservations_override_approve_create": (
        "tests/acceptance/burnin/test_override.py (reservation.override_approve)"
    ),
    "reservations_override_decline_create": (
        "tests/acceptance/burnin/test_override.py (reservation.override_decline)"
    ),
    "reservations_failed_runs_create": "tests/audit/test_recorded_writes.py (failed_run.upload)",
    "failed_runs_retry_create": "tests/audit/test_recorded_writes.py (failed_run.retry)",
    "failed_runs_incident_create": "tests/incidents/test_incident_audit.py (incident.open)",
    "reservations_usage_retry_create": "billing/services/uploads.py (usage.retried)",
    # The table's file is still queued; only one that could not be read is read again.
    "observed_retry_create": "tests/api/v1/test_api_observed.py (observed.retry)",
    "served_retry_create": "tests/api/v1/test_api_inference.py (served.retry)",
    "maintenance_agree_create": "tests/audit/test_recorded_writes.py (maintenance.agree)",
    "incidents_close_create": "tests/incidents/test_incident_audit.py (incident.close)",
    # An S3 of the table's world with nodes out, and a step-time file with a sustained rise.
    "incidents_fewer_nodes_create": "incidents/services/opening.py (_record(",
    "reservations_incidents_step_times_create": "incidents/services/opening.py (steps.upload)",
    "reservations_baseline_create": "tests/incidents/test_baseline_agreement.py (baseline.propose)",
    # Signing needs identities and a real PDF; the buyer signs first.
    "annexes_sign_create": "tests/annexes/test_annex_signing.py (annex.sign)",
    "organization_signing_identity_create": "tests/signing/test_identity.py (signing.identity_set)",
}


def _new_provider(w: ApiWorld) -> dict[str, Any]:
    return {"providers": [OrganizationFactory(kind=OrgKind.PROVIDER, slug="third").slug]}


def _bare_request(w: ApiWorld) -> dict[str, Any]:
    """A draft of the same buyer with no questionnaire yet."""
    return {"id": CapacityRequestFactory(buyer=w.request.buyer, status="draft").pk}


def _terms_changed(w: ApiWorld) -> None:
    terms = w.request.handoff_terms
    terms_update(terms=terms, user=terms.updated_by, data={"s1_response_minutes": 25})


# Where the tenancy table's call succeeds without changing anything (the same template again,
# no changes, a provider already invited), a call here that does change something:
# operationId -> (path parameters or None, body or None, preparation or None).
CHANGING: dict[str, tuple[Any, Any, Callable[[ApiWorld], None] | None]] = {
    "requests_fixture_create": (None, lambda w: {"template": "bisection-pairs"}, None),
    "requests_fixture_partial_update": (
        None,
        lambda w: {"changes": {"name": "Renamed fixture"}},
        None,
    ),
    "requests_lots_fixture_partial_update": (
        None,
        lambda w: {"changes": {"name": "Renamed lot fixture"}},
        None,
    ),
    "requests_invitations_create": (None, _new_provider, None),
    "requests_questionnaire_create": (_bare_request, None, None),
    # Reset to the template after an edit: the values change back, a new version.
    "requests_terms_create": (None, None, _terms_changed),
    "incidents_partial_update": (None, lambda w: {"gpus": 8}, None),
}


def _success_role(operation_id: str) -> str | None:
    expected = OPERATIONS[operation_id][2]
    for role in ORDER:
        if role in expected and 200 <= expected[role] < 300:
            return role
    return None


def write_operations() -> dict[str, tuple[str, str]]:
    return {op: pm for op, pm in schema_operations().items() if pm[1] in WRITES}


def test_every_write_operation_is_checked_or_listed() -> None:
    unaccounted = sorted(
        op
        for op in write_operations()
        if _success_role(op) is None and op not in NO_STATE and op not in ELSEWHERE
    )
    assert not unaccounted, (
        "These write operations never succeed in the tenancy table: give them a successful "
        f"call here or name the test that records their audit entry: {unaccounted}"
    )
    stale = sorted((set(NO_STATE) | set(ELSEWHERE)) - {k.split("@")[0] for k in write_operations()})
    stale = [s for s in stale if s.split("@")[0] not in write_operations()]
    assert not stale, f"These allow-list rows name no write operation: {stale}"


@pytest.mark.parametrize(
    "operation_id", sorted(op for op in write_operations() if _success_role(op))
)
def test_a_successful_write_leaves_an_audit_entry(operation_id, api_world, clients):
    path, method = schema_operations()[operation_id]
    params, body, _expected = OPERATIONS[operation_id]
    role = _success_role(operation_id)
    assert role is not None
    # A write listed as changing no shared state must succeed and record nothing, so the list
    # cannot hide a write that does change something.
    records = operation_id not in NO_STATE and f"{operation_id}@{role}" not in NO_STATE
    changing_params, changing_body, prepare = CHANGING.get(operation_id, (None, None, None))
    params, body = changing_params or params, changing_body or body
    if prepare is not None:
        prepare(api_world)
    url = path.format(**params(api_world))
    payload = body(api_world) if body else None
    before = AuditEntry.objects.count()
    response = _call(clients[role], method, url, payload)
    assert 200 <= response.status_code < 300, (operation_id, role, response.content[:300])
    made = AuditEntry.objects.order_by("seq")[before:]
    if records:
        assert made, f"{method.upper()} {url} as {role} changed state and left no audit entry"
    else:
        assert not made, f"{method.upper()} {url} is listed as changing nothing, yet recorded"
    assert chain_verify().intact


def test_the_tests_named_for_writes_elsewhere_record_their_action() -> None:
    root = Path(__file__).resolve().parents[3]
    for operation_id, where in {**ELSEWHERE, **PAGE_ELSEWHERE}.items():
        path, action = where.split(" (")
        files = [root / path] if path.endswith(".py") else sorted((root / path).rglob("*.py"))
        assert any(action.rstrip(")") in f.read_text() for f in files if f.exists()), (
            f"{operation_id}: {path} does not mention {action.rstrip(')')}"
        )


def test_every_page_route_is_a_read_or_an_accounted_write() -> None:
    from api import urls

    pages = named_routes() - {f"api:{p.name}" for p in urls.v1 if p.name}
    listed = set(PAGE_READS) | set(PAGE_WRITES) | set(PAGE_NO_STATE) | set(PAGE_ELSEWHERE)
    unlisted = sorted(pages - listed)
    assert not unlisted, (
        "Say whether these page routes write, and if they do, which API operation shares their "
        f"service (its audit entry is checked above) or why they record nothing: {unlisted}"
    )
    assert not sorted(listed - pages), "These rows name routes that no longer exist"
    operations = set(schema_operations())
    wrong = {name: op for name, op in PAGE_WRITES.items() if op not in operations}
    assert not wrong, f"These page writes name operations the schema lacks: {wrong}"


# Page routes that only read (pages, downloads, exports, status polls).
PAGE_READS = {
    "acceptance:fixture-bundle", "acceptance:fixture-detail", "acceptance:fixture-json",
    "acceptance:fixture-reference-download", "annexes:diff", "annexes:download",
    "annexes:incident-ticket-pdf", "annexes:list", "annexes:preview", "annexes:status",
    "annexes:signatures", "annexes:signed-download", "signing:identity",
    "audit:export", "audit:verify", "audit:log", "audit:log-export",
    "bids:bid-attachment-download", "bids:bid-detail",
    "bids:inbox", "bids:request-detail", "bids:request-list", "bids:revision-detail",
    "billing:usage-detail", "billing:usage-export", "billing:usage-file", "billing:usage-focus",
    "burnin:evidence-download", "burnin:reservation-baseline", "burnin:reservation-detail",
    "burnin:run-detail", "burnin:run-status", "contracts:terms-detail",
    "delivery:availability-csv", "delivery:availability-xlsx", "evaluation:request-compare-csv",
    "evaluation:request-compare", "evaluation:request-compare-status",
    "evaluation:request-compare-xlsx",
    "evaluation:request-scenarios-xlsx",
    "incidents:failed-run-detail", "incidents:failed-run-file", "incidents:failed-run-status",
    "incidents:incident-detail", "incidents:incident-evidence-download", "incidents:ticket-txt",
    "notices:list", "questionnaire:answers-export", "questionnaire:matrix",
    "questionnaire:revision-diff", "scorecards:provider-scorecard",
    "scorecards:provider-scorecard-csv", "scorecards:provider-scorecard-xlsx",
    "ops:metrics", "ops:export-download", "ops:api-export-detail", "ops:api-export-file",
    "orgs:invitations", "bids:gate-nda", "bids:supplier-profile", "bids:supplier-document",
    "suppliers:document-download", "observed:file",
    "pilots:list", "pilots:detail", "pilots:evidence-download", "pilots:status",
    "inference:served-detail",
    "delivery:change-detail", "delivery:change-status", "delivery:canary-evidence-download",
    "acceptance:lot-parts", "acceptance:lot-fixture-bundle", "acceptance:lot-fixture-json",
}  # fmt: skip

# Page write route -> the API operation that calls the same service (its entry is checked above).
PAGE_WRITES = {
    "acceptance:fixture-create": "requests_fixture_create",
    "acceptance:lot-acknowledge": "bids_lots_acknowledgement_create",
    "acceptance:lot-fixture-own": "requests_lots_fixture_create",
    "acceptance:lot-fixture-edit": "requests_lots_fixture_partial_update",
    "acceptance:lot-fixture-share": "requests_lots_fixture_destroy",
    "contracts:lot-terms-own": "requests_lots_terms_create",
    "contracts:lot-terms-edit": "requests_lots_terms_partial_update",
    "contracts:lot-terms-share": "requests_lots_terms_destroy",
    "acceptance:fixture-edit": "requests_fixture_partial_update",
    "acceptance:fixture-reference-upload": "requests_fixture_references_create",
    "annexes:generate": "requests_annexes_create",
    "annexes:sign": "annexes_sign_create",
    "signing:identity-trial": "organization_signing_identity_trial_create",
    "signing:identity-upload": "organization_signing_identity_create",
    "bids:addendum-acknowledge": "requests_addenda_acknowledge_create",
    "bids:bid-attachments": "bids_attachments_create",
    "bids:bid-edit": "bids_partial_update",
    "bids:bid-start": "bids_create",
    "bids:bid-submit": "bids_submit_create",
    "bids:bid-withdraw": "bids_withdraw_create",
    "bids:question-answer": "requests_questions_answer_create",
    "bids:question-ask": "requests_questions_create",
    "bids:request-addendum": "requests_addenda_create",
    "bids:request-cancel": "requests_cancel_create",
    "bids:request-close": "requests_close_create",
    "bids:request-create": "requests_create",
    "bids:request-edit": "requests_partial_update",
    "bids:request-final-round": "requests_final_round_create",
    "bids:request-invite": "requests_invitations_create",
    "bids:lot-add": "requests_lots_create",
    "bids:lot-edit": "requests_lots_partial_update",
    "bids:lot-remove": "requests_lots_destroy",
    "bids:request-publish": "requests_publish_create",
    "bids:request-reopen": "requests_reopen_create",
    "billing:usage-list": "reservations_usage_create",
    "billing:usage-mapping": "reservations_usage_mapping_update",
    "billing:usage-retry": "reservations_usage_retry_create",
    "burnin:evidence-retry": "evidence_retry_create",
    "burnin:evidence-withdraw": "evidence_withdraw_create",
    "burnin:override-approve": "reservations_override_approve_create",
    "burnin:override-decline": "reservations_override_decline_create",
    "burnin:reservation-reject": "reservations_reject_create",
    "burnin:run-accept": "reservations_accept_create",
    "burnin:run-create": "reservations_runs_create",
    "burnin:run-override": "reservations_override_create",
    "burnin:run-recheck": "runs_recheck_create",
    "burnin:run-upload": "runs_evidence_upload",
    "pilots:upload": "pilots_evidence_upload",
    "pilots:evidence-retry": "pilot_evidence_retry_create",
    "evaluation:request-pilot-invite": "requests_pilots_create",
    "evaluation:request-pilot-scoring": "requests_pilot_scoring_update",
    "contracts:terms-create": "requests_terms_create",
    "contracts:terms-edit": "requests_terms_partial_update",
    "delivery:maintenance-agree": "maintenance_agree_create",
    "delivery:maintenance-new": "reservations_maintenance_create",
    "delivery:canary-upload": "changes_canary_evidence_upload",
    "delivery:change-answer": "changes_answer_create",
    "evaluation:bid-award": "requests_award_create",
    "evaluation:request-team-view": "requests_team_mine_update",
    "evaluation:request-weights": "requests_weights_update",
    "evaluation:request-scenarios": "requests_scenarios_create",
    "evaluation:request-scenario-solve": "requests_scenarios_solve_create",
    "evaluation:request-scenario-award": "requests_scenarios_award_create",
    "incidents:failed-run-retry": "failed_runs_retry_create",
    "incidents:failed-run-upload": "reservations_failed_runs_create",
    "incidents:incident-answer": "incidents_acknowledge_create",
    "incidents:incident-close": "incidents_close_create",
    "incidents:incident-dispute": "incidents_dispute_create",
    "incidents:incident-evidence": "incidents_evidence_create",
    "incidents:incident-mark": "incidents_responded_create",
    "incidents:incident-new": "reservations_incidents_create",
    "incidents:incident-open": "failed_runs_incident_create",
    "incidents:incident-severity": "incidents_severity_create",
    "incidents:incident-severity-answer": "incidents_severity_accept_create",
    "incidents:incident-signoff": "incidents_signoff_create",
    "incidents:incident-times": "incidents_partial_update",
    "questionnaire:set-attach": "requests_questionnaire_create",
    "incidents:baseline": "reservations_baseline_create",
    "incidents:baseline-answer": "reservations_baseline_accept_create",
    "ops:export": "organization_export_create",
    "ops:export-retry": "organization_export_retry_create",
    "ops:api-export-list": "organization_export_create",
    "ops:api-export-retry": "organization_export_retry_create",
    "orgs:members": "members_invitations_create",
    "orgs:invitation-withdraw": "members_invitations_destroy",
    "orgs:invitation-accept": "me_invitations_accept_create",
    "orgs:invitation-decline": "me_invitations_decline_create",
    "webhooks:list": "webhooks_create",
    "webhooks:detail": "webhooks_partial_update",
    "webhooks:rotate": "webhooks_rotate_create",
    "webhooks:delete": "webhooks_destroy",
    "webhooks:redeliver": "webhook_deliveries_redeliver_create",
}

# Page writes with no API operation: the test that makes them and names their entry, or, where
# no test makes that write yet, the service that records it (checked: the file names it).
PAGE_ELSEWHERE = {
    "bids:approval-policy": "tests/bids/test_approvals.py (org.approval_policy)",
    "bids:delegation-create": "bids/services/approval_policy.py (org.delegation_add)",
    "bids:delegation-end": "bids/services/approval_policy.py (org.delegation_remove)",
    "evaluation:approval-approve": "tests/bids/test_approvals.py (request.approval.give)",
    "evaluation:approval-decline": "bids/services/approvals.py (approval.decline)",
    "evaluation:approval-withdraw": "bids/services/approvals.py (approval.withdraw)",
    "evaluation:request-scenario-edit": (
        "tests/evaluation/scenarios/test_scenario_pages.py (scenario.edit)"
    ),
    "acceptance:acknowledge": "tests/audit/test_recorded_writes.py (bid.acknowledge)",
    "annexes:retry": "annexes/services.py (annex.retry)",
    "bids:bid-attachment-remove": "bids/services/attachments.py (record_bid)",
    "burnin:run-explain-finding": "acceptance/services/findings.py (record_on_reservation)",
    "pilots:evidence-withdraw": (
        "tests/acceptance/pilot/test_pilot_services.py (pilot.evidence_withdraw)"
    ),
    "pilots:recheck": "tests/acceptance/pilot/test_pilot_services.py (pilot.recheck)",
    "inference:served-list": "tests/inference/test_served_pages.py (served.upload)",
    "inference:served-retry": "tests/inference/test_served_pages.py (served.retry)",
    "incidents:change-apply": "tests/incidents/record/test_change_log.py (incident.",
    "incidents:change-decide": "tests/incidents/record/test_change_log.py (incident.",
    "incidents:change-propose": "tests/incidents/record/test_change_log.py (incident.",
    "incidents:estimate-post": "tests/incidents/record/test_estimate.py (incident.estimate)",
    "incidents:failed-run-attach": "incidents/services/opening.py (incident.attach)",
    "incidents:incident-fewer-nodes": "incidents/services/opening.py (_record(",
    "incidents:incident-from-steps": "incidents/services/opening.py (steps.upload)",
    "orgs:member-remove": "orgs/services.py (member.remove)",
    "orgs:member-role": "orgs/services.py (member.role)",
    "questionnaire:answers-copy": "questionnaire/services/answers.py (bid.answers)",
    "questionnaire:answers-edit": "questionnaire/services/answers.py (bid.answers)",
    "questionnaire:answers-import": "questionnaire/services/answers.py (bid.answers)",
    "questionnaire:conflicts-keep": "questionnaire/services/conflicts.py (bid.conflicts.keep)",
    "questionnaire:set-edit": "questionnaire/services/question_sets.py (questionnaire.edit)",
    "sso:settings": "tests/sso/test_settings_page.py (sso.configure)",
    "sso:callback": "tests/sso/test_sign_in.py (sso.provision)",
    "sso:scim-token": "tests/sso/test_scim.py (scim.token)",
    "sso:scim-users": "tests/sso/test_scim.py (scim.provision)",
    "sso:scim-user": "tests/sso/test_scim.py (scim.deprovision)",
    "api:token-list": "tests/audit/test_recorded_writes.py (token.create)",
    "api:token-revoke": "tests/audit/test_recorded_writes.py (token.revoke)",
    "bids:gate-edit": "tests/bids/onboarding/test_gate_pages.py (request.gate)",
    "bids:gate-accept": "tests/bids/onboarding/test_gate.py (request.gate_accept)",
    "bids:supplier-invite": (
        "tests/bids/onboarding/test_supplier_invitation.py (request.invite_supplier)"
    ),
    "bids:supplier-join": "tests/bids/onboarding/test_supplier_invitation.py (request.invite)",
    "suppliers:profile": "tests/suppliers/test_profiles.py (supplier.profile)",
    "suppliers:document-add": "tests/suppliers/test_profiles.py (supplier.document.add)",
    "suppliers:document-remove": "tests/suppliers/test_profiles.py (supplier.document.remove)",
    "observed:page": "tests/observed/test_observed_pages.py (observed.upload)",
    "observed:result": "tests/observed/test_observed_pages.py (observed.result)",
    "observed:retry": "tests/observed/test_observed_pages.py (observed.retry)",
    "delivery:change-new": "tests/delivery/changes/test_change_services.py (change.announce)",
    "delivery:canary-evidence-retry": (
        "tests/delivery/changes/test_change_services.py (canary.evidence_retry)"
    ),
    "delivery:canary-evidence-withdraw": (
        "tests/delivery/changes/test_change_services.py (canary.evidence_withdraw)"
    ),
}

# Page writes that change no state between parties, with why.
PAGE_NO_STATE = {
    # Re-scores the same inputs: the scores are derived, and the inputs' changes are recorded.
    "evaluation:request-compare-rescore": "derived scores of recorded inputs",
    # A reader's own notices and preferences, and the session's acting organisation.
    "notices:open": "marks the reader's notice read",
    "notices:read-all": "marks the reader's notices read",
    "notices:preferences": "the reader's own e-mail preferences",
    "orgs:switch-org": "the session's acting organisation",
    # Where the browser's own sign-in goes next: the state and nonce, kept in its session.
    "sso:start": "the browser's sign-in state",
}
