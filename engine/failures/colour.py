"""Terminal colour codes as logs keep them: Ray, vLLM and rich colour their prefixes when they
write to a terminal (`\\x1b[36m(RayTrainWorker pid=4242)\\x1b[0m`), and rsyslog, which escapes
control characters by default, stores the same codes as `#033[2m#033[33m(raylet)#033[0m`. The
codes sit inside the prefixes every reader matches, so they are taken out before any line is
read."""

from __future__ import annotations

import re

# CSI sequences (colour, erase line); rsyslog's escaped form only for colour and erase, the
# codes a log carries, so that no other `#033[` text is touched.
_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|#033\[[0-9;]*[mK]")


def without_colour(text: str) -> str:
    """`text` without terminal colour codes; unchanged (the same object) when it has none."""
    if "\x1b[" not in text and "#033[" not in text:
        return text
    return _CSI.sub("", text)
