"""Safe unpacking of an evidence bundle: .tar.gz/.tgz/.tar/.zip, a gzipped file, or one plain file.

Nothing is written to disk. Members that would escape the bundle (absolute paths, `..`), links,
devices and oversized files are refused one by one and reported; a bundle that exceeds the total
size or file-count limit, or is not a readable archive, raises a BundleError.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from .errors import BundleError, BundleTooLarge
from .model import SourceFile


@dataclass(frozen=True, slots=True)
class BundleLimits:
    """Defaults fit a 4,096-rank job's logs and dumps; raise them deliberately, not by accident."""

    max_total_bytes: int = 2 * 1024**3
    max_files: int = 20_000
    max_file_bytes: int = 512 * 1024**2


DEFAULT_LIMITS = BundleLimits()
_CHUNK = 1024 * 1024


def read_bundle(
    data: bytes, *, name: str, limits: BundleLimits = DEFAULT_LIMITS
) -> list[SourceFile]:
    """Unpack `data` (named `name`) into source files; refused members come back with a reason."""
    lower = name.lower()
    if data[:2] == b"PK" or lower.endswith(".zip"):
        return _read_zip(data, name=name, limits=limits)
    if lower.endswith((".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")) or _looks_like_tar(data):
        return _read_tar(data, name=name, limits=limits)
    if data[:2] == b"\x1f\x8b":
        inner = name[:-3] if lower.endswith(".gz") else name
        return [SourceFile(inner, _gunzip(data, name=name, limits=limits))]
    if len(data) > limits.max_file_bytes:
        raise BundleTooLarge(f"{name}: {len(data)} bytes exceeds the per-file limit")
    return [SourceFile(name, data)]


def read_paths(
    paths: Iterable[str | Path], *, limits: BundleLimits = DEFAULT_LIMITS
) -> list[SourceFile]:
    """Read files, folders (walked without following links) and archives from disk."""
    out: list[SourceFile] = []
    total = 0
    for raw in paths:
        path = Path(raw)
        if path.is_symlink():
            out.append(SourceFile(str(path), refused="symbolic link"))
            continue
        if path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                for fname in sorted(files):
                    full = Path(root) / fname
                    rel = str(full.relative_to(path))
                    if full.is_symlink() or not full.is_file():
                        out.append(SourceFile(rel, refused="not a regular file"))
                        continue
                    total += _check_sizes(full.stat().st_size, len(out), total, rel, limits)
                    out.append(SourceFile(rel, full.read_bytes()))
            continue
        if not path.is_file():
            raise BundleError(f"{path}: no such file")
        total += _check_sizes(path.stat().st_size, len(out), total, path.name, limits)
        out.extend(read_bundle(path.read_bytes(), name=path.name, limits=limits))
    return out


def _check_sizes(size: int, count: int, total: int, name: str, limits: BundleLimits) -> int:
    if count + 1 > limits.max_files:
        raise BundleTooLarge(f"more than {limits.max_files} files")
    if total + size > limits.max_total_bytes:
        raise BundleTooLarge(f"{name}: more than {limits.max_total_bytes} bytes in all")
    return size


def _looks_like_tar(data: bytes) -> bool:
    return data[:2] in (b"\x1f\x8b", b"BZ", b"\xfd7") and len(data) > 512 and _is_tar(data)


def _is_tar(data: bytes) -> bool:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            return tar.next() is not None
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        return False


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
    """Running totals; the file count and the total size stop the whole read when exceeded."""

    def __init__(self, limits: BundleLimits, name: str) -> None:
        self.limits, self.name, self.files, self.bytes = limits, name, 0, 0

    def count(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise BundleTooLarge(f"{self.name}: more than {self.limits.max_files} files")

    def read(self, stream: IO[bytes] | gzip.GzipFile, member: str) -> bytes | None:
        """Read a member with both caps applied while decompressing; None if the file is too big."""
        chunks: list[bytes] = []
        size = 0
        reader = stream.read
        while True:
            chunk = reader(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if self.bytes + size > self.limits.max_total_bytes:
                raise BundleTooLarge(
                    f"{self.name}: more than {self.limits.max_total_bytes} bytes unpacked"
                )
            if size > self.limits.max_file_bytes:
                return None
            chunks.append(chunk)
        self.bytes += size
        return b"".join(chunks)


def _read_tar(data: bytes, *, name: str, limits: BundleLimits) -> list[SourceFile]:
    budget = _Budget(limits, name)
    out: list[SourceFile] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for member in tar:
                if member.isdir():
                    continue
                budget.count()
                why = _unsafe_path(member.name)
                if why is None and (member.issym() or member.islnk()):
                    why = f"link to {member.linkname!r}"
                elif why is None and not member.isfile():
                    why = "device, fifo or other special file"
                elif why is None and member.size > limits.max_file_bytes:
                    why = f"{member.size} bytes exceeds the per-file limit"
                if why is not None:
                    out.append(SourceFile(member.name, refused=why))
                    continue
                stream = tar.extractfile(member)
                if stream is None:
                    out.append(SourceFile(member.name, refused="unreadable member"))
                    continue
                content = budget.read(stream, member.name)
                if content is None:
                    out.append(SourceFile(member.name, refused="exceeds the per-file limit"))
                else:
                    out.append(SourceFile(_clean(member.name), content))
    except BundleError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise BundleError(f"{name}: corrupt or truncated tar archive ({exc})") from exc
    return out


def _read_zip(data: bytes, *, name: str, limits: BundleLimits) -> list[SourceFile]:
    budget = _Budget(limits, name)
    out: list[SourceFile] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
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
                elif why is None and info.file_size > limits.max_file_bytes:
                    why = f"{info.file_size} bytes exceeds the per-file limit"
                if why is not None:
                    out.append(SourceFile(info.filename, refused=why))
                    continue
                # The header's size can lie; the budget caps what is really decompressed.
                with zf.open(info) as stream:
                    content = budget.read(stream, info.filename)
                if content is None:
                    out.append(SourceFile(info.filename, refused="exceeds the per-file limit"))
                else:
                    out.append(SourceFile(_clean(info.filename), content))
    except BundleError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error) as exc:
        raise BundleError(f"{name}: corrupt or truncated zip archive ({exc})") from exc
    except (NotImplementedError, RuntimeError) as exc:  # encrypted or unsupported compression
        raise BundleError(f"{name}: unsupported zip archive ({exc})") from exc
    return out


def _gunzip(data: bytes, *, name: str, limits: BundleLimits) -> bytes:
    budget = _Budget(BundleLimits(limits.max_file_bytes, 1, limits.max_file_bytes), name)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            content = budget.read(stream, name)
    except BundleError:
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise BundleError(f"{name}: corrupt gzip file ({exc})") from exc
    if content is None:
        raise BundleTooLarge(f"{name}: exceeds the per-file limit when decompressed")
    return content
