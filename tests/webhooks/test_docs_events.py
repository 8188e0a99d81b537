"""docs/webhooks.md lists every event a webhook can carry, each sent to whom the notices say."""

from __future__ import annotations

import re
from pathlib import Path

from notices.choices import AUDIENCE, Event

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
# A row of the event table: "| `a` / `b` | sent to | when |".
ROW = re.compile(r"^\| ((?:`[a-z_]+`(?: / )?)+) \| ([^|]+) \|")


def documented() -> dict[str, str]:
    """Event type → the 'sent to' cell, paired by position where a row names two events."""
    found: dict[str, str] = {}
    text = DOC.read_text()
    table = text[text.index("| `type` | sent to |") :].split("\n\n", 1)[0]
    for line in table.splitlines()[2:]:  # past the header and its rule
        if (m := ROW.match(line)) is None:
            continue
        types = re.findall(r"`([a-z_]+)`", m.group(1))
        whom = [w.strip() for w in m.group(2).split(" / ")]
        for i, name in enumerate(types):
            found[name] = whom[i] if len(whom) == len(types) else m.group(2).strip()
    return found


def test_every_event_is_documented_and_no_other() -> None:
    assert set(documented()) == {e.value for e in Event}


def test_each_documented_audience_is_the_notices_own() -> None:
    doc = documented()
    for event in Event:
        audience = AUDIENCE[event]
        cell = doc[event.value]
        # The notices name the narrower group where the docs speak for the webhook's reader.
        expected = {
            "the invited person; administrators": "administrators",
            "provider administrators": "providers",
        }.get(audience, audience)
        assert cell == expected, (event.value, cell, audience)
