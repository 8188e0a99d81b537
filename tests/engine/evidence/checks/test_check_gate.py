"""Whole evidence sets through run_checks and the gate."""

from dataclasses import replace

from check_builders import by_name, good_items, item

from engine.evidence.checks import CheckResult, gate, run_checks, summary_detail


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
    bad = by_name(results, "x.txt: readable")[0]  # named by its file: its kind is unknown
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


PER_NODE = ("nvidia-smi-topo", "nvidia-smi-query", "dcgmi-diag", "ibstat")


def test_one_node_labelled_plus_unlabelled_copies_does_not_pass(spec):
    """The audit's case: gpu-a01's files, plus the same outputs with no node label."""
    one_node = [i for i in good_items() if i.node != "gpu-a02"]
    unlabelled = [replace(i, node=None, ref=f"nolabel-{i.ref}") for i in one_node if i.node]
    results = run_checks(spec, [*one_node, *unlabelled])
    verdict = gate(results)
    assert not verdict.passed
    for kind in ("nvidia-smi-topo", "dcgmi-diag", "ibstat"):
        check = by_name(results, f"{kind}: every node")[0]
        assert check.status == "missing" and check.mandatory
        assert "covers 1 of the 2 nodes (seen: gpu-a01); 1 node(s) have none" in check.message
        assert "no node label" in check.message


def test_one_nodes_files_without_any_label_do_not_cover_two_nodes(spec):
    one_node = [
        replace(i, node=None) if i.kind in PER_NODE else i
        for i in good_items()
        if i.node != "gpu-a02"
    ]
    results = run_checks(spec, one_node)
    assert not gate(results).passed
    topo = by_name(results, "nvidia-smi-topo: every node")[0]
    assert topo.status == "missing" and topo.measured.startswith("0 of 2 nodes")
    assert by_name(results, "ibstat: ports per node")[0].status == "fail"


def test_a_whole_allocation_gpu_query_covers_every_node(spec):
    rows = ["index, name, pci.bus_id, driver_version, ecc.errors.uncorrected.volatile.total"]
    rows += [f"{n % 8}, NVIDIA H200, 0000:{n:02x}:00.0, 560.35.03, 0" for n in range(16)]
    items = [i for i in good_items() if i.kind != "nvidia-smi-query"]
    items.append(item("\n".join(rows) + "\n", ref="query_all_nodes.csv"))
    results = run_checks(spec, items)
    assert gate(results).passed, [r.message for r in results if r.status != "pass"]
    assert not [r for r in results if r.name == "nvidia-smi-query: every node"]


def test_every_node_covered_is_shown_as_a_pass(spec):
    check = by_name(run_checks(spec, good_items()), "ibstat: every node")[0]
    assert check.status == "pass" and check.measured == "2 of 2 nodes (gpu-a01, gpu-a02)"


def test_gate_ignores_advisory_failures_and_tolerates_warnings():
    def r(status, mandatory):
        return CheckResult("c", "nccl-tests", status, "m", "e", None, None, mandatory, "msg")

    assert gate([r("pass", True), r("fail", False), r("warn", True)]).passed
    assert not gate([r("pass", True), r("inconclusive", True)]).passed
    assert not gate([]).passed


def test_a_summary_without_its_verdict_reads_as_a_sentence(spec):
    passed = gate(run_checks(spec, good_items())).summary
    assert summary_detail(passed).startswith("All ") and "gate" not in summary_detail(passed)
    failed = gate(run_checks(spec, [i for i in good_items() if i.kind != "ibstat"])).summary
    assert summary_detail(failed).startswith("1 of ") and "first: ibstat: present" in failed
    assert summary_detail("no mandatory checks ran") == "no mandatory checks ran"
