"""nccl-tests checks and the node-subset bisection."""

import dataclasses
import itertools

from check_builders import by_name, data_item, item, nccl_text

from engine.evidence.checks import run_checks
from engine.evidence.checks.spec import load_spec


def run(spec, *items):
    return [r for r in run_checks(spec, list(items)) if r.group in ("nccl-tests", "node-subsets")]


def test_a_good_run_passes_every_check(spec):
    results = run(spec, item(nccl_text()))
    assert {r.status for r in results} == {"pass"}, [(r.name, r.message) for r in results]
    names = {r.name for r in results}
    assert {
        "nccl-tests all_reduce: rank count",
        "nccl-tests all_reduce: #wrong",
        "nccl-tests all_reduce: large-message busbw",
        "nccl-tests all_reduce: size range",
        "nccl-tests all_reduce: NCCL version",
    } <= names


def test_gate_uses_large_messages_not_the_average(spec):
    # Avg bus bandwidth in the text is 120.5 (far below 431) yet large sizes are fine.
    results = run(spec, item(nccl_text(peak=470.0)))
    assert by_name(results, "nccl-tests all_reduce: large-message busbw")[0].status == "pass"
    slow = run(spec, item(nccl_text(peak=300.0)))
    check = by_name(slow, "nccl-tests all_reduce: large-message busbw")[0]
    assert check.status == "fail" and check.line is not None and "1 GiB" in check.measured


def test_wrong_ranks_version_and_range(spec):
    text = nccl_text(hosts=("gpu-a01",), lo=1048576, hi=1 << 30, wrong="2", version="2.21.5")
    results = run(spec, item(text))
    status = {r.name.split(": ")[1]: r.status for r in results}
    assert status["rank count"] == "fail" and status["#wrong"] == "fail"
    assert status["size range"] == "fail" and status["NCCL version"] == "fail"


def test_out_of_bounds_fails(spec):
    check = by_name(run(spec, item(nccl_text(oob=4))), "nccl-tests all_reduce: out of bounds")[0]
    assert check.status == "fail"


def test_validation_off_fails_when_check_is_agreed(spec):
    results = run(spec, data_item("nccl-tests/all_reduce_srun_label_validation0_na.txt"))
    assert by_name(results, "nccl-tests all_reduce: #wrong")[0].status == "fail"


def test_required_collective_missing(spec):
    spec["tests"]["nccl_tests"]["collectives"] = ["all_reduce", "all_gather"]
    check = by_name(run(spec, item(nccl_text())), "nccl-tests all_gather: present")[0]
    assert check.status == "missing" and check.mandatory


def test_aborted_run_fails_with_its_error_line(spec):
    results = run(spec, data_item("nccl-tests/failure_after_header_no_rows.txt"))
    failures = [r for r in results if r.status == "fail" and "aborted" in r.message]
    assert failures and failures[0].line is not None


def test_an_aborted_run_is_named_by_its_file_and_its_checks_read_plainly(spec):
    bare = data_item("nccl-tests/failure_before_device_lines.txt")
    named = dataclasses.replace(bare, name="all_gather_perf-node1.log")
    spec["tests"]["nccl_tests"]["collectives"] = ["all_gather"]
    results = run(spec, named)
    aborted = by_name(results, "nccl-tests all_gather: completed")[0]
    assert aborted.status == "fail" and aborted.message.startswith("The all_gather run on ")
    size = by_name(results, "nccl-tests all_gather: size range")[0]
    assert size.measured == "no rows" and "result rows" in size.message
    assert "—" not in size.message
    # Nothing names the collective: the checks say the tool, not "unknown collective".
    unnamed = {r.name for r in run(spec, bare)}
    assert "nccl-tests: completed" in unnamed
    assert not any("unknown" in name for name in unnamed)


def test_partial_output_is_inconclusive(spec):
    results = run(spec, data_item("nccl-tests/all_reduce_partial_no_header_no_trailer.txt"))
    assert by_name(results, "nccl-tests all_reduce: rank count")[0].status == "inconclusive"
    assert by_name(results, "nccl-tests all_reduce: completed")[0].status == "inconclusive"


def test_override_value_is_the_agreed_threshold(spec):
    spec["overrides"] = [
        {
            "field": "thresholds.busbw_gbps.all_reduce",
            "default": 431.0,
            "value": 250.0,
            "reason": "r",
            "by": "b",
            "at": "t",
        }
    ]
    assert load_spec(spec).busbw_threshold("all_reduce") == 250.0
    results = run(spec, item(nccl_text(peak=300.0)))
    assert by_name(results, "nccl-tests all_reduce: large-message busbw")[0].status == "pass"


def test_bisection_names_the_one_slow_node_among_four(spec):
    spec["allocation"]["nodes"] = 4
    spec["tests"]["bisection"] = True
    nodes = ["node-a", "node-b", "node-c", "node-d"]
    pairs = []
    for a, b in itertools.combinations(nodes, 2):
        peak = 250.0 if "node-c" in (a, b) else 470.0
        pairs.append(item(nccl_text(hosts=(a, b), peak=peak), node=f"{a}+{b}", ref=f"{a}+{b}"))
    check = by_name(run(spec, *pairs), "node subsets: slow node")[0]
    assert check.status == "fail" and check.measured == "node-c" and "node-c" in check.message
    assert check.mandatory


def test_bisection_all_fast_passes(spec):
    pairs = [item(nccl_text(hosts=(a, b)), node=f"{a}+{b}") for a, b in [("x", "y"), ("y", "z")]]
    spec["allocation"]["nodes"] = 3
    assert by_name(run(spec, *pairs), "node subsets: slow node")[0].status == "pass"


def test_bisection_without_a_common_node(spec):
    spec["allocation"]["nodes"] = 4
    pairs = [
        item(nccl_text(hosts=p, peak=200.0), node="+".join(p)) for p in [("a", "b"), ("c", "d")]
    ]
    check = by_name(run(spec, *pairs), "node subsets: slow node")[0]
    assert check.status == "fail" and "share no node" in check.message


def test_inf_busbw_in_the_large_rows_blocks_instead_of_passing(spec):
    lines = nccl_text().split("\n")
    first = None
    for i, line in enumerate(lines):
        cells = line.split()
        if len(cells) == 13 and cells[0].isdigit() and int(cells[0]) >= 1 << 30:
            cells[7] = cells[11] = "inf"
            lines[i] = "  ".join(cells)
            first = first or i + 1
    results = run_checks(spec, [item("\n".join(lines), ref="all_reduce.txt")])
    assert not [r for r in results if "busbw" in r.name and r.status == "pass"]
    unreadable = by_name(results, "nccl-tests: readable")[0]
    assert unreadable.status == "inconclusive" and unreadable.mandatory
    assert unreadable.line == first and "busbw" in unreadable.message


def test_a_seed_001_sweep_covers_a_new_fixtures_default_range(spec):
    """GIVEN a new fixture's default sweep (8 MiB to 8 GiB, seed 001) WHEN the provider runs
    `-b 8M -e 8G -f 2` THEN the size range passes; before, the 8-byte default failed it."""
    from engine.evidence.fixtures import default_spec

    sweep = default_spec(gpu_model="H200", nodes=2, gpus_per_node=8, fabric="ndr400-ib")
    spec["tests"]["nccl_tests"]["min_bytes"] = sweep["tests"]["nccl_tests"]["min_bytes"]
    text = nccl_text(lo=8 << 20, hi=8 << 30)
    (check,) = by_name(run(spec, item(text)), "nccl-tests all_reduce: size range")
    assert check.status == "pass", check.message
    assert check.message == "The all_reduce sweep covers 8 MiB to 8 GiB; 8 MiB to 8 GiB agreed."


def test_an_output_that_prints_no_nccl_version_says_so_in_words(spec):
    """With no version agreed and none printed, the warning reads as a sentence, never as
    'the run used not printed'."""
    spec["runtime"]["nccl_version"] = None
    text = "".join(line + "\n" for line in nccl_text().splitlines() if "NCCL version" not in line)
    check = by_name(run(spec, item(text)), "nccl-tests all_reduce: NCCL version")[0]
    assert (check.status, check.measured) == ("warn", "not printed")
    assert check.message == (
        "The fixture agrees no NCCL version; the all_reduce output does not print one. "
        "Agree one in the fixture's runtime to check it."
    )


def test_an_rccl_tests_run_is_checked_against_the_agreed_version(spec):
    spec["allocation"]["nodes"], spec["gpu_model"] = 1, "MI300X"
    spec["runtime"]["nccl_version"] = "2.22.3"
    rccl = data_item("nccl-tests/rccl_all_reduce_1node_8xmi300x_version_banner.txt")
    check = by_name(run(spec, rccl), "nccl-tests all_reduce: NCCL version")[0]
    assert (check.status, check.measured) == ("pass", "2.22.3")
    spec["runtime"]["nccl_version"] = "2.27.7"
    check = by_name(run(spec, rccl), "nccl-tests all_reduce: NCCL version")[0]
    assert check.status == "fail"
    assert check.message == "The all_reduce run used RCCL 2.22.3; 2.27.7 agreed."
    nvidia = by_name(run(spec, item(nccl_text())), "nccl-tests all_reduce: NCCL version")[0]
    assert " run used NCCL " in nvidia.message


def test_bitwise_mismatches_fail_the_run(spec):
    results = run(
        spec, data_item("nccl-tests/all_reduce_v2.18_bitwise_check_cputime_12_mismatches.txt")
    )
    check = by_name(results, "nccl-tests all_reduce: bitwise repeatability")[0]
    assert check.status == "fail" and check.measured == "12 mismatches"
    names = {r.name for r in run(spec, item(nccl_text()))}
    assert "nccl-tests all_reduce: bitwise repeatability" not in names  # only with -B
