"""Lines whose own words say whose side a failure is on: CUDA's uncorrectable ECC and NVLink
errors and its device-side assert, and the kernel's NIC driver taking a link down. Kernel lines
stamped the way rsyslog writes them today (RFC 3339) name their host."""

from __future__ import annotations

from engine.failures import Analysis, SourceFile, analyse


def _analyse(text: str, name: str = "rank3.log") -> Analysis:
    return analyse([SourceFile(name, text.encode())])


def _traceback(error: str) -> str:
    return (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "train.py", line 88, in <module>\n'
        "[rank3]:     loss.backward()\n"
        f"[rank3]: RuntimeError: CUDA error: {error}\n"
    )


def test_cudas_uncorrectable_ecc_error_is_the_clusters() -> None:
    result = _analyse(_traceback("uncorrectable ECC error encountered"))
    assert result.first_failure is not None and result.first_failure.kind == "cuda_error"
    assert result.initiating_rank == 3
    assert result.suggested_owner == "provider"
    assert "uncorrectable ECC error" in result.owner_reasons[0]


def test_cudas_uncorrectable_nvlink_error_is_the_clusters() -> None:
    text = _traceback("uncorrectable NVLink error detected during the execution")
    assert _analyse(text).suggested_owner == "provider"


def test_a_device_side_assert_is_the_jobs() -> None:
    result = _analyse(_traceback("device-side assert triggered"))
    assert result.suggested_owner == "customer"
    assert "device-side assert" in result.owner_reasons[0]


def test_a_cuda_launch_failure_still_says_nothing_of_its_side() -> None:
    assert _analyse(_traceback("unspecified launch failure")).suggested_owner == "undetermined"


def test_a_link_the_nic_driver_takes_down_is_the_clusters_on_the_host_syslog_names() -> None:
    text = (
        "2026-11-02T10:00:01.104211+00:00 gpu-a03 kernel: mlx5_core 0000:c1:00.0: "
        "Port module event: module 0, Cable unplugged\n"
        "2026-11-02T10:00:01.309876+00:00 gpu-a03 kernel: mlx5_core 0000:c1:00.0 ibp193s0: "
        "Link down\n"
    )
    result = _analyse(text, name="syslog")
    first = result.first_failure
    assert first is not None and first.kind == "link_down" and first.line_no == 1
    assert first.detail["cause"] == "cable unplugged from module 0 of 0000:c1:00.0"
    assert result.initiating_node == "gpu-a03"
    assert result.suggested_owner == "provider"


def test_a_link_down_in_dmesg_names_its_interface() -> None:
    result = _analyse("[Mon Nov  2 10:00:01 2026] mlx5_core 0000:c1:00.0 ibp193s0: Link down\n")
    assert result.first_failure is not None
    assert result.first_failure.detail["cause"] == "network link down (ibp193s0)"


def test_an_xid_under_an_rfc3339_syslog_stamp_names_its_host() -> None:
    text = (
        "2026-11-02T09:58:12.551020+00:00 gpu-b11 kernel: NVRM: Xid (PCI:0000:9b:00): 79, "
        "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    )
    result = _analyse(text, name="kern.log")
    assert (result.first_failure and result.first_failure.kind) == "xid"
    assert result.initiating_node == "gpu-b11"


def test_a_gpu_the_driver_lost_or_could_not_bring_up_is_the_clusters() -> None:
    for line, cause in (
        (
            "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n",
            "GPU 0000:3B:00.0 lost: the driver has no handle for it (Unknown Error)",
        ),
        (
            "[Mon Nov  2 10:00:01 2026] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! "
            "(0x26:0x56:1474)\n",
            "GPU 0000:3b:00.0 failed to initialise (RmInitAdapter failed)",
        ),
    ):
        result = _analyse(line, name="gpu-a05/nvidia-smi.txt")
        first = result.first_failure
        assert first is not None and first.kind == "gpu_lost"
        assert first.detail["cause"] == cause
        assert result.suggested_owner == "provider"


def test_a_link_that_went_down_at_boot_does_not_take_the_blame_from_a_later_error() -> None:
    text = (
        "2026-11-01T06:02:11.000000+00:00 gpu-a03 kernel: mlx5_core 0000:c1:00.0 ibp193s0: "
        "Link down\n"
        "2026-11-02T10:15:40.000000+00:00 gpu-a03 python[4411]: [rank3]: RuntimeError: "
        "CUDA error: device-side assert triggered\n"
    )
    result = _analyse(text, name="syslog")
    assert result.first_failure is not None and result.first_failure.kind == "cuda_error"
    assert result.suggested_owner == "customer"


def test_nccls_unhandled_cuda_error_that_ran_out_of_memory_is_the_jobs() -> None:
    text = (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/workspace/train.py", line 120, in <module>\n'
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with "
        "NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "[rank3]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "[rank3]: Last error:\n"
        "[rank3]: Cuda failure '{error}'\n"
    )
    oom = _analyse(text.replace("{error}", "out of memory"))
    assert oom.initiating_rank == 3 and oom.suggested_owner == "customer"
    assert "ran out of GPU memory" in oom.owner_reasons[0]
    # Any other CUDA failure behind it still says nothing of its side.
    other = _analyse(text.replace("{error}", "unspecified launch failure"))
    assert other.suggested_owner == "undetermined"


def _kernel(*lines: str) -> Analysis:
    stamp = "2026-03-02T10:11:40.{:06d}+00:00 gpu-node-031 kernel: "
    text = "".join(stamp.format(i) + line + "\n" for i, line in enumerate(lines))
    return _analyse(text, name="syslog")


def test_a_kernel_panic_is_the_node_crashing_the_clusters() -> None:
    result = _kernel("Kernel panic - not syncing: Fatal hardware error!")
    assert result.first_failure is not None and result.first_failure.kind == "node_crash"
    assert result.initiating_node == "gpu-node-031"
    assert result.suggested_owner == "provider"


def test_a_kernel_panic_for_out_of_memory_takes_no_side() -> None:
    result = _kernel("Kernel panic - not syncing: Out of memory and no killable processes...")
    assert result.first_failure is not None and result.first_failure.kind == "node_crash"
    assert result.suggested_owner == "undetermined"


def test_an_uncorrectable_host_memory_error_outranks_the_machine_check_before_it() -> None:
    result = _kernel(
        "mce: [Hardware Error]: Machine check events logged",
        "EDAC MC1: 1 UE memory read error on CPU_SrcID#1_MC#0_Chan#1_DIMM#0 (channel:1 slot:0)",
    )
    first = result.first_failure
    assert first is not None and first.kind == "host_memory" and first.line_no == 2
    assert first.detail["cause"] == "uncorrectable host memory error (MC1)"
    assert result.suggested_owner == "provider"


def test_a_soft_lockup_is_weak_next_to_the_jobs_own_error() -> None:
    lockup = (
        "2026-03-02T10:11:40.000000+00:00 gpu-node-031 kernel: watchdog: BUG: soft lockup - "
        "CPU#12 stuck for 22s! [python:93121]\n"
    )
    alone = _analyse(lockup, name="syslog")
    assert alone.first_failure is not None and alone.first_failure.kind == "node_hang"
    assert alone.suggested_owner == "provider"
    later = (
        "[rank3]:[2026-03-02 10:12:05] Traceback (most recent call last):\n"
        "[rank3]:[2026-03-02 10:12:05] ValueError: loss is NaN at step 4810\n"
    )
    both = analyse([SourceFile("syslog", lockup.encode()), SourceFile("rank3.log", later.encode())])
    assert both.first_failure is not None and both.first_failure.kind == "python_exception"


def test_cudas_system_not_yet_initialized_is_the_nodes_fabric_not_up() -> None:
    # nccl-tests on an NVSwitch node whose Fabric Manager is not running.
    text = (
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#\n"
        "# Using devices\n"
        "test: Test CUDA failure common.cu:941 'system not yet initialized'\n"
        " .. test pid 54340: Test failure common.cu:891\n"
    )
    result = _analyse(text, name="all_reduce_perf.log")
    assert result.first_failure is not None and result.first_failure.kind == "cuda_error"
    assert result.suggested_owner == "provider"
    assert "Fabric Manager" in result.owner_reasons[0]


def test_a_rank_that_could_not_connect_to_its_peer_names_the_peer() -> None:
    result = _analyse(
        "[rank2]: torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error\n"
        "[rank2]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
        "failed or device error.\n"
        "[rank2]: Last error:\n"
        "[rank2]: socketStartConnect: Connect to 10.0.0.12<49211> failed : Software caused "
        "connection abort\n"
    )
    first = result.first_failure
    assert first is not None and first.kind == "remote_peer_failed"
    assert result.initiating_node == "10.0.0.12"


FALLEN_OFF = (
    "[Mon Mar  2 10:11:40 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=93121, name=python, "
    "GPU has fallen off the bus.\n"
)


def test_a_kernel_log_named_for_its_node_places_its_lines_there() -> None:
    for name in ("dmesg-gpu-node-031.txt", "gpu-node-031-dmesg.log", "gpu-node-031.dmesg"):
        assert _analyse(FALLEN_OFF, name=name).initiating_node == "gpu-node-031", name
    # A dated journal or a rank's own file names no node.
    for name in ("journal-2026-03-02.txt", "rank3_dmesg.txt", "dmesg.txt"):
        assert _analyse(FALLEN_OFF, name=name).initiating_node is None, name
