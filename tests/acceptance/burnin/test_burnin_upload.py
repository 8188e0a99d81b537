"""Uploads: bytes stored first with their SHA-256, duplicates recognised, limits enforced, and
junk becomes an unreadable file with a reason, never a 500 and never a lost upload."""

from __future__ import annotations

import gzip
import hashlib
import io

import pytest
from django.core.exceptions import ValidationError

from acceptance.models import EvidenceState
from acceptance.services import burnin as services
from tests.acceptance.burnin.helpers import DATA, file_upload, upload

pytestmark = pytest.mark.django_db


def test_it_stores_the_bytes_and_sha256_before_parsing(awarded, provider, monkeypatch):
    queued: list[int] = []
    monkeypatch.setattr(services, "_queue_parse", lambda e: queued.append(e.pk))
    result = upload(awarded.run, provider.user, "burnin/nccl-tests/all_reduce_2node_pass.txt")
    evidence = result.evidence
    raw = (DATA / "burnin/nccl-tests/all_reduce_2node_pass.txt").read_bytes()
    assert evidence.state == EvidenceState.QUEUED and evidence.parsed is None
    assert queued == [evidence.pk]
    assert evidence.sha256 == hashlib.sha256(raw).hexdigest()
    assert evidence.size == len(raw)
    assert f"run-{awarded.run.pk}/{evidence.sha256}/" in evidence.file.name
    with evidence.file.open("rb") as stored:
        assert stored.read() == raw
    assert not result.duplicate


def test_parsing_fills_kind_and_parsed_json(awarded, provider, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(
            awarded.run, provider.user, "burnin/nccl-tests/all_reduce_2node_pass.txt"
        ).evidence
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.PARSED
    assert evidence.kind == "nccl-tests"
    assert evidence.parsed["collective"] == "all_reduce"
    assert evidence.parsed["ranks"] == 16


def test_the_same_file_twice_is_recognised_not_stored_twice(awarded, provider, buyer):
    first = upload(awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl")
    again = upload(awarded.run, buyer.user, "burnin/fixture-result/fixture_16ranks.jsonl")
    assert again.duplicate and again.evidence.pk == first.evidence.pk
    assert awarded.run.evidence.count() == 1


def test_the_same_file_in_another_run_is_stored(awarded, provider):
    other = services.run_create(reservation=awarded.reservation, user=provider.user)
    upload(awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl")
    assert not upload(other, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl").duplicate


def test_a_file_over_the_limit_is_refused_with_the_numbers(awarded, provider, settings):
    settings.EVIDENCE_MAX_BYTES = 2048
    with pytest.raises(ValidationError) as caught:
        upload(awarded.run, provider.user, "big.log", content=b"x" * 4096)
    assert "the file is 4 KiB; the limit for one file is 2 KiB." in caught.value.messages[0]
    assert "limit" in caught.value.messages[0]
    assert awarded.run.evidence.count() == 0


def test_an_empty_file_is_refused(awarded, provider):
    with pytest.raises(ValidationError, match="empty"):
        upload(awarded.run, provider.user, "empty.txt", content=b"")


def _gzip_named(name: str, content: bytes) -> bytes:
    """What `gzip -N` writes: the original file's name in the header."""
    out = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=out, mtime=0) as packed:
        packed.write(content)
    return out.getvalue()


@pytest.mark.parametrize(
    "content",
    [gzip.compress(b""), _gzip_named("nccl.log", b"")],
    ids=["gzip", "gzip -N"],
)
def test_a_gzip_of_an_empty_file_is_refused_as_an_empty_file_is(awarded, provider, content):
    with pytest.raises(ValidationError) as caught:
        upload(awarded.run, provider.user, "nccl.log.gz", content=content)
    assert caught.value.messages == [
        "the file is empty once unpacked (a gzip of an empty file); there is nothing to check."
    ]
    assert awarded.run.evidence.count() == 0


def test_a_gzip_with_text_in_it_or_cut_short_is_stored(awarded, provider):
    whole = gzip.compress((DATA / "burnin/nccl-tests/all_reduce_2node_pass.txt").read_bytes())
    assert not upload(awarded.run, provider.user, "nccl.log.gz", content=whole).duplicate
    # A cut gzip is no empty file: stored, and its parse names the damage.
    assert not upload(awarded.run, provider.user, "cut.gz", content=whole[:12]).duplicate
    assert awarded.run.evidence.count() == 2


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary file"),
        (b"hello, this is not a tool's output\n", "unrecognised evidence"),
    ],
)
def test_junk_is_stored_and_marked_unreadable_with_the_reason(
    awarded, provider, django_capture_on_commit_callbacks, content, reason
):
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(awarded.run, provider.user, "junk.bin", content=content).evidence
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.UNREADABLE
    assert reason in evidence.error
    assert evidence.file.size == len(content)


def test_a_malformed_known_kind_names_the_line(
    awarded, provider, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(awarded.run, provider.user, "step-times/broken_bad_seconds.csv").evidence
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.UNREADABLE
    assert evidence.kind == "step-times"
    assert evidence.error_line is not None and f"line {evidence.error_line}" in evidence.error


def test_nan_in_a_wrong_column_is_unreadable_with_the_line_not_a_crash(
    awarded, provider, django_capture_on_commit_callbacks
):
    text = (DATA / "burnin/nccl-tests/all_reduce_2node_pass.txt").read_text().split("\n")
    at = next(i for i, ln in enumerate(text) if ln.strip().startswith("1073741824"))
    cells = text[at].split()
    cells[8] = "nan"
    text[at] = "  ".join(cells)
    content = "\n".join(text).encode()
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(awarded.run, provider.user, "all_reduce.log", content=content).evidence
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.UNREADABLE, evidence.error
    assert evidence.error_line == at + 1 and "#wrong" in evidence.error


@pytest.mark.parametrize(
    ("label", "stored"),
    [
        ("", ""),
        ("whole allocation", ""),
        ("gpu-a01", "gpu-a01"),
        ("node-b + node-a", "node-a+node-b"),
    ],
)
def test_node_labels_are_normalised(label, stored):
    assert services.normalise_node(label) == stored


def test_a_bad_node_label_is_a_field_error(awarded, provider):
    with pytest.raises(ValidationError) as caught:
        services.evidence_upload(
            run=awarded.run,
            user=provider.user,
            upload=file_upload("burnin/fixture-result/fixture_16ranks.jsonl"),
            node="node a; rm -rf",
        )
    assert "node" in caught.value.message_dict


def test_no_upload_after_the_decision(awarded, buyer, provider):
    from acceptance.services.decision import reservation_reject

    reservation_reject(reservation=awarded.reservation, user=buyer.user, reason="No capacity.")
    awarded.run.reservation.refresh_from_db()
    with pytest.raises(ValidationError, match="rejected"):
        upload(awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl")


def test_a_batch_of_uploads_queues_one_recheck_not_one_each(
    awarded, provider, django_capture_on_commit_callbacks
):
    from acceptance.models import ChecksState
    from tests.acceptance.burnin.helpers import GOOD_SET, upload

    with django_capture_on_commit_callbacks() as queued:
        for name, node in GOOD_SET:
            upload(awarded.run, provider.user, name, node)
    # One parse per file, and one re-check for the whole batch (it reads the latest version).
    assert len(queued) == len(GOOD_SET) + 1
    with django_capture_on_commit_callbacks(execute=True):  # as each commit would run them
        for callback in queued:
            callback()
    awarded.run.refresh_from_db()
    assert awarded.run.checks_state == ChecksState.DONE
    assert awarded.run.checked_version == awarded.run.evidence_version
    assert awarded.run.recheck_queued_at is None
