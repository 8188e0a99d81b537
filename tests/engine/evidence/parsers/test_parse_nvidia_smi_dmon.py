"""nvidia-smi dmon: the two header lines, -o DT/T stamps, repeated headers, `-`, and the row a
lost GPU leaves, which is data rather than a broken file."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, parse_evidence, to_json
from engine.evidence.parsers.base import DmonError
from engine.evidence.parsers.nvidia_smi_dmon import KNOWN_COLUMNS, DmonResult, parse
from engine.evidence.parsers.restore import from_json

D = "nvidia-smi-dmon/"


def test_select_pucvmet_with_date_and_time_across_eight_gpus(evidence):
    r = parse_evidence(evidence(D + "dmon_pucvmet_DT_8xh100_under_load_header_repeats.txt"))
    assert isinstance(r, DmonResult) and r.origin is not None and r.origin.node == "gpu-a01"
    assert r.stamps == ("date", "time") and r.columns == KNOWN_COLUMNS
    assert r.units[:3] == ("W", "C", "C") and r.units[12] == "bool"
    assert r.gpus == tuple(range(8)) and len(r.samples) == 56  # the repeated header is no row
    first = r.samples[0]
    assert (first.date, first.time, first.gpu, first.line) == ("20261203", "20:16:05", 0, 4)
    assert r.reading(first, "pwr") == 635 and r.reading(first, "mclk") == 2619
    assert r.reading(first, "fb") == 71203 and not first.truncated and not first.blank


def test_a_row_cut_short_when_a_gpu_is_lost_is_kept_as_a_sample(evidence):
    r = parse(evidence(D + "dmon_pucet_4xv100_gpu2_row_cut_short_mid_capture.txt"))
    lost = next(s for s in r.samples if s.truncated)
    assert (lost.gpu, lost.line, lost.blank) == (2, 17, True)
    assert r.reading(lost, "pwr") is None and len(lost.values) == len(r.columns)
    assert r.reading(r.samples[0], "mtemp") is None  # `-`: not reported by this GPU
    assert r.gpus == (0, 1, 2, 3) and r.samples[-1].gpu == 3


def test_time_only_stamps_and_a_blank_line_between_rows(evidence):
    r = parse(evidence(D + "dmon_pu_T_2xh100_gpu1_all_dashes_after_readings.txt"))
    assert r.stamps == ("time",) and r.samples[0].date is None and r.samples[0].time == "04:12:44"
    dashes = r.samples[-1]
    assert dashes.gpu == 1 and dashes.blank and not dashes.truncated


def test_a_capture_that_ends_on_the_row_of_the_gpu_that_fell_off_the_bus(evidence):
    data = evidence(D + "dmon_pucet_4xk80_last_row_cut_short_gpu1_lost.txt")
    assert detect_kind(data) == "nvidia-smi-dmon"
    r = parse(data)
    last = r.samples[-1]
    assert (last.gpu, last.truncated, last.blank, last.line) == (1, True, True, 11)
    assert r.reading(r.samples[0], "dbecc") == 0 and r.reading(r.samples[0], "rxpci") is None


def test_a_column_this_parser_does_not_know_is_kept_by_name():
    text = (
        "# gpu    pwr  gtemp  nvlrx\n"
        "# Idx      W      C   MB/s\n"
        "    0    402     51    880\n"
        "    1    399     50      -\n"
    )
    r = parse(text)
    assert r.columns == ("pwr", "gtemp", "nvlrx")
    assert [s.values[2] for s in r.samples] == [880, None]


def test_nvidia_smi_messages_in_the_capture_are_kept_with_their_line():
    text = (
        "# gpu    pwr  gtemp\n"
        "# Idx      W      C\n"
        "    0    402     51\n"
        "Unable to determine the device handle for GPU0000:05:00.0: GPU is lost.\n"
    )
    r = parse(text)
    assert [(m.line, m.text[:22]) for m in r.messages] == [(4, "Unable to determine th")]


def test_pmon_is_not_taken_for_dmon():
    pmon = (
        "# gpu         pid   type     sm    mem    enc    dec    command\n"
        "# Idx           #    C/G      %      %      %      %    name\n"
        "    0      41532     C     99     45      -      -    python3\n"
    )
    with pytest.raises(Exception, match="unrecognised evidence"):
        detect_kind(pmon)


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("broken_units_line_missing.txt", 2, "expected the units line"),
        ("broken_value_not_a_number.txt", 4, "pwr reads '4O9'"),
        ("broken_two_captures_different_columns.txt", 4, "two captures in one file"),
    ],
)
def test_errors_name_the_line(evidence, name, line, words):
    with pytest.raises(DmonError) as exc:
        parse(evidence(D + name))
    assert exc.value.line == line and words in str(exc.value)


def test_more_values_than_columns_is_refused_on_its_line():
    with pytest.raises(DmonError, match="holds 3 values but the header on line 1 names 2"):
        parse("# gpu    pwr  gtemp\n# Idx      W      C\n    0    402     51     9\n")


def test_a_header_without_rows_is_refused():
    with pytest.raises(DmonError, match="no sample row") as exc:
        parse("# gpu    pwr\n# Idx      W\n")
    assert exc.value.line == 1


def test_the_stored_result_reads_back_as_parsed(evidence):
    r = parse_evidence(evidence(D + "dmon_pe_2xh200_gpu1_dbe_gpu0_pcie_replays_rising.txt"))
    assert from_json(to_json(r)) == r


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("nvidia-smi-dmon", parse, DmonError)
