"""torchelastic's error file (`TORCHELASTIC_ERROR_FILE`,
`<log-dir>/attempt_N/<local_rank>/error.json`): a JSON object holding the rank's own traceback.
It is read as the log lines it stands for, so the traceback is classified like any other;
without this it is JSON on one line, and nothing."""

from __future__ import annotations

import contextlib
import json
import re
from datetime import UTC, datetime
from typing import Any

_LOCAL_RANK = re.compile(r"(?:^|/)attempt_\d+/(\d+)/[^/]*\.json$")


def error_file_text(name: str, text: str) -> str | None:
    """The traceback as log lines (stamped with the file's time, prefixed with the local rank its
    path gives), or None when `text` is not a torchelastic error file."""
    head = text[:64].lstrip()
    if not head.startswith("{") or '"message"' not in text[:4096]:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    body, stamp = _callstack(doc.get("message") if isinstance(doc, dict) else None)
    if not body:
        return None
    when = ""
    with contextlib.suppress(TypeError, ValueError, OverflowError, OSError):
        when = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ ")
    m = _LOCAL_RANK.search(name.replace("\\", "/"))
    prefix = f"[default{m.group(1)}]:" if m else ""
    lines = body.rstrip("\n").split("\n")
    return "\n".join(f"{prefix}{when if i == 0 else ''}{line}" for i, line in enumerate(lines))


def _callstack(message: Any) -> tuple[str, Any]:
    """(traceback or message, timestamp) of the file's `message`: an object with `extraInfo`
    (`py_callstack`, `timestamp`) as Python writes it, or a plain string."""
    if isinstance(message, str):
        return message, None
    if not isinstance(message, dict):
        return "", None
    extra = message.get("extraInfo")
    extra = extra if isinstance(extra, dict) else {}
    body = extra.get("py_callstack") or message.get("message")
    return (body if isinstance(body, str) else ""), extra.get("timestamp")
