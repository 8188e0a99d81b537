"""Everything an organisation may see, gathered for its export. Tenancy is the selectors': the
same reads the pages and the API make for that organisation, so an export never holds a rival's
bid, a sealed request's bids, or another organisation's files."""

from __future__ import annotations

from acceptance.models import BurnInRun, Check, Evidence, Reservation
from acceptance.selectors.burnin import check_groups, evidence_list, reservation_list, run_list
from audit.models import AuditEntry
from audit.selectors import visible_to
from billing.models import UsageDifference, UsageUpload
from billing.selectors import differences, usage_uploads
from incidents.models import FailedRun, FailedRunFile, Incident, IncidentEvidence
from incidents.selectors import failed_run_list, incident_evidence_list, incident_list
from observed.models import ObservedUpload
from observed.selectors import uploads_for
from ops.export_pilots import collect_pilots, declare_pilot_tables
from ops.export_requests import collect_requests, declare_request_tables
from ops.export_rows import Export
from orgs.models import Membership, Organization
from orgs.selectors import member_list
from suppliers.models import ComplianceDocument, SupplierProfile
from suppliers.selectors import documents_for, profile_for


def collect(*, org: Organization) -> Export:
    export = Export()
    export.table(
        "organization",
        None,
        "The organisation this archive belongs to (one row).",
        extra={
            "id": "its id",
            "name": "its name",
            "slug": "its short name",
            "kind": "buyer or provider",
        },
    )
    export.tables["organization"].rows.append(
        {"id": org.pk, "name": org.name, "slug": org.slug, "kind": org.kind}
    )
    export.table(
        "members",
        Membership,
        "The organisation's members and their roles.",
        extra={"username": "the member's user name"},
    )
    for membership in member_list(org=org):
        export.add("members", membership, username=membership.user.get_username())
    _collect_supplier_profile(export, org)
    declare_request_tables(export, org)
    declare_pilot_tables(export)
    _declare_delivery_tables(export)
    collect_requests(export, org)
    collect_pilots(export, org)
    _collect_reservations(export, org)
    export.table("audit", AuditEntry, "The audit entries this organisation may read, in order.")
    for entry in visible_to(org=org).order_by("seq"):
        export.add("audit", entry)
    return export


def _collect_supplier_profile(export: Export, org: Organization) -> None:
    export.table("supplier_profile", SupplierProfile, "A provider's supplier profile (one row).")
    export.table("compliance_documents", ComplianceDocument, "A provider's compliance documents.")
    if (profile := profile_for(org=org)) is not None:
        export.add("supplier_profile", profile)
    for document in documents_for(org=org):
        export.add("compliance_documents", document)


def _declare_delivery_tables(export: Export) -> None:
    export.table("reservations", Reservation, "Awards: the reservations you are a party to.")
    export.table("burnin_runs", BurnInRun, "The burn-in runs of those reservations.")
    export.table("burnin_evidence", Evidence, "The files uploaded to each burn-in run.")
    export.table("burnin_checks", Check, "Each run's check results.")
    export.table("failed_runs", FailedRun, "Failed-run bundles uploaded on those reservations.")
    export.table("failed_run_files", FailedRunFile, "The files of each failed-run bundle.")
    export.table("incidents", Incident, "The incidents opened on those reservations.")
    export.table("incident_evidence", IncidentEvidence, "The files attached to each incident.")
    export.table("usage_bills", UsageUpload, "The usage bills uploaded, and their reconciliation.")
    export.table("usage_differences", UsageDifference, "The differences each reconciliation found.")
    export.table("observed_files", ObservedUpload, "What the workload observed, as uploaded.")


def _collect_reservations(export: Export, org: Organization) -> None:
    for reservation in reservation_list(org_ids=[org.pk]):
        export.add("reservations", reservation)
        for run in run_list(reservation=reservation):
            export.add("burnin_runs", run)
            for evidence in evidence_list(run=run):
                export.add("burnin_evidence", evidence)
            for group in check_groups(run=run):
                for check in group.checks:
                    export.add("burnin_checks", check)
        for incident in incident_list(reservation=reservation):
            export.add("incidents", incident)
            for item in incident_evidence_list(incident=incident):
                export.add("incident_evidence", item)
        for upload in usage_uploads(reservation=reservation):
            export.add("usage_bills", upload)
            for difference in differences(upload=upload):
                export.add("usage_differences", difference)
        for observed in uploads_for(reservation=reservation):
            export.add("observed_files", observed)
    for failed_run in failed_run_list(org_ids=[org.pk]):
        export.add("failed_runs", failed_run)
        for stored in failed_run.files.order_by("pk"):
            export.add("failed_run_files", stored)
