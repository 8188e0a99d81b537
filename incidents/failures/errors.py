"""Errors raised by the failed-run analysis. Every input problem is one of these, never a bare
ValueError or a crash, so the upload pipeline and the CLI can show a one-line reason."""

from __future__ import annotations


class FailureInputError(ValueError):
    """Evidence for a failed run that cannot be used as given."""


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
