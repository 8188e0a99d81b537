"""Safe unpacking of an evidence bundle: .tar.gz/.tgz/.tar/.zip, a gzipped file, or one plain file.

Nothing is written to disk. Members that would escape the bundle (absolute paths, `..`), links,
devices and oversized files are refused one by one and reported; a bundle that exceeds the total
size or file-count limit, expands like a decompression bomb, or is not a readable archive raises
a BundleError with a one-line reason.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Literal

from engine.formatting import data_size

from .errors import BundleError, BundleTooLarge
from .model import SourceFile


@dataclass(frozen=True, slots=True)
class BundleLimits:
    """`read_bundle`/`read_paths` hold every file in memory; `iter_bundle`/`iter_paths` hold one
    member at a time. The defaults admit a 16,384-rank job (logs plus about 1 GB of dumps)
    streamed with `iter_bundle`; raise them deliberately, not by accident.

    `max_ratio`: text logs compress 5-30x, a bomb of zeros about 1,000x; a member (or, inside a
    tar, the archive so far) that expands beyond this once past `ratio_from_bytes` is refused.
    """

    max_total_bytes: int = 4 * 1024**3
    max_files: int = 65_536
    max_file_bytes: int = 256 * 1024**2
    max_ratio: int = 200
    ratio_from_bytes: int = 16 * 1024**2


DEFAULT_LIMITS = BundleLimits()
_CHUNK = 1024 * 1024
_TarMode = Literal["r|", "r|gz", "r|bz2", "r|xz"]
_TAR_MODES: dict[bytes, _TarMode] = {b"\x1f\x8b": "r|gz", b"BZ": "r|bz2", b"\xfd7": "r|xz"}


def _one_line(text: str) -> str:
    """Archive libraries report some errors over several lines; the UI and the CLI show one."""
    return " ".join(text.split())


def read_bundle(
    data: bytes, *, name: str, limits: BundleLimits = DEFAULT_LIMITS
) -> list[SourceFile]:
    """Unpack `data` (named `name`) into source files; refused members come back with a reason."""
    return list(iter_bundle(io.BytesIO(data), name=name, limits=limits))


def iter_bundle(
    source: str | Path | IO[bytes],
    *,
    name: str | None = None,
    limits: BundleLimits = DEFAULT_LIMITS,
) -> Iterator[SourceFile]:
    """Stream a bundle from a path or a binary file object, one member at a time: only the member
    being read is in memory, so `analyse(iter_bundle(path))` handles a 16,384-rank upload (about
    1 GB of dumps) in bounded memory. Same checks and errors as `read_bundle`."""
    if isinstance(source, str | Path):
        with open(source, "rb") as stream:
            yield from iter_bundle(stream, name=name or Path(source).name, limits=limits)
        return
    name = name or "upload"
    start = source.tell()
    head = source.read(8192)
    source.seek(0, os.SEEK_END)
    packed = source.tell() - start
    source.seek(start)
    lower = name.lower()
    if head[:2] == b"PK" or lower.endswith(".zip"):
        yield from _read_zip(source, name=name, limits=limits, packed=packed)
    elif lower.endswith((".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")) or _looks_like_tar(
        source, head
    ):
        yield from _read_tar(source, name=name, limits=limits, packed=packed, head=head)
    elif head[:2] == b"\x1f\x8b":
        inner = name[:-3] if lower.endswith(".gz") else name
        yield SourceFile(inner, _gunzip(source, name=name, limits=limits, packed=packed))
    elif packed > limits.max_file_bytes:
        raise BundleTooLarge(
            f"{name}: {data_size(packed)} is over the {data_size(limits.max_file_bytes)} "
            "per-file limit"
        )
    else:
        yield SourceFile(name, source.read())


def read_paths(
    paths: Iterable[str | Path], *, limits: BundleLimits = DEFAULT_LIMITS
) -> list[SourceFile]:
    """Read files, folders (walked without following links) and archives from disk."""
    return list(iter_paths(paths, limits=limits))


def iter_paths(
    paths: Iterable[str | Path], *, limits: BundleLimits = DEFAULT_LIMITS
) -> Iterator[SourceFile]:
    """As `read_paths`, one file at a time (archives streamed member by member)."""
    count = 0
    total = 0
    for raw in paths:
        path = Path(raw)
        if path.is_symlink():
            count += 1
            yield SourceFile(str(path), refused="symbolic link")
            continue
        if path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                for fname in sorted(files):
                    full = Path(root) / fname
                    rel = str(full.relative_to(path))
                    count += 1
                    if full.is_symlink() or not full.is_file():
                        yield SourceFile(rel, refused="not a regular file")
                        continue
                    total += _check_sizes(full.stat().st_size, count - 1, total, rel, limits)
                    yield SourceFile(rel, full.read_bytes())
            continue
        if not path.is_file():
            raise BundleError(f"{path}: no such file")
        total += _check_sizes(path.stat().st_size, count, total, path.name, limits)
        for f in iter_bundle(path, name=path.name, limits=limits):
            count += 1
            yield f


def _check_sizes(size: int, count: int, total: int, name: str, limits: BundleLimits) -> int:
    if count + 1 > limits.max_files:
        raise BundleTooLarge(f"more than {limits.max_files} files")
    if total + size > limits.max_total_bytes:
        raise BundleTooLarge(
            f"{name}: the files reach more than {data_size(limits.max_total_bytes)} in all "
            "(the limit)"
        )
    return size


def _looks_like_tar(stream: IO[bytes], head: bytes) -> bool:
    if head[:2] not in (b"\x1f\x8b", b"BZ", b"\xfd7") or len(head) <= 512:
        return False
    start = stream.tell()
    try:
        with tarfile.open(fileobj=stream, mode="r|*") as tar:
            return tar.next() is not None
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        return False
    finally:
        stream.seek(start)


def _unsafe_path(member: str) -> str | None:
    """Why a member name must not be used as a path, or None when it is fine."""
    if not member or "\x00" in member:
        return "empty or NUL in name"
    posix = member.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        return "absolute path"
    if ".." in PurePosixPath(posix).parts:
        return "path traversal (..)"
    return None


def _clean(member: str) -> str:
    return str(PurePosixPath(member.replace("\\", "/")))


class _Budget:
    """Running totals; the file count, the total size and the expansion ratio stop the whole read
    when exceeded, naming the member being read."""

    def __init__(self, limits: BundleLimits, name: str, packed: int) -> None:
        self.limits, self.name, self.packed, self.files, self.bytes = limits, name, packed, 0, 0
        self.declared = 0

    def declare(self, member: str, size: int) -> None:
        """Refuse the archive on a member's declared size, before a byte of it is inflated: a
        tar header (or a zip directory entry) says how big the member is, and a bomb says so
        honestly or the read below stops it at the same limits."""
        lim = self.limits
        self.declared += max(size, 0)
        if self.declared > lim.max_total_bytes:
            raise BundleTooLarge(
                f"{self.name}: {member} declares {data_size(size)}, which takes the bundle over "
                f"the {data_size(lim.max_total_bytes)} limit for all files together"
            )
        if self.declared > lim.ratio_from_bytes and self.declared > lim.max_ratio * max(
            self.packed, 1
        ):
            raise BundleTooLarge(
                f"{self.name}: {member} declares {data_size(size)}, more than {lim.max_ratio}x "
                f"the {data_size(self.packed)} archive (with the members before it): refused as "
                "a decompression bomb before unpacking"
            )

    def count(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise BundleTooLarge(f"{self.name}: more than {self.limits.max_files} files")

    def read(
        self, stream: IO[bytes] | gzip.GzipFile, member: str, packed: int | None = None
    ) -> bytes | None:
        """Read a member with every cap applied while decompressing; None if the file is too big.

        `packed` is the member's compressed size (zip); without it the ratio is the archive's.
        """
        lim = self.limits
        out = io.BytesIO()  # getvalue() hands over the buffer without a second copy
        size = 0
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if self.bytes + size > lim.max_total_bytes:
                raise BundleTooLarge(
                    f"{self.name}: unpacking {member} takes the bundle over the "
                    f"{data_size(lim.max_total_bytes)} limit for all files together"
                )
            if packed is not None:
                _check_ratio(size, packed, member, self.name, lim)
            else:
                _check_ratio(self.bytes + size, self.packed, member, self.name, lim)
            if size > lim.max_file_bytes:
                return None
            out.write(chunk)
        self.bytes += size
        return out.getvalue()


def _read_tar(
    stream: IO[bytes], *, name: str, limits: BundleLimits, packed: int, head: bytes
) -> Iterator[SourceFile]:
    budget = _Budget(limits, name, packed)
    # One explicit mode: "r:*" reports a failure of every method it tried, over several lines.
    # The stream form ("r|") reads forward only, so nothing but the current member is held.
    mode: _TarMode = _TAR_MODES.get(head[:2], "r|")
    try:
        with tarfile.open(fileobj=stream, mode=mode) as tar:
            for member in tar:
                if member.isdir():
                    continue
                budget.count()
                if member.isfile():
                    budget.declare(member.name, member.size)
                why = _unsafe_path(member.name)
                if why is None and (member.issym() or member.islnk()):
                    why = f"link to {member.linkname!r}"
                elif why is None and not member.isfile():
                    why = "device, fifo or other special file"
                elif why is None and member.size > limits.max_file_bytes:
                    why = _over_file_limit(member.size, limits)
                if why is not None:
                    yield SourceFile(member.name, refused=why)
                    continue
                member_stream = tar.extractfile(member)
                if member_stream is None:
                    yield SourceFile(member.name, refused="unreadable member")
                    continue
                content = budget.read(member_stream, member.name)
                if content is None:
                    yield SourceFile(member.name, refused=_over_file_limit(None, limits))
                else:
                    yield SourceFile(_clean(member.name), content)
    except BundleError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error, TypeError, ValueError) as exc:
        why = _one_line(str(exc))
        raise BundleError(f"{name}: corrupt or truncated tar archive ({why})") from exc


def _read_zip(
    stream: IO[bytes], *, name: str, limits: BundleLimits, packed: int
) -> Iterator[SourceFile]:
    budget = _Budget(limits, name, packed)
    try:
        with zipfile.ZipFile(stream) as zf:
            _declared_zip(zf, name=name, limits=limits, packed=packed)
            for info in zf.infolist():
                if info.is_dir():
                    continue
                budget.count()
                mode = info.external_attr >> 16
                why = _unsafe_path(info.filename)
                if why is None and stat.S_ISLNK(mode):
                    why = "symbolic link"
                elif why is None and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                    why = "device, fifo or other special file"
                elif why is None:
                    _check_ratio(info.file_size, info.compress_size, info.filename, name, limits)
                if why is None and info.file_size > limits.max_file_bytes:
                    why = _over_file_limit(info.file_size, limits)
                if why is not None:
                    yield SourceFile(info.filename, refused=why)
                    continue
                # The header's size can lie; the budget caps what is really decompressed.
                with zf.open(info) as member:
                    content = budget.read(member, info.filename, info.compress_size)
                if content is None:
                    yield SourceFile(info.filename, refused=_over_file_limit(None, limits))
                else:
                    yield SourceFile(_clean(info.filename), content)
    except BundleError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error) as exc:
        why = _one_line(str(exc))
        raise BundleError(f"{name}: corrupt or truncated zip archive ({why})") from exc
    except (NotImplementedError, RuntimeError) as exc:  # encrypted or unsupported compression
        raise BundleError(f"{name}: unsupported zip archive ({_one_line(str(exc))})") from exc


def _declared_zip(zf: zipfile.ZipFile, *, name: str, limits: BundleLimits, packed: int) -> None:
    """The zip's central directory declares every member's size: refuse on the count, the
    total and the ratio before any member is inflated."""
    budget = _Budget(limits, name, packed)
    for info in zf.infolist():
        if info.is_dir():
            continue
        budget.count()
        budget.declare(info.filename, info.file_size)


def _check_ratio(unpacked: int, packed: int, member: str, name: str, limits: BundleLimits) -> None:
    if unpacked > limits.ratio_from_bytes and unpacked > limits.max_ratio * max(packed, 1):
        raise BundleTooLarge(
            f"{name}: {member} expands more than {limits.max_ratio}x ({data_size(packed)} packed, "
            f"{data_size(unpacked)} unpacked): refused as a decompression bomb"
        )


def _over_file_limit(size: int | None, limits: BundleLimits) -> str:
    got = f"{data_size(size)}, " if size is not None else ""
    return f"{got}over the {data_size(limits.max_file_bytes)} per-file limit"


def _gunzip(stream: IO[bytes], *, name: str, limits: BundleLimits, packed: int) -> bytes:
    budget = _Budget(limits, name, packed)
    try:
        with gzip.GzipFile(fileobj=stream) as unzipped:
            content = budget.read(unzipped, name)
    except BundleError:
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise BundleError(f"{name}: corrupt gzip file ({_one_line(str(exc))})") from exc
    if content is None:
        raise BundleTooLarge(f"{name}: {_over_file_limit(None, limits)} when decompressed")
    return content


_MAX_NAMED = 20


def unreadable_reason(
    refused: list[dict[str, str]], *, used: int, where: str = "the upload"
) -> str | None:
    """One line when nothing in the input could be used, naming each file and why; else None.
    `refused`/`used` are `Analysis.refused` and `Analysis.stats["used"]`."""
    if used:
        return None
    if not refused:
        return f"no files in {where} (an empty archive?)"
    named = "; ".join(f"{_one_line(r['name'])} ({r['reason']})" for r in refused[:_MAX_NAMED])
    more = f"; and {len(refused) - _MAX_NAMED} more" if len(refused) > _MAX_NAMED else ""
    return f"no readable files in {where}; every file was refused: {named}{more}"


def iter_uploads(
    sources: Iterable[tuple[IO[bytes], str]], *, limits: BundleLimits = DEFAULT_LIMITS
) -> Iterator[SourceFile]:
    """`iter_bundle` over every file of one upload with one budget: the limits on files, total
    bytes and expansion hold for the upload, not for each archive in it (three small zips must
    not unpack to three times the limit)."""
    files = total = packed = 0
    for count, (stream, name) in enumerate(sources, start=1):
        start = stream.tell()
        stream.seek(0, os.SEEK_END)
        packed += stream.tell() - start
        stream.seek(start)
        for f in iter_bundle(stream, name=name, limits=limits):
            files += 1
            total += len(f.data)
            if files > limits.max_files:
                raise BundleTooLarge(f"the upload holds more than {limits.max_files} files in all")
            if total > limits.max_total_bytes:
                raise BundleTooLarge(
                    f"the upload unpacks to more than {data_size(limits.max_total_bytes)} in all "
                    f"(reached in {name}, its file {count}); the limit is per upload"
                )
            if total > limits.ratio_from_bytes and total > limits.max_ratio * max(packed, 1):
                raise BundleTooLarge(
                    f"the upload expands more than {limits.max_ratio}x ({data_size(packed)} sent, "
                    f"{data_size(total)} unpacked by {name}): refused as a decompression bomb"
                )
            yield f
