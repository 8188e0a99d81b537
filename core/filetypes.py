"""What a file is, judged by its bytes and never by its name: a few magic numbers, and UTF-8
without NUL bytes for plain text. Django-free, so services and tests share it as it is."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import PurePath

PDF = "application/pdf"
PNG = "image/png"
JPEG = "image/jpeg"
TEXT = "text/plain"

LABELS = {PDF: "a PDF", PNG: "a PNG image", JPEG: "a JPEG image", TEXT: "plain text"}
# As a table or a list names the kind.
KIND_NAMES = {PDF: "PDF", PNG: "PNG image", JPEG: "JPEG image", TEXT: "Plain text"}
ACCEPTED = "a PDF, a PNG or JPEG image, or plain text (UTF-8)"
# The extension a checked file is stored under: its kind's, never the one it was sent with.
STORED_EXTENSIONS = {PDF: ".pdf", PNG: ".png", JPEG: ".jpg", TEXT: ".txt"}

# What a name's extension promises, to say so when the bytes disagree.
_EXTENSIONS = {
    ".pdf": PDF,
    ".png": PNG,
    ".jpg": JPEG,
    ".jpeg": JPEG,
    ".txt": TEXT,
    ".text": TEXT,
    ".log": TEXT,
    ".md": TEXT,
    ".csv": TEXT,
}
_MAGIC = (
    (b"%PDF-", PDF),
    (b"\x89PNG\r\n\x1a\n", PNG),
    (b"\xff\xd8\xff", JPEG),
)


class UnsupportedFile(ValueError):
    """The bytes are none of the accepted kinds, or not the kind the name says."""


@dataclass(frozen=True)
class Sniffed:
    content_type: str

    @property
    def label(self) -> str:
        return LABELS[self.content_type]


def sniff(data: bytes) -> str | None:
    """The content type the bytes show, or None when they are none of the accepted kinds."""
    for magic, content_type in _MAGIC:
        if data.startswith(magic):
            return content_type
    if b"\x00" in data:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return TEXT


def check_file(name: str, data: bytes) -> Sniffed:
    """The file's kind by its content; `UnsupportedFile` names the file and what it holds."""
    found = sniff(data)
    promised = _EXTENSIONS.get(PurePath(name).suffix.lower())
    if found is None:
        raise UnsupportedFile(
            f"{name} is not {ACCEPTED}: its content is none of these, whatever its name says."
        )
    if promised is not None and promised != found:
        raise UnsupportedFile(
            f"{name} is named as {LABELS[promised]} but its content is {LABELS[found]}. "
            "Rename it, or attach the file it should be."
        )
    return Sniffed(found)


def safe_filename(name: str, fallback: str) -> str:
    """The sent name without folders, control characters or quotes (a Content-Disposition)."""
    base = PurePath(name.replace("\\", "/")).name
    kept = "".join(c for c in base if unicodedata.category(c)[0] != "C" and c != '"')
    return kept.strip(" .") or fallback
