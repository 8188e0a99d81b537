"""The API tenancy table's rows for bids and what follows an award: reservations, burn-in
runs and evidence, failed runs, incidents, maintenance and planned changes
(tests/api/v1/test_tenancy.py merges them into its table, keyed by operationId)."""

from __future__ import annotations

from tests.api.v1.tenancy_builders import (
    ALL_ORGS,
    BIDDERS,
    CONFLICT,
    CREATED,
    FORBIDDEN,
    OK,
    OWNER_AND_BUYER,
    REFUSED,
    USAGE_MAPPING,
    Body,
    Multipart,
    Params,
    baseline_proposed,
    bid,
    bid_attachment,
    bid_own_lot,
    change_announce_body,
    change_approved,
    change_body,
    change_proposed,
    estimate_body,
    fewer_nodes_body,
    incident,
    lot_ack_body,
    maintenance,
    maintenance_body,
    none,
    only,
    planned_change,
    reservation,
    severity_proposed,
    signable,
    signal_body,
    signed_off,
    signoff_dispute_body,
    usage,
)

OWNER_AND_BUYER_400 = only(provider=REFUSED, buyer=REFUSED)
OWNER_AND_BUYER_409 = only(provider=CONFLICT, buyer=CONFLICT)

# operationId -> (path parameters, JSON body (None: no body), expected status per role)
BID_AND_DELIVERY_OPERATIONS: dict[str, tuple[Params, Body, dict[str, int]]] = {
    "bids_list": (none, None, BIDDERS),
    # Both providers already have a bid on the request: 200 with it.
    "bids_create": (none, lambda w: {"request": w.request.pk}, BIDDERS),
    "bids_retrieve": (bid, None, OWNER_AND_BUYER),
    "bids_partial_update": (bid, lambda w: {"site": "Frankfurt FR2"}, only(provider=OK)),
    # Revision 1 already holds these terms.
    "bids_submit_create": (bid, None, only(provider=CONFLICT)),  # nothing new to submit
    "bids_withdraw_create": (bid, None, only(provider=OK)),
    # The table's bid states a fact twice (its coverage against the handoff terms').
    "bids_conflicts_keep_create": (
        bid,
        lambda w: {"reason": "Both values stand, and we will settle them before signing."},
        only(provider=OK),
    ),
    "bids_revisions_list": (bid, None, OWNER_AND_BUYER),
    # A bid's files: the buyer reads the submitted ones (tests/api/v1/test_api_attachments.py).
    "bids_attachments_list": (bid, None, OWNER_AND_BUYER),
    "bids_attachments_create": (bid, lambda w: Multipart(), only(provider=CREATED)),
    "bids_attachments_file_retrieve": (bid_attachment, None, OWNER_AND_BUYER),
    "bids_revisions_retrieve": (lambda w: {"id": w.bid.pk, "number": 1}, None, OWNER_AND_BUYER),
    # A lot's own fixture and terms, acknowledged on the bid: its provider writes, the buyer
    # reads once the bid is visible; the rival's and outsiders' 404.
    "bids_lots_acknowledgement_retrieve": (bid_own_lot, None, OWNER_AND_BUYER),
    "bids_lots_acknowledgement_create": (bid_own_lot, lot_ack_body, only(provider=CREATED)),
    "reservations_list": (none, None, ALL_ORGS),
    "reservations_retrieve": (reservation, None, OWNER_AND_BUYER),
    "reservations_runs_create": (
        reservation,
        lambda w: {"label": "Second burn-in"},
        only(provider=CREATED, buyer=CREATED),
    ),
    # The buyer decides, by the reservation's table: the provider is a party, refused (403).
    # The run's checks never ran here, so the gate cannot be decided on yet (409).
    "reservations_accept_create": (
        reservation,
        lambda w: {"run": w.run.pk},
        only(buyer=CONFLICT, provider=FORBIDDEN),
    ),
    "reservations_reject_create": (
        reservation,
        lambda w: {"reason": "Fabric below the agreed busbw."},
        only(buyer=CREATED, provider=FORBIDDEN),
    ),
    "reservations_override_create": (
        reservation,
        lambda w: {
            "run": w.run.pk,
            "reason": "Credits for the slow fabric are agreed in writing.",
            "waived": [],
            "confirm": True,
        },
        only(buyer=CONFLICT, provider=FORBIDDEN),
    ),
    # No override awaits a second approver: nothing to approve or decline yet (409).
    "reservations_override_approve_create": (
        reservation,
        None,
        only(buyer=CONFLICT, provider=FORBIDDEN),
    ),
    "reservations_override_decline_create": (
        reservation,
        lambda w: {"reason": "Fix the fabric first."},
        only(buyer=CONFLICT, provider=FORBIDDEN),
    ),
    "runs_evidence_retrieve": (lambda w: {"run_id": w.run.pk}, None, OWNER_AND_BUYER),
    # The provider stores the file; the buyer's identical upload is the same evidence (200).
    "runs_evidence_upload": (
        lambda w: {"run_id": w.run.pk},
        lambda w: "multipart",
        only(provider=CREATED, buyer=OK),
    ),
    # Failed-run bundles belong to accepted reservations: this one is only awarded (400).
    # Pending acceptance: failed-run evidence waits for an accepted reservation (its state).
    "reservations_failed_runs_create": (reservation, lambda w: "multipart", OWNER_AND_BUYER_409),
    "failed_runs_list": (none, None, ALL_ORGS),
    "failed_runs_retrieve": (lambda w: {"id": w.failed_run.pk}, None, OWNER_AND_BUYER),
    # Only a crashed or unreadable analysis is retried; this one is still queued (its state).
    "failed_runs_retry_create": (lambda w: {"id": w.failed_run.pk}, None, OWNER_AND_BUYER_409),
    "runs_recheck_create": (lambda w: {"id": w.run.pk}, None, only(provider=202, buyer=202)),
    "evidence_retry_create": (lambda w: {"id": w.evidence.pk}, None, only(provider=202, buyer=202)),
    "evidence_withdraw_create": (lambda w: {"id": w.evidence.pk}, None, OWNER_AND_BUYER),
    # Incidents: an accepted reservation's parties, as in the browser (built on first use).
    "reservations_incidents_list": (
        lambda w: {"id": w.incident.reservation_id},
        None,
        OWNER_AND_BUYER,
    ),
    # Either party opens from its own signal ("other" is both parties' to name).
    "reservations_incidents_create": (
        lambda w: {"id": w.incident.reservation_id},
        signal_body,
        only(provider=CREATED, buyer=CREATED),
    ),
    # The failed run already has its incident: the parties reach the rule (409, its state),
    # nobody else the run.
    "failed_runs_incident_create": (
        lambda w: {"id": w.incident.failed_run_id},
        lambda w: {},
        OWNER_AND_BUYER_409,
    ),
    "incidents_retrieve": (incident, None, OWNER_AND_BUYER),
    # Usage reconciliation: the accepted reservation's parties (tests/api/v1/test_api_usage.py).
    "reservations_usage_list": (reservation, None, OWNER_AND_BUYER),
    # Any file is stored first (this one, a text log, then waits for its column mapping).
    "reservations_usage_create": (
        lambda w: {"id": w.incident.reservation_id},
        lambda w: Multipart(),
        only(provider=CREATED, buyer=CREATED),
    ),
    "reservations_usage_retrieve": (usage, None, OWNER_AND_BUYER),
    "reservations_usage_mapping_retrieve": (usage, None, OWNER_AND_BUYER),
    "reservations_usage_mapping_update": (
        usage,
        lambda w: USAGE_MAPPING,
        only(provider=202, buyer=202),
    ),
    # Waiting for its mapping: the parties are told there is nothing to retry.
    "reservations_usage_retry_create": (usage, None, OWNER_AND_BUYER_409),
    # Not reconciled yet (it waits for its mapping): nothing to export, for anyone.
    "reservations_usage_focus_retrieve": (usage, None, only()),
    # The baseline S2 is measured against (tests/incidents/test_baseline_agreement.py): both
    # parties read it; the buyer proposes (the all_reduce log is no step-time file: 400), the
    # provider's approver or admin answers.
    "reservations_baseline_retrieve": (
        lambda w: {"id": w.incident.reservation_id},
        None,
        OWNER_AND_BUYER,
    ),
    "reservations_baseline_create": (
        lambda w: {"id": w.incident.reservation_id},
        lambda w: Multipart(reason="Our own job's step time."),
        only(provider=FORBIDDEN, buyer=REFUSED),
    ),
    "reservations_baseline_accept_create": (
        baseline_proposed,
        lambda w: {"reason": "Matches our smoke run."},
        only(provider=OK, buyer=FORBIDDEN),
    ),
    "reservations_baseline_reject_create": (
        baseline_proposed,
        lambda w: {"reason": "A different batch size."},
        only(provider=OK, buyer=FORBIDDEN),
    ),
    "incidents_partial_update": (incident, lambda w: {"gpus": 16}, OWNER_AND_BUYER),
    # Either party proposes a severity change; it waits for the other party's answer, so the
    # buyer, asking after the provider, finds one waiting (409).
    "incidents_severity_create": (
        incident,
        lambda w: {"severity": "S2", "reason": "The job runs on, degraded."},
        only(provider=CREATED, buyer=CONFLICT),
    ),
    # The provider proposed: the buyer's approver or admin answers, the provider may not.
    "incidents_severity_accept_create": (
        severity_proposed,
        lambda w: {"reason": "Agreed: it runs on."},
        only(provider=FORBIDDEN, buyer=OK),
    ),
    "incidents_severity_reject_create": (
        severity_proposed,
        lambda w: {"reason": "It is down cluster-wide."},
        only(provider=FORBIDDEN, buyer=OK),
    ),
    # The buyer opened the incident: the provider acknowledges or disputes it, not the buyer.
    "incidents_acknowledge_create": (incident, None, only(provider=OK, buyer=FORBIDDEN)),
    "incidents_dispute_create": (
        incident,
        lambda w: {"reason": "No alert on our side."},
        only(provider=OK, buyer=FORBIDDEN),
    ),
    # Recorded once: the provider's answer stops the clock, the buyer's second one is refused.
    # The provider records these; the buyer is refused by the incident's table.
    "incidents_responded_create": (incident, None, only(provider=OK, buyer=FORBIDDEN)),
    "incidents_restored_create": (incident, None, only(provider=OK, buyer=FORBIDDEN)),
    "incidents_evidence_list": (incident, None, OWNER_AND_BUYER),
    "incidents_evidence_create": (
        incident,
        lambda w: Multipart(kind="nccl-tests"),
        only(provider=CREATED, buyer=CREATED),
    ),
    # The first signable item is the buyer's (diagnostics): the provider may not sign it.
    "incidents_signoff_create": (incident, signable, only(provider=FORBIDDEN, buyer=CREATED)),
    # The record's moves (tests/api/v1/test_api_incident_record.py). A log that is not step
    # times is stored and named as unreadable (400) for either party.
    "reservations_incidents_step_times_create": (
        lambda w: {"id": w.incident.reservation_id},
        lambda w: Multipart(),
        OWNER_AND_BUYER_400,
    ),
    # The world's incident is an S1: a restart on fewer nodes belongs to an S3 (409).
    "incidents_fewer_nodes_create": (
        incident,
        fewer_nodes_body,
        only(provider=CONFLICT, buyer=CONFLICT),
    ),
    "incidents_changes_list": (incident, None, OWNER_AND_BUYER),
    "incidents_changes_create": (
        incident,
        change_body,
        only(provider=CREATED, buyer=CREATED),
    ),
    # The provider proposed: only the buyer decides; the proposer's own party is refused.
    "incidents_changes_decide_create": (
        change_proposed,
        lambda w: {"decision": "approve"},
        only(provider=FORBIDDEN, buyer=OK),
    ),
    # Approved: the provider records it applied; the buyer's second record is refused (409).
    "incidents_changes_apply_create": (
        change_approved,
        lambda w: {"checks_rerun": "all_reduce_perf, 2 nodes"},
        only(provider=OK, buyer=CONFLICT),
    ),
    "incidents_estimates_list": (incident, None, OWNER_AND_BUYER),
    # The provider posts the repair estimate; the buyer is refused by the incident's table.
    "incidents_estimates_create": (
        incident,
        estimate_body,
        only(provider=CREATED, buyer=FORBIDDEN),
    ),
    "incidents_signoff_disputes_list": (incident, None, OWNER_AND_BUYER),
    # The buyer signed its own item off: the provider disputes it, the buyer may not.
    "incidents_signoff_disputes_create": (
        signed_off,
        signoff_dispute_body,
        only(provider=CREATED, buyer=FORBIDDEN),
    ),
    "incidents_ticket_retrieve": (incident, None, OWNER_AND_BUYER),
    # Delivery: both parties read the figures and the windows; the provider announces (the
    # buyer is refused by role); a window given with notice has nothing to agree to (409 for
    # the buyer, 403 for the provider).
    "reservations_availability_retrieve": (
        lambda w: {"id": w.incident.reservation_id},
        None,
        OWNER_AND_BUYER,
    ),
    "reservations_maintenance_list": (
        lambda w: {"id": w.incident.reservation_id},
        None,
        OWNER_AND_BUYER,
    ),
    "reservations_maintenance_create": (
        lambda w: {"id": w.incident.reservation_id},
        maintenance_body,
        only(provider=CREATED, buyer=FORBIDDEN),
    ),
    "maintenance_agree_create": (
        maintenance,
        None,
        only(provider=FORBIDDEN, buyer=CONFLICT),
    ),
    # A planned change: both parties read it and its canary; only the provider uploads the
    # canary's evidence (the buyer by party: 403); only the buyer answers (the provider: 403).
    "reservations_changes_list": (
        lambda w: {"id": w.incident.reservation_id},
        None,
        OWNER_AND_BUYER,
    ),
    "reservations_changes_create": (
        lambda w: {"id": w.incident.reservation_id},
        change_announce_body,
        only(provider=CREATED, buyer=FORBIDDEN),
    ),
    "changes_retrieve": (planned_change, None, OWNER_AND_BUYER),
    "changes_canary_evidence_retrieve": (planned_change, None, OWNER_AND_BUYER),
    "changes_canary_evidence_upload": (
        planned_change,
        lambda w: Multipart(node="gpu-a01"),
        only(provider=CREATED, buyer=FORBIDDEN),
    ),
    "changes_answer_create": (
        planned_change,
        lambda w: {"decision": "object", "reason": "A training run is mid-epoch then."},
        only(provider=FORBIDDEN, buyer=OK),
    ),
    # Only the buyer closes an S1 (409 for the provider); the checklist has not passed (409).
    "incidents_close_create": (
        incident,
        lambda w: {"confirm": True},
        only(provider=CONFLICT, buyer=CONFLICT),
    ),
}
