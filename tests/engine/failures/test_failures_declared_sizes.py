"""Archives are refused on the sizes they declare, before anything is inflated: a tar header
states its member's size ahead of the data, and a zip's directory states every member's."""

from __future__ import annotations

import bz2
import io
import lzma
import tarfile
import time
import zipfile
import zlib
from collections.abc import Callable

import pytest

from engine.failures import BundleTooLarge, read_bundle
from engine.failures.bundle import BundleLimits

GB = 1024**3


def _header(name: str, size: int) -> bytes:
    """One tar header declaring `size` bytes (GNU format: sizes past 8 GiB are allowed)."""
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _tar_bomb(compress: Callable[[bytes], bytes], *, declared: int = 3 * GB) -> bytes:
    """A small honest member, then a header declaring `declared` bytes followed by a few MB of
    zeros (the rest of the 'member' never needs to exist for the header to be read)."""
    ok = _header("logs/ok.log", 4) + b"fine".ljust(512, b"\0")
    return compress(ok + _header("logs/zeros.log", declared) + bytes(4 * 1024 * 1024))


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: the gzip container
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(
    ("name", "compress"),
    [
        ("bomb.tar.gz", _gzip),
        ("bomb.tar.bz2", bz2.compress),
        ("bomb.tar.xz", lzma.compress),
    ],
)
def test_a_tar_bomb_is_refused_at_its_header_within_seconds(name, compress):
    data = _tar_bomb(compress)
    assert len(data) < 3 * 1024 * 1024  # a few MB sent, 3 GB declared
    started = time.monotonic()
    with pytest.raises(BundleTooLarge) as caught:
        read_bundle(data, name=name)
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{name}: logs/zeros.log declares 3 GiB")
    assert "refused as a decompression bomb before unpacking" in message


def test_a_plain_tar_declaring_more_than_it_holds_is_refused_at_the_header():
    data = _header("dump.bin", 3 * GB) + bytes(64 * 1024)
    started = time.monotonic()
    with pytest.raises(BundleTooLarge, match=r"run\.tar: dump\.bin declares 3 GiB"):
        read_bundle(data, name="run.tar")
    assert time.monotonic() - started < 5


def test_the_declared_total_is_refused_at_the_member_that_crosses_it():
    # Honest members, each compressible within the ratio, but together over the total limit.
    limits = BundleLimits(max_total_bytes=3 * 1024 * 1024, max_ratio=10_000)
    members = b"".join(_header(f"rank{i}.log", 1024 * 1024) + bytes(1024 * 1024) for i in range(4))
    with pytest.raises(BundleTooLarge, match=r"rank3\.log declares 1 MiB, which takes the bundle"):
        read_bundle(_gzip(members), name="run.tgz", limits=limits)


def test_a_zip_declaring_a_huge_total_is_refused_before_any_member_is_read():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.log", b"fine")
        for i in range(3):
            archive.writestr(f"zeros{i}.log", bytes(8 * 1024 * 1024))
    limits = BundleLimits(max_total_bytes=20 * 1024 * 1024, max_ratio=10_000)
    with pytest.raises(BundleTooLarge, match=r"zeros2\.log declares 8 MiB, which takes"):
        read_bundle(buffer.getvalue(), name="run.zip", limits=limits)


def test_an_ordinary_archive_still_reads():
    text = b"rank 0 step 12 loss 0.31 ok\n" * 2000
    data = _gzip(_header("rank0.log", len(text)) + text.ljust(-(-len(text) // 512) * 512, b"\0"))
    files = read_bundle(data + b"", name="run.tgz")
    assert [(f.name, f.data) for f in files] == [("rank0.log", text)]
