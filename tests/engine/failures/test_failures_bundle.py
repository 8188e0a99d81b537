"""Unsafe archives are refused member by member; broken or oversized ones raise BundleError."""

from __future__ import annotations

import gzip
import io
import random
import tarfile
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest

from engine.failures import (
    BundleError,
    BundleLimits,
    BundleTooLarge,
    iter_uploads,
    read_bundle,
    read_paths,
)
from engine.failures.synthetic import Scenario, cascade


def _tar(members: list[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tar.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                tar.addfile(info, io.BytesIO(m[1]))
    return buf.getvalue()


def _link(name: str, target: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def test_it_reads_a_tar_gz_bundle() -> None:
    files = read_bundle(
        _tar([("logs/rank0.log", b"hello"), ("fr/nccl_trace_rank_0", b"x")]), name="b.tgz"
    )
    assert [(f.name, f.data, f.refused) for f in files] == [
        ("logs/rank0.log", b"hello", None),
        ("fr/nccl_trace_rank_0", b"x", None),
    ]


def test_it_refuses_traversal_absolute_links_and_devices_one_by_one() -> None:
    dev = tarfile.TarInfo("dev/sda")
    dev.type = tarfile.BLKTYPE
    data = _tar([
        ("../../etc/cron.d/evil", b"x"),
        ("/etc/passwd", b"x"),
        _link("logs/link", "/etc/shadow", tarfile.SYMTYPE),
        _link("logs/hard", "logs/ok.log", tarfile.LNKTYPE),
        dev,
        ("logs/ok.log", b"fine"),
    ])  # fmt: skip
    files = read_bundle(data, name="evil.tar.gz")
    refused = {f.name: f.refused for f in files if f.refused}
    assert refused["../../etc/cron.d/evil"] == "path traversal (..)"
    assert refused["/etc/passwd"] == "absolute path"
    assert "link" in (refused["logs/link"] or "") and "link" in (refused["logs/hard"] or "")
    assert "special file" in (refused["dev/sda"] or "")
    assert [f.name for f in files if not f.refused] == ["logs/ok.log"]
    assert all(f.data == b"" for f in files if f.refused)


def test_it_refuses_zip_traversal_and_symlinks() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../escape.log", b"x")
        link = zipfile.ZipInfo("logs/link")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("logs/ok.log", b"fine")
    files = read_bundle(buf.getvalue(), name="b.zip")
    assert {f.name: f.refused for f in files} == {
        "../escape.log": "path traversal (..)",
        "logs/link": "symbolic link",
        "logs/ok.log": None,
    }


def test_too_many_files_raises() -> None:
    data = _tar([(f"logs/rank{i}.log", b"x") for i in range(6)])
    with pytest.raises(BundleTooLarge, match="more than 5 files"):
        read_bundle(data, name="b.tgz", limits=BundleLimits(max_files=5))


def test_too_big_in_total_is_refused_at_the_member_that_declares_it() -> None:
    bomb = b"\0" * (4 * 1024 * 1024)  # compresses to a few KB
    data = _tar([("a.log", bomb), ("b.log", bomb)])
    assert len(data) < 100_000
    with pytest.raises(
        BundleTooLarge, match=r"b\.log declares 4 MiB, which takes the bundle over the 6 MiB"
    ):
        read_bundle(data, name="b.tgz", limits=BundleLimits(max_total_bytes=6 * 1024 * 1024))


def test_one_oversized_file_is_refused_not_fatal() -> None:
    data = _tar([("big.log", b"x" * 2048), ("small.log", b"ok")])
    files = read_bundle(data, name="b.tgz", limits=BundleLimits(max_file_bytes=1024))
    assert [(f.name, bool(f.refused)) for f in files] == [("big.log", True), ("small.log", False)]


def test_zip_with_lying_header_is_capped() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.log", b"y" * 50_000)
    files = read_bundle(buf.getvalue(), name="b.zip", limits=BundleLimits(max_file_bytes=10_000))
    assert files[0].refused


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"\x1f\x8b\x08\x00garbage-not-gzip", "bundle.tar.gz"),
        (b"PK\x03\x04 truncated zip", "bundle.zip"),
        (_tar([("a.log", random.Random(0).randbytes(50_000))])[:3000], "cut.tgz"),
    ],
)
def test_corrupt_archives_raise_bundle_error(data: bytes, name: str) -> None:
    with pytest.raises(BundleError):
        read_bundle(data, name=name)


def test_a_single_file_and_a_gzipped_log() -> None:
    assert read_bundle(b"plain", name="rank3.log")[0].name == "rank3.log"
    files = read_bundle(gzip.compress(b"log text"), name="node-1.log.gz")
    assert [(f.name, f.data) for f in files] == [("node-1.log", b"log text")]


def test_read_paths_walks_folders_without_following_links(tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "rank0.log").write_text("x")
    (tmp_path / "logs" / "leak").symlink_to("/etc/passwd")
    files = read_paths([tmp_path])
    assert {f.name: f.refused for f in files} == {
        "logs/leak": "not a regular file",
        "logs/rank0.log": None,
    }
    with pytest.raises(BundleError):
        read_paths([tmp_path / "nope"])


def _zip_of_zeros(mib: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("zeros.log", "w") as w:
        for _ in range(mib):
            w.write(bytes(1024 * 1024))  # streamed: the test itself never holds the 300 MB
    return buf.getvalue()


def test_a_zip_bomb_is_refused_with_the_member_named() -> None:
    """GIVEN the audit's zip: ~300 KB holding 300 MB of zeros, read with the default limits
    THEN it is refused in one line naming the member, before anything is decompressed."""
    data = _zip_of_zeros(300)
    assert len(data) < 400_000
    with pytest.raises(BundleTooLarge) as caught:
        read_bundle(data, name="bomb.zip")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("bomb.zip: zeros.log declares 300 MiB, more than 200x the ")
    assert "refused as a decompression bomb before unpacking" in message


class _Zeros(io.RawIOBase):
    """`size` zero bytes, produced on demand, so building a bomb needs no memory."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        n = min(len(memoryview(buf)), self.left)
        memoryview(buf)[:n] = bytes(n)
        self.left -= n
        return n


def test_a_tar_gz_bomb_is_refused_at_its_header_naming_the_member() -> None:
    size = 200 * 1024 * 1024  # under the per-file limit: only the ratio stops it
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        ok = tarfile.TarInfo("logs/ok.log")
        ok.size = 4
        tar.addfile(ok, io.BytesIO(b"fine"))
        info = tarfile.TarInfo("logs/zeros.log")
        info.size = size
        tar.addfile(info, _Zeros(size))
    tracemalloc.start()
    try:
        with pytest.raises(BundleTooLarge) as caught:
            read_bundle(buf.getvalue(), name="b.tgz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value).startswith("b.tgz: logs/zeros.log declares 200 MiB, more than 200x")
    assert peak < 128 * 1024**2, f"peak {peak / 1024**2:.0f} MiB"


def test_default_limits_keep_a_512_rank_bundle_working() -> None:
    files = cascade(Scenario(ranks=512, culprit=137, noise_lines_per_rank=200))
    data = _tar([(f.name, f.data) for f in files])
    unpacked = sum(len(f.data) for f in files)
    assert unpacked > 10_000_000 and unpacked / len(data) > 10  # tens of MB, well compressed
    read = read_bundle(data, name="job-512.tgz")
    assert [f.name for f in read] == [f.name for f in files]
    assert not any(f.refused for f in read)


def test_default_limits_are_documented() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "failure-analysis.md").read_text()
    limits = BundleLimits()
    assert limits.max_total_bytes == 4 * 1024**3 and "4 GiB" in doc
    assert limits.max_files == 65_536 and "65,536" in doc
    assert limits.max_file_bytes == 256 * 1024**2 and "256 MiB" in doc
    assert limits.max_ratio == 200 and "200x" in doc


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"\x1f\x8b\x08\x00garbage-not-gzip", "bundle.tar.gz"),
        (b"garbage" * 200, "bundle.tar"),
    ],
)
def test_a_corrupt_tar_is_reported_in_one_line(data: bytes, name: str) -> None:
    with pytest.raises(BundleError) as caught:
        read_bundle(data, name=name)
    message = str(caught.value)
    assert "\n" not in message and "method" not in message
    assert message.startswith(f"{name}: corrupt or truncated tar archive (")


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _text(size: int, seed: int) -> bytes:
    """Log-like bytes that compress a few times, as real logs do (not a bomb)."""
    rng = random.Random(seed)
    words = [b"rank", b"NCCL", b"INFO", b"allreduce", b"step", b"loss", b"ok"]
    out = bytearray()
    while len(out) < size:
        out += b" ".join(rng.choice(words) for _ in range(12)) + b" %d\n" % rng.randrange(10**6)
    return bytes(out[:size])


def test_the_limits_hold_for_the_whole_upload_not_each_archive() -> None:
    limits = BundleLimits(max_total_bytes=5 * 1024 * 1024)
    archives = [_zip([(f"node{n}/rank{n}.log", _text(2 * 1024 * 1024, n))]) for n in range(3)]
    for data in archives:  # each alone is within the limit
        assert len(read_bundle(data, name="one.zip", limits=limits)) == 1
    sources = [(io.BytesIO(data), f"part{n}.zip") for n, data in enumerate(archives)]
    read = []
    with pytest.raises(BundleTooLarge, match=r"the upload unpacks to more than 5 MiB in all"):
        for f in iter_uploads(sources, limits=limits):
            read.append(f.name)
    assert read == ["node0/rank0.log", "node1/rank1.log"]


def test_many_files_across_archives_count_once() -> None:
    limits = BundleLimits(max_files=4)
    sources = [(io.BytesIO(_tar([(f"r{i}_{j}.log", b"x") for j in range(2)])), f"{i}.tgz")
               for i in range(3)]  # fmt: skip
    with pytest.raises(BundleTooLarge, match="more than 4 files in all"):
        list(iter_uploads(sources, limits=limits))
