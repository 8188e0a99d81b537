"""Stored uploads: one home for how an uploaded file is checked, hashed, named and kept.

Burn-in evidence, failed-run files and incident evidence all keep the bytes first, with their
size and SHA-256, before anything parses them. The models inherit `StoredUpload`; services call
`check_upload` and `StoredUpload.store`; page forms use `NamedFileField` (one file) and
`MultipleFileField`, which name the file they refuse as empty, as `check_upload` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePath
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.storage import Storage
from django.core.files.uploadedfile import UploadedFile
from django.db import models, transaction
from django.utils.text import get_valid_filename

from core.errors import ServiceError
from core.filetypes import STORED_EXTENSIONS
from engine.formatting import data_size
from engine.packed import EMPTY_GZIP_MAX, unpacks_empty


def sha256_of(upload: Any) -> str:
    """The hex SHA-256 of an uploaded file's bytes; the file is rewound for the next reader."""
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


EMPTY_FILE = "the file is empty; there is nothing to check."
EMPTY_GZIP = "the file is empty once unpacked (a gzip of an empty file); there is nothing to check."


def empty_file_message(name: str | None, *, packed: bool = False) -> str:
    """Every upload's one wording for an empty file, with the file's name first where there is
    one: "usage.csv: the file is empty; there is nothing to check." `packed`: a gzip of one."""
    text = EMPTY_GZIP if packed else EMPTY_FILE
    return f"{name}: {text}" if name else text[0].upper() + text[1:]


def _bytes(upload: UploadedFile) -> bytes:
    """A small upload's bytes, the file rewound for the next reader."""
    upload.seek(0)
    data = upload.read()
    upload.seek(0)
    return data


def check_upload(upload: UploadedFile, *, limit: int, field: str | None = None) -> None:
    """Refuse an empty file (or a gzip of one) or one over `limit` bytes, with the numbers.

    With `field`, the error is keyed by that form/API field and names the file; without, it is
    about this file only and says "the file": a batch upload puts each refused file's name
    before its message and stores the rest."""
    name = (upload.name or "The file") if field else "the file"
    size = upload.size or 0
    message = ""
    if size == 0:
        message = empty_file_message(upload.name) if field else EMPTY_FILE
    elif size <= EMPTY_GZIP_MAX and unpacks_empty(_bytes(upload)):
        message = empty_file_message(upload.name, packed=True) if field else EMPTY_GZIP
    elif size > limit:
        message = (
            f"{name} is {data_size(size)}; the limit for one file is "
            f"{data_size(limit)}. Split the log or compress repeated output."
        )
    if message:
        raise ValidationError({field: [message]}) if field else ServiceError(message)


# The files stored inside `atomic_keeping_no_orphans`; Django has no hook for a rollback.
_STORED: ContextVar[list[tuple[Storage, str]] | None] = ContextVar("stored_uploads", default=None)


@contextmanager
def atomic_keeping_no_orphans() -> Iterator[None]:
    """`transaction.atomic()` that also deletes the files stored inside it when it rolls back:
    a row that never committed must not leave its bytes on disk. Use it as the outermost
    transaction: inside another, the outer one may still roll back after this one ends."""
    stored: list[tuple[Storage, str]] = []
    token = _STORED.set(stored)
    try:
        with transaction.atomic():
            yield
    except BaseException:
        for storage, name in stored:
            storage.delete(name)
        raise
    finally:
        _STORED.reset(token)


# Extensions a browser or a web server would treat as active content (a page, a script, an
# image that runs script). A stored name never ends in one, whatever the file was called: were
# MEDIA_ROOT ever served directly, `report.html` would run in the site's origin.
ACTIVE_EXTENSIONS = frozenset(
    {".htm", ".html", ".xhtml", ".xht", ".shtml", ".svg", ".svgz", ".xml", ".xsl", ".js",
     ".mjs", ".css", ".php", ".phtml", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".py", ".sh",
     ".swf", ".hta", ".wasm", ".mht", ".mhtml", ".rss", ".atom", ".appcache", ".manifest"}
)  # fmt: skip


def neutral_name(filename: str, *, extension: str | None = None, fallback: str) -> str:
    """A safe stored name: no folders, no odd characters, no dots inside (a server that reads
    several extensions sees only the last) and never an active extension. With `extension`
    (a checked file's kind) that is the extension; otherwise the sent one is kept unless
    active, in which case it becomes part of the name and `.bin` is added."""
    safe = get_valid_filename(PurePath(filename.replace("\\", "/")).name) or fallback
    path = PurePath(safe)
    stem = path.stem.replace(".", "_")[:90] or "file"
    suffix = path.suffix.lower()
    if extension is not None:
        return f"{stem}{extension}"
    if suffix in ACTIVE_EXTENSIONS or any(s.lower() in ACTIVE_EXTENSIONS for s in path.suffixes):
        return f"{safe.replace('.', '_')[:90]}.bin"
    return safe[-100:]


def stored_upload_path(instance: StoredUpload, filename: str) -> str:
    """`<owner dir>/<sha256>/<safe name>`: the same bytes under one owner land in one place."""
    name = neutral_name(filename, fallback=instance.FALLBACK_NAME)
    return f"{instance.upload_dir()}/{instance.sha256}/{name}"


class StoredUpload(models.Model):
    """An uploaded file kept as sent: its bytes, the name it came with, its size and SHA-256."""

    FALLBACK_NAME = "evidence.txt"  # when the sent name has nothing usable left

    file = models.FileField(upload_to=stored_upload_path, max_length=300)
    original_name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        abstract = True

    def upload_dir(self) -> str:
        """The folder (under MEDIA_ROOT) of the row that owns this file."""
        raise NotImplementedError

    def store(self, upload: UploadedFile, *, sha256: str | None = None) -> None:
        """Record name, size and hash and put the bytes in storage; the row is not saved yet."""
        name = upload.name or self.FALLBACK_NAME
        self.original_name = name[:255]
        self.size = upload.size or 0
        self.sha256 = sha256 or sha256_of(upload)
        self.file.save(name, upload, save=False)
        if (stored := _STORED.get()) is not None and self.file.name:
            stored.append((self.file.storage, self.file.name))

    def keep_as(self, content_type: str) -> None:
        """After its content was checked (core.filetypes), file the bytes under the checked
        kind's extension (`report.html` holding text is kept as `report.txt`); the sent name
        stays in `original_name` for downloads. The row is not saved yet."""
        wanted = neutral_name(
            self.original_name,
            extension=STORED_EXTENSIONS[content_type],
            fallback=self.FALLBACK_NAME,
        )
        old = self.file.name
        if not old or PurePath(old).name == wanted:
            return
        storage = self.file.storage
        with storage.open(old, "rb") as handle:
            new = storage.save(f"{self.upload_dir()}/{self.sha256}/{wanted}", handle)
        if (stored := _STORED.get()) is not None:
            stored.append((storage, new))
        storage.delete(old)
        self.file = new  # a fresh FieldFile: the old one holds the closed upload

    def read_bytes(self) -> bytes:
        with self.file.open("rb") as handle:
            data = handle.read()
        return data if isinstance(data, bytes) else data.encode("utf-8")


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class NamedFileField(forms.FileField):
    """A file field whose "empty" error names the file (Django's says only "The submitted file
    is empty."), in the words `check_upload` uses."""

    def to_python(self, data: Any) -> Any:
        try:
            return super().to_python(data)
        except ValidationError as error:
            if getattr(error, "code", None) != "empty":
                raise
            raise ValidationError(
                empty_file_message(getattr(data, "name", None)), code="empty"
            ) from None


class MultipleFileField(NamedFileField):
    """A file input that takes several files at once and cleans to a list."""

    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        single = super().clean
        if isinstance(data, list | tuple):
            # An empty selection goes through the single-file path so `required` applies.
            return [single(item, initial) for item in data] if data else [single(None, initial)]
        return [single(data, initial)]
