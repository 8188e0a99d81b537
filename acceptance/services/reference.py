"""Attach a reference run to the fixture's current version: the buyer's CPU dry run, or a run on
another cluster as a pre-award baseline. Stored first; a file that cannot be read is kept with
the reason and the line, never lost."""

from __future__ import annotations

import dataclasses

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from acceptance.models import FixtureReference, FixtureVersion, ReferenceSource
from bids.audit import record_request
from bids.lifecycle import require_preparing
from core.uploads import atomic_keeping_no_orphans, check_upload
from engine.evidence.checks.model import BLOCKING, evidence_item_from_text
from engine.evidence.checks.reference import check_reference, reference_summary
from engine.evidence.checks.spec import load_spec
from engine.evidence.parsers.fixture_result import KIND as FIXTURE_RESULT
from engine.evidence.parsers.fixture_result import FixtureResult
from engine.evidence.parsers.registry import to_json


def fixture_reference_upload(
    *,
    version: FixtureVersion,
    user: User,
    upload: UploadedFile,
    source: str,
    cluster: str = "",
) -> FixtureReference:
    request = version.fixture.capacity_request
    require_preparing(request, user=user, what="fixture's reference runs")
    if source not in ReferenceSource.values:
        raise ValidationError({"source": ["Choose a CPU dry run or a run on another cluster."]})
    cluster = cluster.strip()
    if source == ReferenceSource.OTHER_CLUSTER and not cluster:
        raise ValidationError({"cluster": ["Name the cluster (site or provider) the run is from."]})
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    with atomic_keeping_no_orphans():
        ref = FixtureReference(
            fixture_version=version,
            source=source,
            cluster=cluster if source == ReferenceSource.OTHER_CLUSTER else "",
            uploaded_by=user,
        )
        ref.store(upload)
        ref.save()
        _check(ref, ref.read_bytes())
        record_request(
            capacity_request=request,
            action="fixture.reference",
            user=user,
            after={
                "version": version.number,
                "source": source,
                "file": ref.original_name,
                "sha256": ref.sha256,
                "passed": ref.passed,
            },
        )
    return ref


def _check(ref: FixtureReference, data: bytes) -> None:
    item = evidence_item_from_text(ref=ref.original_name, node=None, text=data, kind=None)
    if item.kind != FIXTURE_RESULT and item.error is None:
        item = dataclasses.replace(item, parsed=None)
    if item.error is not None and item.kind == FIXTURE_RESULT:
        ref.error, ref.error_line, ref.passed = item.error, item.error_line, False
        ref.save(update_fields=["error", "error_line", "passed"])
        return
    results = check_reference(load_spec(ref.fixture_version.spec), item, source=ref.source)
    ref.checks = [
        {
            "name": r.name,
            "status": r.status,
            "measured": r.measured,
            "expected": r.expected,
            "message": r.message,
            "line": r.line,
        }
        for r in results
    ]
    ref.passed = not any(r.status in BLOCKING for r in results)
    if isinstance(item.parsed, FixtureResult):
        ref.parsed = to_json(item.parsed)
        ref.summary = reference_summary(item.parsed)
    ref.save(update_fields=["checks", "passed", "parsed", "summary"])
