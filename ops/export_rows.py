"""How an export writes rows: each model field as a JSON key, a foreign key as `<field>_id`, a
stored file as its path inside the archive (under `files/`); and what each key means, read from
the models themselves so the README never drifts from the JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models.fields.files import FieldFile
from django.utils.text import get_valid_filename


@dataclass
class Table:
    """One JSON file of the archive: its rows and the model that describes their keys."""

    model: type[models.Model] | None
    about: str
    exclude: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Export:
    """What an organisation may see, gathered: tables by name and stored files by archive path."""

    tables: dict[str, Table] = field(default_factory=dict)
    files: dict[str, FieldFile] = field(default_factory=dict)

    def table(
        self,
        name: str,
        model: type[models.Model] | None,
        about: str,
        *,
        exclude: tuple[str, ...] = (),
        extra: dict[str, str] | None = None,
    ) -> Table:
        if name not in self.tables:
            self.tables[name] = Table(model=model, about=about, exclude=exclude, extra=extra or {})
        return self.tables[name]

    def add(self, name: str, obj: models.Model, **extra: Any) -> None:
        """`obj` as a row of table `name` (declared first), with `extra` keys beside its fields."""
        table = self.tables[name]
        row = self.row(name, obj, exclude=table.exclude)
        row.update(extra)
        table.rows.append(row)

    def row(self, kind: str, obj: models.Model, *, exclude: tuple[str, ...]) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for f in obj._meta.concrete_fields:
            if f.name in exclude:
                continue
            if isinstance(f, models.FileField):
                row[f.name] = self.file(kind, obj.pk, getattr(obj, f.name))
            elif f.is_relation:
                row[f.attname] = getattr(obj, f.attname)
            else:
                row[f.name] = f.value_from_object(obj)
        return row

    def file(self, kind: str, pk: Any, stored: FieldFile) -> str | None:
        """The archive path the stored file will have, or None when there is none."""
        if not stored or not stored.name:
            return None
        name = get_valid_filename(PurePosixPath(stored.name).name) or "file"
        path = f"files/{kind}/{pk}/{name}"
        self.files[path] = stored
        return path


def as_json(rows: list[dict[str, Any]]) -> bytes:
    return json.dumps(rows, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False).encode()


def field_docs(table: Table) -> list[tuple[str, str]]:
    """(key, meaning) for every key of the table's rows."""
    docs: list[tuple[str, str]] = []
    if table.model is not None:
        for f in table.model._meta.concrete_fields:
            if f.name in table.exclude:
                continue
            docs.append(_doc(f))
    docs.extend(table.extra.items())
    return docs


def _doc(f: models.Field) -> tuple[str, str]:
    label = str(f.verbose_name)
    if isinstance(f, models.FileField):
        return f.name, f"{label}: the file's path in this archive (under files/), or null"
    if f.is_relation and f.related_model is not None:
        target = f.related_model._meta.verbose_name
        return f.attname, f"{label}: the id of the {target}"
    meaning = f"{label}"
    if f.help_text:
        meaning += f" ({f.help_text})"
    if f.choices:
        meaning += ": one of " + ", ".join(f"`{value}`" for value, _ in f.flatchoices)
    return f.name, meaning
