"""Parsers for burn-in evidence (tool outputs). Pure Python: nothing here imports Django.

Public API: `parse_evidence`, `detect_kind`, `to_json`, `parse_file`, `KINDS`, `ParseError`,
`unpacked` (a gzipped upload's bytes).
"""

from engine.evidence.parsers.base import BinaryEvidence, ParseError, UnrecognisedEvidence, unpacked
from engine.evidence.parsers.registry import (
    KINDS,
    ParsedEvidence,
    detect_kind,
    parse_evidence,
    parse_file,
    to_json,
)

__all__ = [
    "KINDS",
    "BinaryEvidence",
    "ParseError",
    "ParsedEvidence",
    "UnrecognisedEvidence",
    "detect_kind",
    "parse_evidence",
    "parse_file",
    "to_json",
    "unpacked",
]
