"""Reads for the findings on a run's evidence: the finding rows of its latest checks, each with
the files it rests on, and the buyer's explanations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from acceptance.models import BurnInRun, Check, Evidence, FindingExplanation


@dataclass
class FindingRow:
    check: Check
    files: list[Evidence] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.check.finding_key

    @property
    def blocks(self) -> bool:
        return self.check.status == "fail"


def run_findings(*, run: BurnInRun, evidence: Sequence[Evidence]) -> list[FindingRow]:
    """The findings of the run's latest checks, in page order. Each file of `evidence` gets
    `finding_rows`, the findings that name it, so the evidence table shows them beside it."""
    for e in evidence:
        e.finding_rows = []  # type: ignore[attr-defined]
    if run.checked_version is None:
        return []
    by_pk = {e.pk: e for e in evidence}
    rows = []
    checks = Check.objects.filter(run=run, version=run.checked_version).exclude(finding_key="")
    for check in checks.order_by("position"):
        row = FindingRow(check, [by_pk[pk] for pk in check.finding_evidence if pk in by_pk])
        for e in row.files:
            e.finding_rows.append(row)  # type: ignore[attr-defined]
        rows.append(row)
    return rows


def explanation_list(*, run: BurnInRun) -> list[FindingExplanation]:
    return list(FindingExplanation.objects.filter(run=run).select_related("by").order_by("at"))
