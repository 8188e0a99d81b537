"""Parsing and re-check tasks, the gate on the fixture version's spec, and stale verdicts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from acceptance.models import ChecksState, EvidenceState
from acceptance.services import burnin as services
from acceptance.tasks import parse_evidence, recheck_run
from engine.evidence.parsers.restore import FORMAT
from tests.acceptance.burnin.helpers import GOOD_SET, award, two_node_spec, upload, upload_all

pytestmark = pytest.mark.django_db


def test_a_complete_good_set_passes_the_gate(awarded, provider, django_capture_on_commit_callbacks):
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    run = awarded.run
    assert run.checks_current and run.gate_passed, run.gate_summary
    assert run.checks.filter(status="fail").count() == 0
    assert set(run.checks.values_list("version", flat=True)) == {run.evidence_version}


def test_a_slow_run_fails_with_measured_expected_file_and_line(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    evidence = upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    run = awarded.run
    assert run.checks_current and run.gate_passed is False
    check = run.checks.get(name="nccl-tests all_reduce: large-message busbw")
    assert check.status == "fail" and check.mandatory
    assert check.expected == ">= 431 GB/s"
    assert "GB/s at 1 GiB" in check.measured
    assert check.evidence == evidence[-1] and check.line is not None
    assert "large-message busbw" in run.gate_summary or "gate failed" in run.gate_summary


def test_the_gate_uses_the_reservations_fixture_version(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    spec = two_node_spec()
    spec["thresholds"]["busbw_gbps"]["all_reduce"] = 250.0  # agreed lower: the slow run passes
    done = award(world, buyer, spec)
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    upload_all(done.run, provider.user, files, django_capture_on_commit_callbacks)
    assert done.run.gate_passed, done.run.gate_summary


def test_one_nodes_hardware_files_do_not_pass_a_two_node_gate(
    awarded, provider, django_capture_on_commit_callbacks
):
    """gpu-a01's topo/dcgmi/ibstat, labelled and again unlabelled; nothing from gpu-a02."""
    one_node = [(name, node) for name, node in GOOD_SET if node != "gpu-a02" or "query" in name]
    unlabelled = [
        (name, "") for name, node in one_node if node == "gpu-a01" and "query" not in name
    ]
    upload_all(
        awarded.run, provider.user, one_node + unlabelled, django_capture_on_commit_callbacks
    )
    run = awarded.run
    assert run.checks_current and run.gate_passed is False
    assert "every node" in run.gate_summary
    ib = run.checks.get(name="ibstat: every node")
    assert ib.status == "missing" and ib.mandatory
    assert "1 of the 2 nodes (seen: gpu-a01)" in ib.message and "no node label" in ib.message


def test_missing_evidence_is_a_missing_check(awarded, provider, django_capture_on_commit_callbacks):
    upload_all(
        awarded.run,
        provider.user,
        [("burnin/nccl-tests/all_reduce_2node_pass.txt", "")],
        django_capture_on_commit_callbacks,
    )
    statuses = dict(awarded.run.checks.values_list("name", "status"))
    assert statuses["ibstat: present"] == "missing"
    assert awarded.run.gate_passed is False


def test_unreadable_evidence_blocks_as_inconclusive(
    awarded, provider, django_capture_on_commit_callbacks
):
    upload_all(
        awarded.run,
        provider.user,
        [*GOOD_SET, ("step-times/broken_bad_seconds.csv", "")],
        django_capture_on_commit_callbacks,
    )
    bad = awarded.run.checks.get(status="inconclusive")
    assert bad.evidence.original_name == "broken_bad_seconds.csv" and bad.line
    assert awarded.run.gate_passed is False


def test_withdrawing_the_bad_file_recomputes_the_verdict(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [*GOOD_SET, ("burnin/nccl-tests/all_reduce_2node_slow.txt", "")]
    evidence = upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    assert awarded.run.gate_passed is False
    with django_capture_on_commit_callbacks(execute=True):
        services.evidence_withdraw(evidence=evidence[-1], user=provider.user)
    awarded.run.refresh_from_db()
    assert awarded.run.gate_passed, awarded.run.gate_summary
    assert awarded.run.evidence.count() == len(files)  # withdrawn, still stored


def test_results_for_older_evidence_are_stale_until_recomputed(
    awarded, provider, django_capture_on_commit_callbacks
):
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert awarded.run.checks_current
    # A new file arrives but nothing has run yet: the old verdict is no longer current.
    upload(awarded.run, provider.user, "burnin/nccl-tests/all_reduce_2node_slow.txt")
    awarded.run.refresh_from_db()
    assert not awarded.run.checks_current
    # A re-check that started before the newest change must not become current.
    version = awarded.run.evidence_version
    services.BurnInRun.objects.filter(pk=awarded.run.pk).update(evidence_version=version + 1)
    recheck_run(awarded.run.pk)
    awarded.run.refresh_from_db()
    assert awarded.run.checked_version != awarded.run.evidence_version


def test_recheck_waits_while_files_are_parsing(awarded, provider, monkeypatch):
    monkeypatch.setattr(services, "_queue_parse", lambda e: None)
    upload(awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl")
    recheck_run(awarded.run.pk)
    awarded.run.refresh_from_db()
    assert awarded.run.checks_state == ChecksState.WAITING
    assert awarded.run.gate_passed is None


def test_parsing_twice_gives_the_same_result(awarded, provider, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(
            awarded.run, provider.user, "burnin/nccl-tests/all_reduce_2node_pass.txt"
        ).evidence
    evidence.refresh_from_db()
    first = evidence.parsed
    with django_capture_on_commit_callbacks(execute=True):
        assert parse_evidence(evidence.pk) == EvidenceState.PARSED
    evidence.refresh_from_db()
    assert evidence.parsed == first and evidence.attempts == 2


def test_a_crash_is_a_visible_error_and_retry_recovers(
    awarded, provider, monkeypatch, django_capture_on_commit_callbacks
):
    def explode(*args, **kwargs):
        raise RuntimeError("disk went away")

    monkeypatch.setattr(services, "evidence_item_from_text", explode)
    with django_capture_on_commit_callbacks(execute=True):
        evidence = upload(
            awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl"
        ).evidence
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.ERROR
    assert "disk went away" in evidence.error
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        services.evidence_retry(evidence=evidence, user=provider.user)
    evidence.refresh_from_db()
    assert evidence.state == EvidenceState.PARSED


def test_a_crashed_check_run_is_visible(awarded, provider, monkeypatch):
    from acceptance.models import Evidence

    def explode(*args, **kwargs):
        raise RuntimeError("bad spec")

    monkeypatch.setattr(services, "_queue_parse", lambda e: None)
    upload(awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl")
    Evidence.objects.filter(run=awarded.run).update(state=EvidenceState.UNREADABLE, error="x")
    monkeypatch.setattr(services, "run_checks", explode)
    with pytest.raises(RuntimeError):
        recheck_run.apply(args=[awarded.run.pk], throw=True)
    awarded.run.refresh_from_db()
    assert awarded.run.checks_state == ChecksState.ERROR
    assert "bad spec" in awarded.run.checks_error
    assert not awarded.run.checks_current


def test_bisection_names_the_node_common_to_slow_pairs(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    spec = two_node_spec()
    spec["allocation"]["nodes"] = 4
    spec["tests"]["bisection"] = True
    spec["required_evidence"] = ["nccl-tests"]
    done = award(world, buyer, spec)
    pairs = ["a+b", "a+c", "a+d", "b+c", "b+d", "c+d"]
    files = [
        (
            f"burnin/nccl-tests/pair_node-{p.replace('+', '+node-')}.txt",
            "node-" + p.replace("+", "+node-"),
        )
        for p in pairs
    ]
    upload_all(done.run, provider.user, files, django_capture_on_commit_callbacks)
    check = done.run.checks.get(group="node-subsets")
    assert check.status == "fail"
    assert check.measured == "node-c"
    assert "node-c is the node common to all 3 slow subset run(s)" in check.message


def test_a_recheck_reads_each_files_stored_result_not_its_bytes_again(
    awarded, provider, django_capture_on_commit_callbacks
):
    """Parsing happens once: with an earlier file's bytes gone from storage, a later upload's
    re-check still judges that file from what its parse stored."""
    evidence = upload_all(
        awarded.run, provider.user, GOOD_SET[:-1], django_capture_on_commit_callbacks
    )
    nccl = next(e for e in evidence if e.original_name.startswith("all_reduce"))
    nccl.file.storage.delete(nccl.file.name)
    upload_all(awarded.run, provider.user, GOOD_SET[-1:], django_capture_on_commit_callbacks)
    run = awarded.run
    assert run.checks_current and run.gate_passed, run.gate_summary
    busbw = run.checks.get(name="nccl-tests all_reduce: large-message busbw")
    assert busbw.status == "pass" and busbw.evidence == nccl


def test_a_result_stored_in_an_older_shape_is_parsed_again_once(
    awarded, provider, django_capture_on_commit_callbacks
):
    evidence = upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    older = evidence[0]
    older.refresh_from_db()
    type(older).objects.filter(pk=older.pk).update(parsed_format="0:old", parsed={"kind": "x"})
    with django_capture_on_commit_callbacks(execute=True):
        services.run_request_recheck(run=awarded.run, user=provider.user)
    awarded.run.refresh_from_db()
    older.refresh_from_db()
    assert awarded.run.checks_current and awarded.run.gate_passed, awarded.run.gate_summary
    assert older.parsed_format == FORMAT and older.parsed["kind"] == older.kind


def test_a_recheck_after_an_upload_reads_only_the_new_files_stored_result(
    awarded, provider, django_capture_on_commit_callbacks
):
    """The files checked before are kept as rebuilt: only the new file's result is loaded."""
    upload_all(awarded.run, provider.user, GOOD_SET[:-1], django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        (new,) = upload_all(
            awarded.run, provider.user, GOOD_SET[-1:], django_capture_on_commit_callbacks
        )
    assert awarded.run.checks_current and awarded.run.gate_passed, awarded.run.gate_summary
    reading = [
        q["sql"]
        for q in queries
        if '"acceptance_evidence"."parsed"' in q["sql"]
        and '"acceptance_evidence"."sha256" =' not in q["sql"]  # the upload's duplicate lookup
    ]
    assert reading, "the new file's result was never read"
    for sql in reading:
        assert f'"acceptance_evidence"."id" = {new.pk}' in sql, sql


def test_a_file_older_parsers_refused_is_read_again_by_todays(
    awarded, provider, django_capture_on_commit_callbacks
):
    """A dmon capture uploaded before dmon had a parser was stored as unreadable, in the words of
    those parsers; a re-check under today's reads it, and its checks count."""
    run = awarded.run
    files = [
        *GOOD_SET,
        ("nvidia-smi-dmon/dmon_pucet_4xv100_gpu2_row_cut_short_mid_capture.txt", ""),
    ]
    evidence = upload_all(run, provider.user, files, django_capture_on_commit_callbacks)
    dmon = evidence[-1]
    old_words = "unrecognised evidence: not nccl-tests, nvidia-smi, dcgmi diag"
    type(dmon).objects.filter(pk=dmon.pk).update(
        state=EvidenceState.UNREADABLE, kind="", parsed=None, parsed_format="", error=old_words
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.run_request_recheck(run=run, user=provider.user)
    dmon.refresh_from_db()
    run.refresh_from_db()
    assert (dmon.state, dmon.kind, dmon.error) == (EvidenceState.PARSED, "nvidia-smi-dmon", "")
    assert run.checks.get(name="nvidia-smi-dmon: GPUs stay on the bus").status == "fail"


def test_a_file_todays_parsers_still_refuse_says_so_in_their_words_once(
    awarded, provider, django_capture_on_commit_callbacks
):
    run = awarded.run
    upload_all(run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        refused = upload(run, provider.user, "notes.txt", content=b"no tool wrote this\n").evidence
    type(refused).objects.filter(pk=refused.pk).update(parsed_format="", error="old words")
    with django_capture_on_commit_callbacks(execute=True):
        services.run_request_recheck(run=run, user=provider.user)
    refused.refresh_from_db()
    assert refused.state == EvidenceState.UNREADABLE and refused.parsed_format == FORMAT
    assert refused.error.startswith("unrecognised evidence") and "old words" not in refused.error
