"""Pausing Python's cyclic garbage collector around work that builds many small objects.

Parsing a 4,096-rank step-time file, rebuilding a stored parse result and laying out a PDF each
allocate hundreds of thousands of short-lived objects, none of them in reference cycles. Each
full collection those allocations trigger also walks every long-lived object of a warm Django
process (about a fifth of an annex render; up to 0.1 s at random in a burn-in re-check).
Reference counting still frees everything; the collector resumes afterwards. Plain Python: the
parsers, which import no Django, use it too.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector is off inside, and back on after unless it was already off (a
    nested or concurrent pause leaves it to whoever paused it first)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
