"""The collector's header: one first line that says which node a file came from, on which host,
and when it was collected (UTC).

    # clusterbid-evidence node=gpu-a01 host=gpu-a01.hel2.example collected=2026-12-03T20:15:00Z

`collect_evidence.sh` writes it above every tool output it captures. `split_header` takes it off
before detection and parsing, leaving an empty first line, so every line number a parser reports
is still the line number in the uploaded file. A file without the header (raw tool output, a
paste) parses as before, with no origin. Pure Python: nothing here imports Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = "# clusterbid-evidence"
_FIELD_RE = re.compile(r"(\w+)=(\S*)")


@dataclass(frozen=True)
class EvidenceOrigin:
    """Where the collector says a file came from: NODE_NAME, the host name and the UTC time."""

    node: str | None
    host: str | None
    collected: str | None

    @property
    def host_short(self) -> str | None:
        """The host name up to its first dot, lower case ('gpu-a01.hel2.example' -> 'gpu-a01')."""
        return self.host.split(".", 1)[0].lower() if self.host else None


def read_header(line: str) -> EvidenceOrigin | None:
    """The origin on a header line; None when the line is not the collector's header."""
    stripped = line.strip()
    if not stripped.startswith(MARKER):
        return None
    rest = stripped[len(MARKER) :]
    if rest and not rest[0].isspace():
        return None  # "# clusterbid-evidencex" is not ours
    fields = {k: v for k, v in _FIELD_RE.findall(rest) if v}
    return EvidenceOrigin(
        node=fields.get("node"), host=fields.get("host"), collected=fields.get("collected")
    )


def split_header(text: str) -> tuple[EvidenceOrigin | None, str]:
    """(origin, body): the body keeps an empty line where the header was, so lines still count
    from the top of the uploaded file. Text without the header comes back unchanged."""
    first, newline, rest = text.partition("\n")
    origin = read_header(first.removeprefix("\ufeff"))
    if origin is None:
        return None, text
    return origin, newline + rest


def host_matches(origin_host: str | None, label: str) -> bool:
    """A host name stands for a node label when its short name (or the whole name) is the label,
    ignoring case: 'gpu-a01.hel2.example' is node 'gpu-a01'."""
    if not origin_host:
        return True
    host = origin_host.lower()
    wanted = label.lower()
    return host == wanted or host.split(".", 1)[0] == wanted.split(".", 1)[0]
