"""Labels and values as the annex prints them: verbose names, acronyms, readable instants."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from bids.choices import IsolationClass, Region
from engine.formatting import data_size_exact

_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$")
# Words a JSON key spells in lower case that a contract prints as the industry writes them.
_WORDS = {
    "gpu": "GPU",
    "gpus": "GPUs",
    "nccl": "NCCL",
    "cuda": "CUDA",
    "dcgm": "DCGM",
    "ecc": "ECC",
    "ib": "IB",
    "nvlink": "NVLink",
    "busbw": "busbw",
    # Bandwidths in the fixture are GB/s, as nccl-tests prints busbw; link rates (`*rate_gbps`)
    # are Gb/s, as ibstat prints them (docs/fixture-schema.md, "Units").
    "gbps": "(GB/s)",
    "pct": "(%)",
    "sla": "SLA",
    "mtbf": "MTBF",
    "env": "Environment",
    "sha256": "SHA-256",
}


def label(model: Any, name: str) -> str:
    try:
        text = str(model._meta.get_field(name).verbose_name)
    except Exception:  # a field that no longer exists still prints, humanised
        return humanise(name)
    # Only the first letter: capitalize() would turn "GPU model" into "Gpu model".
    return text[:1].upper() + text[1:]


def _words(part: str) -> str:
    words = [w for w in part.split("_") if w]
    if words[-2:] == ["rate", "gbps"]:
        return " ".join([*(_WORDS.get(w, w) for w in words[:-1]), "(Gb/s)"])
    return " ".join(_WORDS.get(w, w) for w in words)


def humanise(key: str) -> str:
    parts = [
        # An environment variable's name (NCCL_IB_HCA) is printed as it must be set.
        part if part.isupper() else _words(part)
        for part in key.strip().split(".")
    ]
    text = " › ".join(p for p in parts if p)
    return text[:1].upper() + text[1:]


def display(model: Any, name: str, value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and _ISO_DATETIME.match(value):
        # The snapshot keeps ISO 8601; the page prints the instant the way people read it.
        return datetime.fromisoformat(value).astimezone(UTC).strftime("%-d %b %Y %H:%M UTC")
    if isinstance(value, list):
        return ", ".join(str(display(model, name, v)) for v in value) or "—"
    if isinstance(value, Mapping):
        if {"below_pct", "credit_pct"} <= value.keys():  # one SLA credit tier
            return f"below {value['below_pct']} %: {value['credit_pct']} % credit"
        return "; ".join(f"{_words(str(k))} {display(None, '', v)}" for k, v in value.items())
    try:
        field = model._meta.get_field(name)
        choices = dict(field.choices or [])
    except Exception:
        choices = {}
    if name == "acceptable_regions":
        choices = dict(Region.choices)
    elif name == "accepted_offer_kinds":
        choices = dict(IsolationClass.choices)
    return str(choices.get(value, value))


def when(value: Any) -> str:
    """An ISO 8601 instant from the snapshot, printed for people (or a dash)."""
    return display(None, "", value)


# A map of at least this many plain numbers (bus bandwidth floor per collective, say) prints as
# one row, "name value · name value", rather than a row per entry.
INLINE_NUMBERS = 6


def flat(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    numbers = isinstance(value, Mapping) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value.values()
    )
    if numbers and prefix and len(value) >= INLINE_NUMBERS:
        return [(humanise(prefix), " · ".join(f"{k} {value[k]}" for k in sorted(value)))]
    if isinstance(value, Mapping):
        rows: list[tuple[str, str]] = []
        for key, inner in sorted(value.items()):
            rows += flat(inner, f"{prefix}.{key}" if prefix else str(key))
        return rows
    if isinstance(value, list) and value and all(isinstance(v, str | int | float) for v in value):
        return [(humanise(prefix), ", ".join(str(v) for v in value))]
    if isinstance(value, list):
        return [(humanise(prefix), f"{len(value)} item(s)")] if value else [(humanise(prefix), "—")]
    if prefix.endswith("_bytes") and isinstance(value, int) and not isinstance(value, bool):
        # A size as people read it, with the exact count the spec agrees on beside it.
        return [(humanise(prefix.removesuffix("_bytes") + "_size"), data_size_exact(value))]
    return [(humanise(prefix), when(value))]


def spec_listing(spec: Mapping[str, Any], parts: tuple[str, ...]) -> str:
    """`key.path = value` lines, values as JSON: exactly what the spec says, in a stable order."""

    def lines(value: Any, path: str) -> list[str]:
        if isinstance(value, Mapping) and value:
            return [line for key in sorted(value) for line in lines(value[key], f"{path}.{key}")]
        return [f"{path} = {json.dumps(value, ensure_ascii=False)}"]

    return "\n".join(line for part in parts if part in spec for line in lines(spec[part], part))
