"""NCCL's own INFO lines inside nccl-tests output: CUDA per host and the GIN backend."""

from engine.evidence.parsers import nccl_debug, nccl_tests

TABLE = """# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#  Rank  0 Group  0 Pid   1000 on    gpu-a01 device  0 [0000:10:00] NVIDIA H200
#  Rank  1 Group  0 Pid   1001 on    gpu-a02 device  0 [0000:10:00] NVIDIA H200
gpu-a01:1000:1000 [0] NCCL INFO cudaDriverVersion 12060
gpu-a01:1000:1000 [0] NCCL INFO NCCL version 2.28.7+cuda12.9
gpu-a02:1001:1001 [0] NCCL INFO NCCL version 2.28.7+cuda12.8
gpu-a01:1000:1000 [0] NCCL INFO GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm
gpu-a02:1001:1001 [0] NCCL INFO GIN/Plugin: Assigned plugin GIN_IB_PROXY type 2 to comm
#
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.00
"""  # noqa: E501


def test_banner_and_backend_per_host():
    r = nccl_tests.parse(TABLE)
    assert r.nccl_version == "2.28.7" and r.cuda_version == "12.9"
    assert r.host_cuda == {"gpu-a01": "12.9", "gpu-a02": "12.8"}
    assert r.collective_backends == {"gpu-a01": "gdaki", "gpu-a02": "proxy"}
    assert len(r.rows) == 1 and r.complete


def test_the_plain_banner_has_no_host():
    assert nccl_debug.banner("NCCL version 2.21.5+cuda12.4") == ("2.21.5", "12.4")
    assert nccl_debug.host_of("NCCL version 2.21.5+cuda12.4") is None


def test_rccls_banner_in_each_of_its_shapes_gives_the_version_and_no_cuda():
    assert nccl_debug.banner("RCCL version 2.18.3+hip6.0 HEAD:2f6d59e+") == ("2.18.3", None)
    assert nccl_debug.banner("RCCL version : 2.27.7-develop:29e1567") == ("2.27.7", None)
    info = "node-01:927:927 [0] NCCL INFO RCCL version : 2.26.6-HEAD:f224e2c"
    assert nccl_debug.is_debug_line(info) and nccl_debug.banner(info) == ("2.26.6", None)
    assert nccl_debug.host_of(info) == "node-01"
    assert nccl_debug.banner("HIP version  : 7.0.51831-a3e329ad8") is None


def test_an_rccl_run_with_info_logging_keeps_the_rccl_version():
    text = TABLE.replace("NCCL version 2.28.7+cuda12.9", "RCCL version 2.20.5+hip6.2 HEAD:45b618a+")
    text = text.replace("NCCL version 2.28.7+cuda12.8", "RCCL version 2.20.5+hip6.2 HEAD:45b618a+")
    r = nccl_tests.parse(text.replace("NVIDIA H200", "AMD Instinct MI300X"))
    assert (r.nccl_version, r.cuda_version, r.host_cuda) == ("2.20.5", None, {})


def test_a_gin_plugin_outside_nccls_types_is_named_by_its_plugin():
    line = "h:1:1 [0] NCCL INFO GIN/Plugin: Assigned plugin Libfabric_GDAKI type 9 to comm"
    assert nccl_debug.gin_backend(line) == "gdaki"
    line = "h:1:1 [0] NCCL INFO GIN/Plugin: Assigned plugin Libfabric_GDAKI type 5 to comm"
    assert nccl_debug.gin_backend(line) == "efa-gda"
