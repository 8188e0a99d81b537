"""The hash chain's one rule, in plain Python: which fields an entry's SHA-256 covers and how
they are written. The model hashes with it on append; `verify` recomputes with it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

GENESIS = "0" * 64  # the `prev_sha256` of the first entry

# Every field an entry is made of, except its own hash. Changing this list breaks every chain.
HASHED_FIELDS = (
    "seq",
    "at",
    "actor_id",
    "actor_name",
    "org_id",
    "party",
    "action",
    "obj_key",
    "request_id",
    "buyer_org_id",
    "provider_org_id",
    "shared",
    "hidden_while_sealed",
    "before",
    "after",
    "reason",
    "prev_sha256",
)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        # One spelling whatever the database hands back: UTC, microseconds.
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value


def canonical(fields: Mapping[str, Any]) -> bytes:
    """Sorted keys, no spaces, UTF-8: the same bytes from SQLite's text and PostgreSQL's jsonb."""
    payload = {name: _plain(fields[name]) for name in HASHED_FIELDS}
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def entry_sha256(fields: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(fields)).hexdigest()
