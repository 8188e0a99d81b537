"""A stored evidence file as the checks read it: rebuilt from what its parse stored, or read
again from its bytes when the parsers have changed since (`restore.FORMAT`).

That includes a file the parsers could not read: refused by an older parser (a tool output no
parser knew yet, a layout one parser got wrong), it may read now, and stays refused in today's
words only if it still does not.
"""

from __future__ import annotations

import dataclasses

from django.utils import timezone

from acceptance.models import Evidence, EvidenceState
from core.recent import Recent
from engine.evidence.checks import EvidenceItem, evidence_item_from_text
from engine.evidence.parsers import to_json
from engine.evidence.parsers.restore import FORMAT, StoredResultError, from_json

#: Rebuilt results each process keeps for the next re-check of the same run, weighed in KiB
#: of the files they came from (a 9.5 MB step-time file rebuilds to about 1.6 MB of objects).
EVIDENCE_KEPT_KIB = 192 * 1024
_rebuilt = Recent(EVIDENCE_KEPT_KIB)


def evidence_item(evidence: Evidence) -> EvidenceItem:
    """The checks' view of one file. A parsed file's result is rebuilt from what its parse
    stored; only a result stored in an older shape is parsed again from the bytes (and the
    fresh result stored, so that happens once). A result is fixed by the file's bytes, its kind
    and the parsers' format, so the process keeps what it rebuilt under those: a re-check after
    a new upload reads only the new file's result (load the evidence with `parsed` deferred)."""
    if evidence.state == EvidenceState.UNREADABLE and evidence.parsed_format != FORMAT:
        return _read_again(evidence)
    sha, name = evidence.sha256 or None, evidence.original_name
    if evidence.state == EvidenceState.PARSED:
        if evidence.parsed_format == FORMAT and (kept := _stored(evidence)) is not None:
            return kept
        item = evidence_item_from_text(
            ref=evidence.ref,
            node=evidence.node or None,
            text=evidence.read_bytes(),
            kind=evidence.kind or None,
        )
        if item.parsed is not None:
            Evidence.objects.filter(
                pk=evidence.pk, sha256=evidence.sha256, state=EvidenceState.PARSED
            ).exclude(parsed_format=FORMAT).update(
                parsed=to_json(item.parsed), parsed_format=FORMAT
            )
        return dataclasses.replace(item, sha256=sha, name=name)
    return _refused(evidence)


def _stored(evidence: Evidence) -> EvidenceItem | None:
    """The result its parse stored, or None when that can no longer be read."""
    sha = evidence.sha256 or None
    # Without a digest (a row stored before digests were kept) nothing names the bytes.
    key = f"{sha}:{evidence.kind}:{FORMAT}" if sha else ""
    parsed = _rebuilt.get(key) if key else None
    if parsed is None:
        try:
            parsed = from_json(evidence.parsed)
        except StoredResultError:
            return None
        if key:
            _rebuilt.put(key, parsed, max(1, (evidence.size or 0) // 1024))
    return EvidenceItem(
        ref=evidence.ref,
        node=evidence.node or None,
        kind=evidence.kind,
        parsed=parsed,
        sha256=sha,
        name=evidence.original_name,
    )


def _read_again(evidence: Evidence) -> EvidenceItem:
    """A file refused under other parsers, read by today's; the row says what they found."""
    item = evidence_item_from_text(
        ref=evidence.ref,
        node=evidence.node or None,
        text=evidence.read_bytes(),
        kind=evidence.kind if evidence.kind_given else None,
    )
    same_file = Evidence.objects.filter(
        pk=evidence.pk, sha256=evidence.sha256, state=EvidenceState.UNREADABLE
    )
    if item.parsed is not None:
        same_file.update(
            state=EvidenceState.PARSED,
            kind=item.kind,
            parsed=to_json(item.parsed),
            parsed_format=FORMAT,
            error="",
            error_line=None,
            state_changed_at=timezone.now(),
        )
        sha, name = evidence.sha256 or None, evidence.original_name
        return dataclasses.replace(item, sha256=sha, name=name)
    evidence.kind = "" if item.kind == "unknown" else item.kind
    evidence.error, evidence.error_line = item.error or "unreadable", item.error_line
    same_file.update(
        kind=evidence.kind,
        error=evidence.error,
        error_line=evidence.error_line,
        parsed_format=FORMAT,
    )
    return _refused(evidence)


def _refused(evidence: Evidence) -> EvidenceItem:
    return EvidenceItem(
        ref=evidence.ref,
        node=evidence.node or None,
        kind=evidence.kind or "unknown",
        error=evidence.error or "the file could not be processed",
        error_line=evidence.error_line,
        sha256=evidence.sha256 or None,
        name=evidence.original_name,
    )
