"""Uploads sent gzipped (`nccl.log.gz`, `…-00001.csv.gz`, `sacct.txt.gz`): their text, unpacked
up to a limit so that a small upload cannot fill a worker's memory."""

from __future__ import annotations

import gzip
import io
import zlib

GZIP_MAGIC = b"\x1f\x8b"
# As much as a plain upload may hold (USAGE_MAX_BYTES' default): a year of hourly bill lines for
# 100 nodes is 60 MB, a 50 MB tool log compresses 5-10 times.
MAX_UNPACKED = 256 * 1024**2


class PackedError(ValueError):
    """A gzip that cannot be unpacked, or (`too_large`) unpacks past the limit."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def is_gzip(data: bytes) -> bool:
    return data.startswith(GZIP_MAGIC)


def gunzipped(data: bytes, *, limit: int | None = None) -> bytes:
    """A gzipped upload's bytes unpacked, at most `limit` (MAX_UNPACKED) of them; other bytes
    as they are."""
    if not is_gzip(data):
        return data
    limit = MAX_UNPACKED if limit is None else limit
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise PackedError(f"a gzip file that cannot be unpacked ({exc})") from None
    if len(out) > limit:
        raise PackedError(
            f"a gzip file that unpacks to more than {limit // 1024**2:,} MB", too_large=True
        )
    return out


# A gzip whose content is empty is its header, an empty deflate block and its trailer: a few
# dozen bytes (more with a stored file name or comment). Larger gzips hold something.
EMPTY_GZIP_MAX = 4096


def unpacks_empty(data: bytes) -> bool:
    """Whether `data` is a whole gzip that unpacks to no byte at all (`export.csv.gz` of an
    empty file). A damaged or cut-off gzip is not called empty: its full read refuses it."""
    if not is_gzip(data) or len(data) > EMPTY_GZIP_MAX:
        return False
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        first = stream.decompress(data, 1)
    except zlib.error:
        return False
    return first == b"" and stream.eof and not stream.unused_data


def gunzipped_head(data: bytes, *, size: int) -> bytes:
    """The first `size` bytes the start of a gzipped file unpacks to; other bytes as they are.
    A start too damaged to unpack is returned as it is, for the full read to refuse."""
    if not is_gzip(data):
        return data
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, size)
    except zlib.error:
        return data
