"""Errors raised by the failed-run analysis. Every input problem is one of these, never a bare
ValueError or a crash, so the upload pipeline and the CLI can show a one-line reason."""

from __future__ import annotations

#: The largest job analysed, in ranks: twice the 65,536-GPU clusters built so far. Every entry
#: point (page, API, CLI, the analysis itself) holds to it, as the work grows with the ranks.
MAX_WORLD_SIZE = 131_072


class FailureInputError(ValueError):
    """Evidence for a failed run that cannot be used as given."""


def world_size_problem(world_size: int) -> str | None:
    """Why `world_size` cannot be analysed, or None."""
    if 1 <= world_size <= MAX_WORLD_SIZE:
        return None
    return f"The world size is 1 to {MAX_WORLD_SIZE:,} ranks; {world_size:,} is outside that."


class BundleError(FailureInputError):
    """The uploaded bundle is not a readable archive (corrupt, truncated, unknown format)."""


class BundleTooLarge(BundleError):
    """The bundle exceeds the unpacked-size or file-count limit; reading stopped there."""


class DumpError(FailureInputError):
    """A Flight Recorder dump that cannot be read (corrupt pickle/JSON, wrong shape)."""


class UnsafePickle(DumpError):
    """A pickle that references a global other than the plain containers we admit."""


class RankMapError(FailureInputError):
    """A rank→node map (CSV or JSON) that cannot be read."""


class IncidentTermsError(FailureInputError):
    """Severity clocks or recovery terms that are missing or malformed."""
