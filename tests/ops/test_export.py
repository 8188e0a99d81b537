"""An organisation's data export, read back as the zip it is: what each party may see, and
nothing of anyone else's."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from audit.models import AuditEntry
from ops.models import ExportStatus
from ops.services import export_request
from orgs.choices import MemberRole
from tests.factories import MembershipFactory, UserFactory
from tests.ops.export_helpers import (
    EVIDENCE_NAME,
    PROVIDER_DRAFT,
    RIVAL_NOTES,
    RIVAL_QUESTION,
    SEALED_NOTES,
    export_of,
    job_archive,
    scene,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(
    world: Any,
    buyer: Any,
    provider: Any,
    rival_provider: Any,
    django_capture_on_commit_callbacks: Any,
) -> Any:
    return scene(world, buyer, provider, rival_provider, django_capture_on_commit_callbacks)


def test_the_buyer_reads_its_requests_the_visible_bids_and_the_burn_in_files(
    exported: Any, buyer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    job = export_of(buyer, django_capture_on_commit_callbacks)
    assert job.status == ExportStatus.DONE, job.error
    archive = job_archive(job)
    assert "README.md" in archive.names
    readme = archive.zip.read("README.md").decode()
    assert "### `bids.json`" in readme and "`price_per_gpu_hour`" in readme
    requests = {row["id"] for row in archive.json("requests.json")}
    assert requests == {exported.awarded.request.pk, exported.sealed_bid.request_id}
    bids = {row["id"] for row in archive.json("bids.json")}
    assert bids == {exported.awarded.bid.pk, exported.awarded.rival_bid.pk}  # not the sealed one
    everything = archive.text()
    assert RIVAL_NOTES.encode() in everything  # the seal lifted: the buyer compares the offers
    assert SEALED_NOTES.encode() not in everything
    assert PROVIDER_DRAFT.encode() not in everything  # a working copy is the provider's own
    [reservation] = archive.json("reservations.json")
    assert reservation["id"] == exported.awarded.reservation.pk
    [evidence] = archive.json("burnin_evidence.json")
    assert evidence["file"] in archive.names and evidence["file"].startswith("files/")
    assert archive.zip.read(evidence["file"]) == _evidence_bytes()
    assert archive.json("burnin_checks.json")
    [question] = archive.json("clarifications.json")
    assert (question["text"], question["asker_org"]) == (RIVAL_QUESTION, "Rival Cloud")


def test_the_manifest_lists_every_entry_with_its_sha256(
    exported: Any, provider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    archive = job_archive(export_of(provider, django_capture_on_commit_callbacks))
    manifest = archive.json("manifest.json")["files"]
    assert {entry["path"] for entry in manifest} == set(archive.names) - {"manifest.json"}
    for entry in manifest:
        data = archive.zip.read(entry["path"])
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert len(data) == entry["size"]
    for name in archive.names:
        if name.endswith(".json"):
            archive.json(name)  # parses


def test_the_provider_reads_its_own_bids_and_never_a_rivals(
    exported: Any, provider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    archive = job_archive(export_of(provider, django_capture_on_commit_callbacks))
    bids = {row["id"] for row in archive.json("bids.json")}
    assert bids == {exported.awarded.bid.pk, exported.sealed_bid.pk}
    revisions = {row["bid_id"] for row in archive.json("bid_revisions.json")}
    assert revisions == bids
    everything = archive.text()
    assert PROVIDER_DRAFT.encode() in everything and SEALED_NOTES.encode() in everything
    assert RIVAL_NOTES.encode() not in everything
    assert RIVAL_QUESTION.encode() not in everything  # asked privately, not published
    assert b'"weights"' not in archive.zip.read("requests.json")  # how the buyer scores
    assert len(archive.json("burnin_evidence.json")) == 1


def test_the_rival_and_an_outsider_read_nothing_of_the_others(
    exported: Any,
    rival_provider: Any,
    outsider: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    rival = job_archive(export_of(rival_provider, django_capture_on_commit_callbacks))
    assert {row["id"] for row in rival.json("bids.json")} == {exported.awarded.rival_bid.pk}
    assert [row["own"] for row in rival.json("clarifications.json")] == [True]
    assert rival.json("reservations.json") == [] and rival.json("burnin_evidence.json") == []
    assert not [name for name in rival.names if name.startswith("files/")]
    text = rival.text()
    assert PROVIDER_DRAFT.encode() not in text and SEALED_NOTES.encode() not in text
    assert _evidence_bytes() not in text
    other = job_archive(export_of(outsider, django_capture_on_commit_callbacks))
    assert other.json("requests.json") == [] and other.json("bids.json") == []
    assert other.json("audit.json") and all(
        row["obj_key"] == f"org:{outsider.org.pk}" for row in other.json("audit.json")
    )
    assert RIVAL_NOTES.encode() not in other.text()


def test_only_an_administrator_exports_and_each_export_is_audited(
    buyer: Any, buyer_requester: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with pytest.raises(PermissionDenied, match="Only an administrator of Helix Labs"):
        export_request(org=buyer.org, user=buyer_requester.user)
    job = export_of(buyer, django_capture_on_commit_callbacks)
    entry = AuditEntry.objects.get(action="org.export")
    assert (entry.actor_id, entry.obj_key, entry.after) == (
        buyer.user.pk,
        f"org:{buyer.org.pk}",
        {"export": job.pk},
    )
    stranger = UserFactory(username="sam")
    MembershipFactory(user=stranger, organization=buyer.org, role=MemberRole.APPROVER)
    with pytest.raises(PermissionDenied):
        export_request(org=buyer.org, user=stranger)


def _evidence_bytes() -> bytes:
    from tests.acceptance.burnin.helpers import DATA

    return (DATA / EVIDENCE_NAME).read_bytes()
