"""nccl-tests text and JSON output, every layout variant we know of."""

import re

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, nccl_rows, nccl_tests, parse_evidence, to_json
from engine.evidence.parsers.base import NcclTestsError
from engine.evidence.runtime_versions import node_versions

D = "nccl-tests/"


def test_it_reads_a_full_two_node_run(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_2node_v2.17_full.txt"))
    assert (r.collective, r.ranks, r.nodes) == ("all_reduce", 16, ("gpu-a01", "gpu-a02"))
    assert r.nccl_version == "2.27.3" and r.nccl_tests_version == "2.17.4"
    assert (r.min_bytes, r.max_bytes, r.step_factor, r.iters) == (8, 8589934592, 2, 20)
    assert r.rows[0].size == 8 and r.rows[-1].size == 8589934592
    assert r.rows[-1].out_of_place.wrong == 0 and r.out_of_bounds == 0 and r.complete
    assert r.devices[9].host == "gpu-a02" and r.devices[9].device == 1
    assert r.devices[0].bus_id == "0000:1a:00" and r.devices[0].pid == 40100


def test_an_older_rccl_tests_header_with_colons_still_gives_the_sweep(evidence):
    """rccl-tests of 2023 write "# nThreads: 1 nGpus: 4 nRanks: 1 minBytes: 8 ...", and this
    run failed before its first row: the sweep and the failure are both kept."""
    raw = evidence(D + "rccl_all_reduce_4xmi210_nthreads_colons_internal_error.txt")
    assert detect_kind(raw) == nccl_tests.KIND
    r = nccl_tests.parse(raw)
    assert (r.min_bytes, r.max_bytes, r.step_factor, r.warmup_iters, r.iters) == (
        8,
        134217728,
        2,
        5,
        20,
    )
    assert r.validation == 1 and r.ranks == 4 and r.rows == () and not r.complete
    assert r.errors[0].startswith("sharbox-ultra: Test NCCL failure common.cu:1285 'internal")
    assert r.library == "RCCL"  # no banner: the AMD Instinct devices say whose library ran


def test_it_keeps_the_rccl_version_of_an_rccl_tests_run(evidence):
    """GIVEN rccl-tests on 8 MI300X with NCCL_DEBUG=VERSION (RCCL's banner, then its HIP and
    ROCm lines) THEN the RCCL version is the run's NCCL version, by host as well, and the HIP
    runtime is not taken for a CUDA one."""
    raw = evidence(D + "rccl_all_reduce_1node_8xmi300x_version_banner.txt")
    assert detect_kind(raw) == nccl_tests.KIND
    r = nccl_tests.parse(raw)
    assert (r.nccl_version, r.nccl_tests_version, r.cuda_version) == (
        "2.22.3",
        "develop:5272cd1",
        None,
    )
    assert (r.collective, r.ranks, r.nodes, len(r.rows), r.complete) == (
        "all_reduce",
        8,
        ("gpuf2b8",),
        14,
        True,
    )
    assert r.library == "RCCL"
    stored = {"kind": nccl_tests.KIND, "parsed": to_json(r)}
    assert node_versions(files=[stored]) == {"gpuf2b8": {"nccl": ["2.22.3"]}}


def test_nvidia_s_nccl_tests_run_is_nccl_s(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_srun_label_validation0_na.txt"))
    assert r.library == "NCCL"


def test_it_reads_pre_2_13_output_with_the_error_column(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_pre2.13_error_column_no_hash_trailer.txt"))
    assert r.error_column == "max_delta" and r.ranks == 16
    assert r.rows[0].out_of_place.max_delta == 0.0 and r.rows[0].out_of_place.wrong is None
    assert r.out_of_bounds == 0 and r.avg_busbw is not None


def test_it_strips_srun_labels_and_keeps_na_as_null(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_srun_label_validation0_na.txt"))
    assert r.validation == 0 and r.ranks == 16
    assert all(row.out_of_place.wrong is None and row.in_place.wrong is None for row in r.rows)
    assert to_json(r)["rows"][0]["out_of_place"]["wrong"] is None


def test_it_skips_openmpi_boxes_inside_the_table(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_openmpi_warnings_inside_table.txt"))
    assert r.collective == "all_reduce" and len(r.rows) == 21 and r.nccl_version == "2.23.4"


def test_it_strips_mpirun_tag_output(evidence):
    r = nccl_tests.parse(evidence(D + "all_gather_tag_output_prefix.txt"))
    assert (r.collective, r.ranks, r.rows[0].redop) == ("all_gather", 2, "none")


def test_a_run_cut_mid_row_keeps_the_rows_it_reached(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_truncated_mid_row.txt"))
    assert r.truncated and not r.complete and len(r.rows) == 4
    assert r.rows[-1].size == 1073741824


def test_it_recovers_overflowing_columns(evidence):
    r = nccl_tests.parse(evidence(D + "all_gather_1node_column_overflow.txt"))
    last = r.rows[-1]
    assert last.in_place.algbw == pytest.approx(1128.28) and last.in_place.busbw == 564.14
    assert r.rows[-2].in_place.algbw == pytest.approx(1095.65)


def test_aborted_runs_parse_with_their_failure_lines(evidence):
    before = nccl_tests.parse(evidence(D + "failure_before_device_lines.txt"))
    assert (
        before.ranks is None
        and not before.rows
        and "system not yet initialized" in before.errors[0]
    )
    after = nccl_tests.parse(evidence(D + "failure_after_header_no_rows.txt"))
    assert after.ranks == 2 and len(after.errors) == 3 and after.error_line is not None


def test_partial_output_without_header_or_devices(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_partial_no_header_no_trailer.txt"))
    assert r.ranks is None and r.collective == "all_reduce" and r.rows[-1].size == 17179869184
    assert r.out_of_bounds is None and not r.complete


def test_a_short_row_mid_table_names_the_line(evidence):
    with pytest.raises(NcclTestsError) as exc:
        nccl_tests.parse(evidence(D + "broken_short_row_mid_table.txt"))
    assert exc.value.line == 20
    assert str(exc.value) == "line 20: expected 13 columns in a nccl-tests data row, found 7"


def test_it_infers_alltoall_from_in_place_na(evidence):
    assert (
        nccl_tests.parse(evidence(D + "alltoall_inplace_na_inferred.txt")).collective == "alltoall"
    )


def test_it_keeps_later_runs_of_the_same_file(evidence):
    r = nccl_tests.parse(evidence(D + "two_runs_all_reduce_then_all_gather.txt"))
    assert r.collective == "all_reduce" and [x.collective for x in r.runs] == ["all_gather"]


def test_it_reports_wrong_and_out_of_bounds(evidence):
    r = nccl_tests.parse(evidence(D + "all_reduce_wrong_and_oob_failed.txt"))
    assert r.out_of_bounds == 3 and r.rows[0].out_of_place.wrong == 3


def test_it_reads_the_json_output(evidence):
    r = parse_evidence(evidence(D + "all_reduce_json_output.json"))
    assert (r.collective, r.ranks, r.nccl_version, r.out_of_bounds) == (
        "all_reduce",
        16,
        "2.27.3",
        0,
    )
    assert r.rows[-1].out_of_place.busbw > 400 and r.source_format == "json"
    assert r.nodes == ("gpu-j01", "gpu-j02")


def test_truncated_json_is_a_line_specific_error(evidence):
    data = evidence(D + "all_reduce_json_output.json")[:900]
    with pytest.raises(NcclTestsError) as exc:
        nccl_tests.parse(data)
    assert exc.value.line is not None


def test_json_export_has_the_contract_keys(evidence):
    out = to_json(nccl_tests.parse(evidence(D + "all_reduce_2node_v2.17_full.txt")))
    for key in (
        "kind",
        "collective",
        "ranks",
        "rows",
        "out_of_bounds",
        "avg_busbw",
        "nccl_version",
        "devices",
        "errors",
        "min_bytes",
        "max_bytes",
        "nodes",
    ):
        assert key in out
    assert out["kind"] == "nccl-tests"
    assert set(out["rows"][0]) >= {"size", "count", "type", "redop", "out_of_place", "in_place"}
    assert set(out["rows"][0]["out_of_place"]) >= {"time_us", "algbw", "busbw", "wrong"}


def _with_large_rows(text: bytes, column: int, token: str) -> tuple[bytes, int]:
    """Put `token` in one column of every >= 1 GiB data row; return the text and first row."""
    lines = text.decode().split("\n")
    first = 0
    for i, line in enumerate(lines):
        cells = line.split()
        if len(cells) == 13 and cells[0].isdigit() and int(cells[0]) >= 1 << 30:
            cells[column] = token
            lines[i] = "  ".join(cells)
            first = first or i + 1
    return "\n".join(lines).encode(), first


@pytest.mark.parametrize("token", ["inf", "nan", "-inf", "1e400"])
def test_a_non_finite_busbw_names_its_line(evidence, token):
    text, first = _with_large_rows(evidence(D + "all_reduce_2node_v2.17_full.txt"), 7, token)
    with pytest.raises(NcclTestsError) as exc:
        nccl_tests.parse(text)
    assert exc.value.line == first and "busbw" in str(exc.value) and token in str(exc.value)


@pytest.mark.parametrize("token", ["nan", "inf", "1.5", "-1"])
def test_a_wrong_count_that_is_no_count_names_its_line(evidence, token):
    text, first = _with_large_rows(evidence(D + "all_reduce_2node_v2.17_full.txt"), 8, token)
    with pytest.raises(NcclTestsError) as exc:
        nccl_tests.parse(text)
    assert exc.value.line == first and "#wrong" in str(exc.value)


def test_a_number_too_long_for_int_names_its_line(evidence):
    text = evidence(D + "all_reduce_2node_v2.17_full.txt").replace(
        b"Out of bounds values : 0", b"Out of bounds values : " + b"9" * 5000
    )
    with pytest.raises(NcclTestsError) as exc:
        nccl_tests.parse(text)
    assert exc.value.line is not None and "too many digits" in str(exc.value)


def test_json_busbw_nan_or_infinity_is_refused(evidence):
    text = evidence(D + "all_reduce_json_output.json").decode()
    bad = re.sub(r'"bus_bw":\s*[0-9.]+', '"bus_bw": Infinity', text, count=1)
    assert bad != text
    with pytest.raises(NcclTestsError, match="finite"):
        nccl_tests.parse(bad)


def test_a_size_past_any_float_on_every_row_is_read_or_refused_never_a_crash():
    """Found by the fuzzing below: a 400-digit size made the collective's inference divide
    into an OverflowError (a size past any float over a count of a few elements)."""
    from tests.engine.evidence.parsers.parser_fuzzing import must_parse_or_raise, samples

    for data in samples("nccl-tests"):
        lines = data.splitlines(keepends=True)
        rows = [i for i, line in enumerate(lines) if line.strip()[:1].isdigit()]
        if not rows:
            continue
        last = rows[-1]
        fields = lines[last].split()
        lines[last] = b" ".join([b"9" * 400, *fields[1:]]) + b"\n"
        must_parse_or_raise(nccl_tests.parse, NcclTestsError, b"".join(lines))


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("nccl-tests", nccl_tests.parse, NcclTestsError)


def test_the_quick_row_path_reads_every_sample_as_the_checked_path_does(monkeypatch):
    """Rows are read by a quick path and, when anything is unusual, token by token; on every
    sample both must give the same result (the quick path is only a shortcut)."""
    from tests.engine.evidence.parsers.parser_fuzzing import samples

    def outcome(data: bytes) -> object:
        try:
            return nccl_tests.parse(data)
        except NcclTestsError as exc:
            return ("refused", exc.line, str(exc))

    texts = list(samples("nccl-tests"))
    quick = [outcome(t) for t in texts]
    assert any(not isinstance(o, tuple) and o.rows for o in quick)
    monkeypatch.setattr(nccl_rows, "_plain_row", lambda tokens, lineno: None)
    assert [outcome(t) for t in texts] == quick


@pytest.mark.parametrize(
    ("root", "readable"), [("-1", True), ("0", True), ("+5", False), ("1_0", False)]
)
def test_a_root_is_an_optional_minus_and_digits(evidence, root, readable):
    text, first = _with_large_rows(evidence(D + "all_reduce_2node_v2.17_full.txt"), 4, root)
    if readable:
        rows = nccl_tests.parse(text).rows
        assert {r.root for r in rows if r.size >= 1 << 30} == {int(root)}
    else:
        with pytest.raises(NcclTestsError) as exc:
            nccl_tests.parse(text)
        assert exc.value.line == first and "columns" in str(exc.value)


def test_an_fp8_type_with_an_underscore_reads(evidence):
    text, _ = _with_large_rows(evidence(D + "all_reduce_2node_v2.17_full.txt"), 2, "fp8_e4m3")
    rows = nccl_tests.parse(text).rows
    assert {r.type for r in rows if r.size >= 1 << 30} == {"fp8_e4m3"}


def test_it_reads_the_layout_from_before_the_root_column(evidence):
    """Releases of about 2019-2020 print 12 columns: no root, and a max-error column."""
    r = nccl_tests.parse(evidence(D + "all_reduce_no_root_column_error_column_4xv100.txt"))
    assert (r.collective, r.ranks, r.error_column) == ("all_reduce", 4, "max_delta")
    assert [row.size for row in r.rows] == [8, 1024, 1048576, 1073741824]
    last = r.rows[-1]
    assert (last.root, last.out_of_place.busbw, last.in_place.busbw) == (-1, 115.95, 116.08)
    assert last.out_of_place.max_delta == 2e-07 and r.complete


def test_it_names_the_column_count_of_the_old_layout_in_a_broken_row():
    text = (
        "#       size         count    type   redop     time   algbw   busbw  error"
        "     time   algbw   busbw  error\n"
        "           8             2   float     sum    59.98    0.00    0.00  2e-07    56.81\n"
        "          16             4   float     sum    57.20    0.00    0.00  1e-07"
        "    56.10    0.00    0.00  1e-07\n"
    )
    with pytest.raises(NcclTestsError, match=r"line 2: expected 12 columns .* found 9"):
        nccl_tests.parse(text)


def test_it_refuses_separate_runs_of_a_build_without_mpi(evidence):
    """Each srun task printed its own "Rank 0": two single-node tests, not one two-node run."""
    with pytest.raises(NcclTestsError) as caught:
        nccl_tests.parse(
            evidence(D + "broken_no_mpi_build_two_processes_srun_label_interleaved.txt")
        )
    assert caught.value.line == 8
    assert "rank 0 is listed twice, on h100-n01 (pid 81234) and on h100-n02" in str(caught.value)
    assert "MPI=1" in str(caught.value)


def test_it_reads_the_bitwise_columns_and_their_trailer(evidence):
    """-B adds a #bitdiff column to each side and a "Bitwise mismatches" trailer line."""
    r = nccl_tests.parse(evidence(D + "all_reduce_v2.18_bitwise_check_cputime_12_mismatches.txt"))
    assert (r.ranks, r.bitwise_mismatches, r.out_of_bounds, r.complete) == (2, 12, 0, True)
    assert [(row.out_of_place.busbw, row.in_place.busbw) for row in r.rows][-1] == (87.53, 87.83)
    assert all(row.in_place.wrong == 0 and row.out_of_place.wrong == 0 for row in r.rows)
    assert to_json(r)["bitwise_mismatches"] == 12


def test_it_reads_json_version_3(evidence):
    """Version 3 writes the root as a padded string, cpu_time under -C, null for a side not run."""
    r = nccl_tests.parse(evidence(D + "all_reduce_json_v3_cputime_padded_root_null_side.json"))
    assert (r.collective, r.ranks, r.nodes) == ("all_reduce", 2, ("h200-j01", "h200-j02"))
    assert [row.root for row in r.rows] == [-1, -1] and r.rows[0].out_of_place.time_us == 21.4
    assert r.rows[1].out_of_place is None and r.rows[1].in_place.busbw == 69.95


def test_json_nan_is_refused_naming_the_result(evidence):
    with pytest.raises(NcclTestsError, match=r"results\[1\] \(size 2097152\) in_place: .*'nan'"):
        nccl_tests.parse(evidence(D + "broken_json_v3_nan_algbw.json"))


def test_it_reads_kubectl_logs_with_timestamps(evidence):
    """`kubectl logs --timestamps` of an MPIJob launcher stamps every line in RFC 3339."""
    raw = evidence(D + "all_reduce_mpijob_kubectl_logs_timestamps.txt")
    assert detect_kind(raw) == "nccl-tests"
    r = parse_evidence(raw)
    assert (r.ranks, r.nodes, r.complete) == (2, ("mpijob-worker-0", "mpijob-worker-1"), True)
    assert [row.size for row in r.rows] == [1 << 30, 1 << 31, 1 << 32] and r.rows[0].line == 10
    assert r.rows[-1].in_place.busbw == 45.90
