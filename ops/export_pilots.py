"""The pilots of an export: the invitations an organisation is a party to (the buyer's on its
requests, once their bids are open to it; the invited provider's own), each pilot's run, its
evidence files as uploaded, the checks, and its figures, claimed beside verified. The reads are
the pilot pages' selectors, so a rival provider's pilot never reaches another's archive."""

from __future__ import annotations

from acceptance.models import BurnInRun, Check, Evidence, Pilot
from acceptance.selectors.burnin import check_groups, evidence_list
from acceptance.selectors.pilot import acknowledged_floors, figure_rows, pilot_list, pilot_run
from bids.models import BidRevision
from ops.export_rows import Export
from orgs.models import Organization

FIGURE_KEYS = {
    "pilot_id": "the id of the pilot",
    "bid_id": "the id of the bid it piloted",
    "key": "the figure: `bus_bandwidth`, `nvlink_bandwidth`, `fabric_bandwidth`, "
    "`fabric_p99_latency` or `app_step_time`",
    "label": "the figure in words",
    "unit": "the unit of `claimed` and `verified`",
    "claimed": "what the bid claims, or null where it states nothing",
    "claimed_from": "`bid` (its own terms) or `fixture` (a fixture floor it acknowledged)",
    "verified": "what the pilot's evidence showed, or null until measured",
    "source": "where the verified figure was read: `file` (the evidence's reference), "
    "`line`, `where`",
    "evidence_id": "the id in `pilot_evidence.json` of the file it was read from, or null",
}


def declare_pilot_tables(export: Export) -> None:
    export.table(
        "pilots",
        Pilot,
        "Pilots before the award you are a party to: the buyer's invitation of a shortlisted "
        "bid (its window and the application run), and the figures its evidence verified.",
    )
    export.table("pilot_runs", BurnInRun, "Each pilot's run of the fixture and probes.")
    export.table("pilot_evidence", Evidence, "The files uploaded to each pilot, as uploaded.")
    export.table("pilot_checks", Check, "Each pilot run's check results.")
    export.table(
        "pilot_figures",
        None,
        "Each pilot's figures, one row per figure: claimed beside verified.",
        extra=FIGURE_KEYS,
    )


def collect_pilots(export: Export, org: Organization) -> None:
    pilots = list(pilot_list(org_ids=[org.pk]).order_by("invited_at", "pk"))
    floors = acknowledged_floors(pilot.bid_id for pilot in pilots)
    for pilot in pilots:
        export.add("pilots", pilot)
        run = pilot_run(pilot)
        export.add("pilot_runs", run)
        evidence = list(evidence_list(run=run))
        for item in evidence:
            export.add("pilot_evidence", item)
        for group in check_groups(run=run):
            for check in group.checks:
                export.add("pilot_checks", check)
        revision = BidRevision.objects.filter(
            bid=pilot.bid, number=pilot.bid.latest_revision_number
        ).first()
        for row in figure_rows(pilot, revision, evidence, floors.get(pilot.bid_id)):
            export.tables["pilot_figures"].rows.append(
                {
                    "pilot_id": pilot.pk,
                    "bid_id": pilot.bid_id,
                    **row.to_json(),
                    "evidence_id": row.evidence_id,
                }
            )
