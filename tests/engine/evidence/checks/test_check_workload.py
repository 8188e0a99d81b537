"""Fixture output and step-time checks."""

from check_builders import by_name, fixture_lines, item, step_csv

from engine.evidence.checks import run_checks


def checks(spec, group, *items):
    return [r for r in run_checks(spec, list(items)) if r.group == group]


def test_fixture_good(spec):
    res = checks(spec, "fixture-result", item(fixture_lines()))
    assert {r.status for r in res} == {"pass"}, [(r.name, r.message) for r in res]
    assert "120" in by_name(res, "fixture-result: sum values")[0].message


def test_fixture_split_over_node_files(spec):
    lines = fixture_lines().splitlines(keepends=True)
    a, b = item("".join(lines[:8]), node="gpu-a01"), item("".join(lines[8:]), node="gpu-a02")
    assert {r.status for r in checks(spec, "fixture-result", a, b)} == {"pass"}


def test_fixture_wrong_value_names_rank_and_line(spec):
    res = checks(
        spec, "fixture-result", item(fixture_lines(override={5: {"pass": False, "max": 119}}))
    )
    check = by_name(res, "fixture-result: sum values")[0]
    assert check.status == "fail" and check.line == 6 and "rank 5" in check.message


def test_fixture_missing_and_duplicate_ranks(spec):
    text = fixture_lines(override={3: {"rank": 4}})
    check = by_name(checks(spec, "fixture-result", item(text)), "fixture-result: ranks")[0]
    assert check.status == "fail" and "missing ranks 3" in check.measured
    assert "duplicate ranks 4" in check.measured


def test_fixture_count_dtype_and_version(spec):
    res = checks(
        spec,
        "fixture-result",
        item(fixture_lines(override={2: {"dtype": "float32"}, 7: {"nccl_version": "2.21.5"}})),
    )
    assert by_name(res, "fixture-result: count and dtype")[0].status == "fail"
    assert by_name(res, "fixture-result: NCCL version")[0].status == "fail"


def test_sixteen_ranks_on_one_host_do_not_cross_the_fabric(spec):
    text = fixture_lines(override={r: {"host": "gpu-a01"} for r in range(16)})
    res = checks(spec, "fixture-result", item(text))
    check = by_name(res, "fixture-result: nodes")[0]
    assert check.status == "fail" and check.measured == "1 host: gpu-a01 16"
    assert "did not cross every node" in check.message
    assert by_name(res, "fixture-result: ranks")[0].status == "pass"  # the ranks are all there


def test_an_uneven_spread_over_the_nodes_is_named(spec):
    text = fixture_lines(override={r: {"host": "gpu-a01"} for r in (8, 9, 10, 11)})
    check = by_name(checks(spec, "fixture-result", item(text)), "fixture-result: nodes")[0]
    assert check.status == "fail" and check.measured == "2 hosts: gpu-a01 12, gpu-a02 4"


def test_step_times_good(spec):
    res = checks(spec, "step-times", item(step_csv()))
    assert {r.status for r in res} == {"pass"}


def test_step_times_straggler_and_spread(spec):
    res = checks(spec, "step-times", item(step_csv(slow={11: 0.2})))
    strag = by_name(res, "step-times: stragglers")[0]
    assert strag.status == "fail" and "rank 11 (gpu-a02)" in strag.message
    assert by_name(res, "step-times: spread")[0].status == "fail"


def test_step_times_missing_ranks(spec):
    res = checks(spec, "step-times", item(step_csv(n=12)))
    assert by_name(res, "step-times: ranks")[0].status == "fail"


def test_spread_over_two_uploads_links_the_file_that_sets_it(spec):
    first = item(step_csv(), ref="steps-1.csv")
    second = item(step_csv(slow={3: 0.03}), ref="steps-2.csv")
    spread = by_name(checks(spec, "step-times", first, second), "step-times: spread")[0]
    assert spread.evidence_ref == "steps-2.csv" and spread.line == 5  # rank 3's first row
    assert "combined over 2 files: steps-1.csv, steps-2.csv" in spread.message
    assert "slowest rank 3 (gpu-a01)" in spread.message


def test_an_nccl_version_the_fixture_leaves_empty_is_reported_not_agreed(spec):
    spec["runtime"]["nccl_version"] = None
    res = checks(spec, "fixture-result", item(fixture_lines()))
    version = by_name(res, "fixture-result: NCCL version")[0]
    assert (version.status, version.expected) == ("warn", "not agreed")
    assert "agrees no NCCL version; it ran with NCCL 2.27.3" in version.message
    assert {r.status for r in res} == {"pass", "warn"}  # a warning, not a failure
