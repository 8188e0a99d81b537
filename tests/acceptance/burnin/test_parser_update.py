"""`manage.py recheck_stale_evidence`: after a deploy that changed the parsers, open runs holding
files read under older parsers are re-checked by the platform; decided runs are left alone."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from acceptance.models import Evidence, EvidenceState, ReservationStatus
from audit.models import AuditEntry, Party
from engine.evidence.parsers.restore import FORMAT
from tests.acceptance.burnin.helpers import GOOD_SET, upload_all

pytestmark = pytest.mark.django_db

DMON = ("nvidia-smi-dmon/dmon_pucet_4xv100_gpu2_row_cut_short_mid_capture.txt", "")
OLD_WORDS = "unrecognised evidence: not nccl-tests, nvidia-smi, dcgmi diag"


def refused_by_older_parsers(awarded, provider, capture) -> Evidence:
    """The run's good set and a dmon capture, stored as an older release stored it: refused."""
    evidence = upload_all(awarded.run, provider.user, [*GOOD_SET, DMON], capture)
    dmon = evidence[-1]
    Evidence.objects.filter(pk=dmon.pk).update(
        state=EvidenceState.UNREADABLE, kind="", parsed=None, parsed_format="", error=OLD_WORDS
    )
    return dmon


def command(*args: str) -> str:
    out = StringIO()
    call_command("recheck_stale_evidence", *args, stdout=out)
    return out.getvalue()


def test_an_open_run_is_rechecked_under_todays_parsers_by_the_platform(
    awarded, provider, django_capture_on_commit_callbacks
):
    dmon = refused_by_older_parsers(awarded, provider, django_capture_on_commit_callbacks)
    run = awarded.run
    with django_capture_on_commit_callbacks(execute=True):
        printed = command()
    assert f"Run #{run.pk} (First burn-in, reservation #{awarded.reservation.pk})" in printed
    assert "re-check queued" in printed
    dmon.refresh_from_db()
    run.refresh_from_db()
    assert (dmon.state, dmon.kind, dmon.parsed_format) == (
        EvidenceState.PARSED,
        "nvidia-smi-dmon",
        FORMAT,
    )
    assert run.checks_current
    assert run.checks.get(name="nvidia-smi-dmon: GPUs stay on the bus").status == "fail"
    entry = AuditEntry.objects.filter(action="burnin.recheck").latest("pk")
    assert entry.party == Party.SYSTEM and entry.actor is None
    assert entry.after["parsers"] == FORMAT
    # Once read under today's parsers, nothing is left to re-check.
    assert "No open burn-in run holds a file read under older parsers." in command()


def test_a_dry_run_lists_the_runs_and_queues_nothing(
    awarded, provider, django_capture_on_commit_callbacks
):
    dmon = refused_by_older_parsers(awarded, provider, django_capture_on_commit_callbacks)
    version = type(awarded.run).objects.get(pk=awarded.run.pk).evidence_version
    with django_capture_on_commit_callbacks(execute=True):
        printed = command("--dry-run")
    assert f"Run #{awarded.run.pk} " in printed and "would be re-checked" in printed
    dmon.refresh_from_db()
    assert dmon.state == EvidenceState.UNREADABLE and dmon.error == OLD_WORDS
    assert type(awarded.run).objects.get(pk=awarded.run.pk).evidence_version == version
    assert not AuditEntry.objects.filter(action="burnin.recheck").exists()


def test_a_decided_run_keeps_the_checks_it_was_decided_on(
    awarded, provider, django_capture_on_commit_callbacks
):
    dmon = refused_by_older_parsers(awarded, provider, django_capture_on_commit_callbacks)
    type(awarded.reservation).objects.filter(pk=awarded.reservation.pk).update(
        status=ReservationStatus.ACCEPTED
    )
    with django_capture_on_commit_callbacks(execute=True):
        printed = command()
    assert "No open burn-in run holds a file read under older parsers." in printed
    assert "1 decided run(s) hold such files and keep the checks they were decided on." in printed
    dmon.refresh_from_db()
    assert dmon.state == EvidenceState.UNREADABLE and dmon.error == OLD_WORDS
