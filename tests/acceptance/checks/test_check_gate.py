"""Whole evidence sets through run_checks and the gate."""

from check_builders import by_name, good_items, item

from acceptance.checks import CheckResult, gate, run_checks


def test_a_complete_good_set_passes_the_gate(spec):
    results = run_checks(spec, good_items())
    verdict = gate(results)
    bad = [(r.name, r.status, r.message) for r in results if r.status != "pass"]
    assert verdict.passed, bad
    assert "gate passed" in verdict.summary and not verdict.failing


def test_missing_kind_is_a_mandatory_missing_check(spec):
    items = [i for i in good_items() if i.kind != "ibstat"]
    results = run_checks(spec, items)
    missing = by_name(results, "ibstat: present")[0]
    assert missing.status == "missing" and missing.mandatory
    verdict = gate(results)
    assert not verdict.passed and missing in verdict.failing


def test_unreadable_evidence_is_inconclusive_and_blocks(spec):
    items = [*good_items(), item(b"garbage that no tool prints\n", node="gpu-a01", ref="x.txt")]
    results = run_checks(spec, items)
    bad = by_name(results, "unknown: readable")[0]
    assert bad.status == "inconclusive" and bad.mandatory and "unrecognised" in bad.message
    assert not gate(results).passed


def test_malformed_known_kind_cites_the_line(spec):
    broken = item(b"rank,node,step,seconds\n0,a,0,1.0\n1,a,0,oops\n", ref="steps.csv")
    results = run_checks(spec, [*good_items(), broken])
    check = by_name(results, "step-times: readable")[0]
    assert check.status == "inconclusive" and check.line == 3 and check.group == "step-times"


def test_per_node_evidence_from_one_node_only_is_missing(spec):
    items = [i for i in good_items() if not (i.kind == "dcgmi-diag" and i.node == "gpu-a02")]
    check = by_name(run_checks(spec, items), "dcgmi-diag: every node")[0]
    assert check.status == "missing"


def test_gate_ignores_advisory_failures_and_tolerates_warnings():
    def r(status, mandatory):
        return CheckResult("c", "nccl-tests", status, "m", "e", None, None, mandatory, "msg")

    assert gate([r("pass", True), r("fail", False), r("warn", True)]).passed
    assert not gate([r("pass", True), r("inconclusive", True)]).passed
    assert not gate([]).passed
