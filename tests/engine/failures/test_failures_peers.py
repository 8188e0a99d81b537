"""NCCL socket errors that name the remote end, as NCCL's `misc/socket.cc` and PyTorch's
`Last error:` print them: the remote node is the suspect, never the rank that reported it.

* `shapes/nccl_socket_closed_by_peer_gpu-a03.log`: torchrun on gpu-a03 (ranks 0-3 of 8, `--tee
  3`); gpu-b07 (ranks 4-7) vanished and left no log. NCCL warns `socketProgress: Connection
  closed by remote peer gpu-b07.cluster.internal<41263>` and PyTorch repeats it under `Last
  error:` after `ncclRemoteError`; the proxy thread follows with `Socket recv failed while
  polling`. Ranks 1 and 3 time out half an hour later.
* `shapes/nccl_recv_reset_by_peer_slurm-5120.out`: `srun -l`, one task per node; gpu-node-d
  (task 3, 10.20.3.17 by its NCCL bootstrap line) dies; tasks 0-2 report `socketProgressOpt:
  Call to recv from 10.20.3.17<51423> failed : Connection reset by peer`.
"""

from __future__ import annotations

from failures_helpers import DATA, one

from engine.failures import Analysis, SourceFile, analyse

SHAPES = DATA / "shapes"


def _analyse(*files: SourceFile) -> Analysis:
    return analyse(files, year=2025)


def _shape(name: str) -> SourceFile:
    return SourceFile(name, (SHAPES / name).read_bytes())


def test_a_connection_closed_by_a_remote_host_names_that_host_not_the_reporter() -> None:
    result = _analyse(_shape("nccl_socket_closed_by_peer_gpu-a03.log"))
    first = result.first_failure
    assert first is not None
    assert (first.kind, result.initiating_node) == ("remote_peer_failed", "gpu-b07")
    assert result.initiating_rank is None  # nothing says which ranks ran on gpu-b07
    assert (first.source, first.line_no) == ("nccl_socket_closed_by_peer_gpu-a03.log", 23)
    assert "Connection closed by remote peer gpu-b07.cluster.internal<41263>" in first.text
    assert first.detail["reported_by"] == [0, 2]
    assert "gpu-b07's process exited or the network to it failed" in first.detail["cause"]
    assert result.confidence == "medium"
    assert any("those ranks are not blamed" in r for r in result.reasons)
    assert result.suggested_owner == "undetermined"
    assert not any(c["rank"] in (0, 2) for c in result.candidates)


def test_with_a_rank_map_the_suspect_node_s_ranks_are_listed() -> None:
    rank_map = "rank,node\n" + "".join(
        f"{r},{'gpu-a03' if r < 4 else 'gpu-b07'}.cluster.internal\n" for r in range(8)
    )
    result = _analyse(
        _shape("nccl_socket_closed_by_peer_gpu-a03.log"),
        SourceFile("rank_map.csv", rank_map.encode()),
    )
    first = result.first_failure
    assert first is not None and result.initiating_node == "gpu-b07"
    assert first.detail["ranks_on_node"] == [4, 5, 6, 7]
    assert result.missing_ranks == [4, 5, 6, 7]


def test_an_address_is_mapped_to_its_node_and_its_only_rank() -> None:
    result = _analyse(_shape("nccl_recv_reset_by_peer_slurm-5120.out"))
    first = result.first_failure
    assert first is not None
    assert (first.kind, result.initiating_rank, result.initiating_node) == (
        "remote_peer_failed", 3, "gpu-node-d",
    )  # fmt: skip
    assert "Connection reset by peer" in first.detail["cause"]
    assert first.detail["reported_by"] == [0, 1, 2]
    assert "rank 3 on gpu-node-d: remote_peer_failed" in result.summary()


def test_the_reporting_line_itself_only_waited() -> None:
    e = one(
        "gpu-a03:48212:48391 [2] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed "
        "by remote peer 10.10.1.3<36138>"
    )
    assert (e.kind, e.secondary, e.detail["peer_ip"]) == ("peer_lost", True, "10.10.1.3")
    old = one(
        "[1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer node2<42830>"
    )
    assert (old.kind, old.detail["peer_host"]) == ("peer_lost", "node2")


def test_a_host_closing_its_own_connection_names_no_one() -> None:
    log = (
        "gpu-a03:48212:48391 [2] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed "
        "by remote peer gpu-a03<41263>\n"
    )
    result = _analyse(SourceFile("gpu-a03.log", log.encode()))
    assert result.first_failure is None or result.first_failure.kind != "remote_peer_failed"
