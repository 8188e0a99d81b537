"""nvidia-smi inventory: --query-gpu CSV, the table (narrow, wide, 590) and -q."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, nvidia_smi_query
from engine.evidence.parsers.base import GpuQueryError, UnrecognisedEvidence

D = "nvidia-smi-query/"
ECC = "ecc.errors.uncorrected.volatile.total"


def test_csv_with_units_maps_onto_canonical_keys(evidence):
    r = nvidia_smi_query.parse(evidence(D + "query_gpu_csv_units_8xh200_one_ecc.txt"))
    g = r.gpus[5]
    assert (g["name"], g["pci.bus_id"], g["memory.total"], g[ECC]) == (
        "NVIDIA H200",
        "00000000:6B:00.0",
        143771,
        2,
    )
    assert g["power.draw"] == pytest.approx(93.5) and r.driver_version == "560.35.03"


def test_csv_without_header_or_units_uses_the_bundle_field_list(evidence):
    r = nvidia_smi_query.parse(evidence(D + "query_gpu_csv_noheader_nounits.txt"))
    assert len(r.gpus) == 8 and r.gpus[0]["memory.total"] == 143771 and r.gpus[0][ECC] is None


def test_a_csv_header_with_mixed_case_field_names_is_a_header():
    """GIVEN --query-gpu with every field, some named in camelCase (nvidia-smi 590)
    THEN the first line is read as the header, not refused as a header-less CSV."""
    fields = "timestamp, driver_version, vgpu_device_capability.fractional_multiVgpu, name, index"
    row = "2026/07/14 08:12:38.696, 590.48.01, [N/A], NVIDIA H100 80GB HBM3, 0"
    r = nvidia_smi_query.parse(f"{fields}\n{row}\n")
    assert r.gpus[0]["name"] == "NVIDIA H100 80GB HBM3" and r.driver_version == "590.48.01"
    assert r.gpus[0]["vgpu_device_capability.fractional_multiVgpu"] is None


@pytest.mark.parametrize(
    ("name", "count", "driver", "ecc"),
    [
        ("table_wide_8xh200_drv560.txt", 8, "560.35.03", 0),
        ("table_590_separator_2gpu.txt", 2, "560.35.03", 0),
        ("table_narrow_pre530_2xa100_ecc_na.txt", 2, "515.65.01", None),
    ],
)
def test_tables(evidence, name, count, driver, ecc):
    r = nvidia_smi_query.parse(evidence(D + name))
    assert r.source_format == "table" and len(r.gpus) == count and r.driver_version == driver
    assert r.gpus[1][ECC] == ecc and isinstance(r.gpus[1]["memory.total"], int)
    assert r.gpus[1]["temperature.gpu"] > 0 and r.gpus[1]["pci.bus_id"].startswith("00000000:")


def test_full_q_report_sums_ecc_counters(evidence):
    r = nvidia_smi_query.parse(evidence(D + "nvidia_smi_q_2xh200_sram_secded.txt"))
    assert r.source_format == "query" and r.driver_version == "560.35.03"
    assert [g[ECC] for g in r.gpus] == [0, 1]
    assert r.gpus[0]["ecc.errors.uncorrected.aggregate.total"] == 2
    assert r.gpus[0]["memory.total"] == 143771 and r.gpus[0]["remapped_rows.pending"] is False


def test_compute_apps_output_is_refused(evidence):
    with pytest.raises(GpuQueryError, match="query-compute-apps"):
        nvidia_smi_query.parse(evidence(D + "query_compute_apps_not_gpus.txt"))
    with pytest.raises(UnrecognisedEvidence):
        detect_kind(evidence(D + "query_compute_apps_not_gpus.txt"))


def test_a_short_csv_row_names_its_line(evidence):
    with pytest.raises(GpuQueryError) as exc:
        nvidia_smi_query.parse(evidence(D + "broken_csv_wrong_field_count.txt"))
    assert exc.value.line == 3


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "9" * 5000])
def test_a_counter_that_is_no_number_names_its_line(evidence, value):
    text = evidence(D + "query_gpu_csv_units_8xh200_one_ecc.txt").decode()
    lines = text.split("\n")
    lines[2] = lines[2].replace("143771 MiB, 0,", f"143771 MiB, {value},")
    with pytest.raises(GpuQueryError) as exc:
        nvidia_smi_query.parse("\n".join(lines))
    assert exc.value.line == 3 and ECC in str(exc.value)


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("nvidia-smi-query", nvidia_smi_query.parse, GpuQueryError)


def test_table_with_mig_reads_ecc_from_the_mig_devices_not_the_on_cell(evidence):
    """With MIG on the ECC cell reads "On"; counts sit on the instances, whose zero sum does
    not cover the whole GPU and so stays unknown."""
    r = nvidia_smi_query.parse(evidence(D + "table_mig_enabled_2of3_gpus_instance_ecc.txt"))
    assert [g[ECC] for g in r.gpus] == [2, None, 0]
    assert [g["mig.mode.current"] for g in r.gpus] == ["Enabled", "Enabled", "Disabled*"]
    assert [g.get("mig.devices") for g in r.gpus] == [2, 1, None]
    assert r.gpus[0]["utilization.gpu"] is None and r.gpus[2]["memory.total"] == 81559


def test_table_under_the_kmd_header_keeps_the_gpu_the_driver_lost(evidence):
    r = nvidia_smi_query.parse(evidence(D + "table_kmd_header_gpu1_lost_device_handle.txt"))
    assert (r.driver_version, r.cuda_version) == ("610.43.02", "13.3")
    assert [g["index"] for g in r.gpus] == [0, 2] and r.gpu_lines == (10, 14)
    assert r.lost_gpus == (
        "Unable to determine the device handle for GPU1: 0000:41:00.0: Unknown Error",
    )


def test_csv_with_a_lost_gpu_line_between_rows(evidence):
    r = nvidia_smi_query.parse(evidence(D + "query_gpu_csv_one_gpu_lost_device_handle.txt"))
    assert [g["index"] for g in r.gpus] == [0, 2] and r.gpu_lines == (2, 4)
    assert r.lost_gpus and "GPU0000:2A:00.0" in r.lost_gpus[0]


def test_only_a_lost_gpu_is_refused_with_the_drivers_words(evidence):
    with pytest.raises(GpuQueryError, match=r"line 1: nvidia-smi lists no GPU; .*GPU0: 0000:01"):
        nvidia_smi_query.parse(evidence(D + "broken_no_devices_found_gpu0_lost.txt"))
    assert (
        detect_kind(evidence(D + "broken_no_devices_found_gpu0_lost.txt")) == nvidia_smi_query.KIND
    )


def test_csv_without_header_of_another_field_list_is_refused_not_misnamed(evidence):
    """noheader output of index,name,temperature.gpu,memory.used must not read 34 as a bus id."""
    raw = evidence(D + "broken_csv_noheader_other_fields_temperature_memory_used.txt")
    with pytest.raises(GpuQueryError, match=r"line 1: column 3 reads '34', not a PCI bus id"):
        nvidia_smi_query.parse(raw)


def test_remapped_rows_query_is_one_row_per_gpu(evidence):
    raw = evidence(D + "query_remapped_rows_gpu1_pending.txt")
    assert detect_kind(raw) == nvidia_smi_query.KIND
    r = nvidia_smi_query.parse(raw)
    assert [g["pci.bus_id"] for g in r.gpus] == ["00000000:07:00.0", "00000000:0F:00.0"]
    assert (
        r.gpus[1]["remapped_rows.uncorrectable"] == 1 and r.gpus[1]["remapped_rows.pending"] is True
    )


def test_remapped_rows_read_the_same_from_the_q_report_and_the_csv(evidence):
    """GIVEN the same two A100s as `nvidia-smi -q` (Pending: Yes/No) and as
    --query-remapped-rows CSV (1/0) THEN both give the same True/False per GPU."""
    keys = ("pci.bus_id", "remapped_rows.uncorrectable", "remapped_rows.pending",
            "remapped_rows.failure")  # fmt: skip
    q = nvidia_smi_query.parse(evidence(D + "nvidia_smi_q_2xa100_gpu1_remap_pending.txt"))
    csv = nvidia_smi_query.parse(evidence(D + "query_remapped_rows_gpu1_pending.txt"))
    read = [[tuple(g[k] for k in keys) for g in r.gpus] for r in (q, csv)]
    assert (
        read[0]
        == read[1]
        == [
            ("00000000:07:00.0", 0, False, False),
            ("00000000:0F:00.0", 1, True, False),
        ]
    )


def test_a_remapped_rows_flag_that_is_neither_yes_nor_no_names_its_line(evidence):
    text = evidence(D + "query_remapped_rows_gpu1_pending.txt").decode()
    with pytest.raises(GpuQueryError) as exc:
        nvidia_smi_query.parse(text.replace(", 0, 1, 3, 1", ", 0, Maybe, 3, 1"))
    assert exc.value.line == 3 and "remapped_rows.pending reads 'Maybe'" in str(exc.value)


def test_gpu_list_from_nvidia_smi_L(evidence):
    raw = evidence(D + "list_L_2xh100_gpu1_two_mig_devices.txt")
    assert detect_kind(raw) == nvidia_smi_query.KIND
    r = nvidia_smi_query.parse(raw)
    assert r.source_format == "list" and [g["index"] for g in r.gpus] == [0, 1]
    assert r.gpus[1]["uuid"].startswith("GPU-8a2d") and r.gpus[1]["mig.devices"] == 2
    assert "mig.devices" not in r.gpus[0] and r.gpu_lines == (1, 2)


def test_gpu_list_with_a_stray_line_is_refused_by_line():
    text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3f1c9a20-5b7e-4d11-9a0c-6e2b8f4d7a10)\nhello\n"
    with pytest.raises(GpuQueryError, match=r"line 2: expected 'GPU <n>: <name> \(UUID"):
        nvidia_smi_query.parse(text)


def test_table_saved_as_utf16_by_powershell_reads_like_the_utf8_one(evidence):
    raw = evidence(D + "table_590_2gpu_saved_by_powershell_utf16.txt")
    assert raw[:2] == b"\xff\xfe" and detect_kind(raw) == nvidia_smi_query.KIND
    assert (
        nvidia_smi_query.parse(raw).gpus
        == nvidia_smi_query.parse(evidence(D + "table_590_separator_2gpu.txt")).gpus
    )


def test_the_xml_report_reads_as_the_text_report_of_the_same_gpus(evidence):
    """`nvidia-smi -q -x` of the two H200s of nvidia_smi_q_2xh200_sram_secded.txt."""
    raw = evidence(D + "nvidia_smi_q_x_2xh200_sram_secded.xml")
    assert detect_kind(raw) == nvidia_smi_query.KIND
    xml = nvidia_smi_query.parse(raw)
    text = nvidia_smi_query.parse(evidence(D + "nvidia_smi_q_2xh200_sram_secded.txt"))
    keys = ("index", "name", "pci.bus_id", "memory.total", ECC,
            "ecc.errors.uncorrected.aggregate.total", "ecc.errors.corrected.volatile.total",
            "remapped_rows.pending", "driver_version")  # fmt: skip
    assert [[g[k] for k in keys] for g in xml.gpus] == [[g[k] for k in keys] for g in text.gpus]
    assert (xml.source_format, xml.driver_version, xml.cuda_version) == (
        "query",
        "560.35.03",
        "12.6",
    )
    assert xml.gpu_lines == (8, 98)
    assert xml.gpus[0]["power.limit"] == 700 and xml.gpus[0]["power.draw"] == 75.61


def test_the_xml_report_of_an_old_driver_sums_single_and_double_bit_totals(evidence):
    r = nvidia_smi_query.parse(evidence(D + "nvidia_smi_q_x_1xv100_drv470_double_bit.xml"))
    (gpu,) = r.gpus
    assert gpu[ECC] == 1 and gpu["ecc.errors.corrected.volatile.total"] == 3
    assert gpu["power.limit"] == 300 and gpu["name"] == "Tesla V100-SXM2-32GB"


def test_broken_or_entity_laden_xml_is_refused_with_its_line():
    with pytest.raises(GpuQueryError, match="not well-formed XML") as err:
        nvidia_smi_query.parse(
            "<?xml version='1.0'?>\n<nvidia_smi_log>\n<gpu id='0'>\n</nvidia_smi_log>"
        )
    assert err.value.line == 4
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY a "aaaa">]>\n<nvidia_smi_log/>'
    )
    with pytest.raises(GpuQueryError, match="declares no entities"):
        nvidia_smi_query.parse(bomb)
