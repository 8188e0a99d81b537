"""Served inference responses: parsers for what serving benchmarks and request logs write, and
the figures a buyer compares with the offer's promised envelope (docs/inference-outcomes.md)."""

from engine.inference.model import ServedRequest, ServedResponses, ServedResponsesError
from engine.inference.outcome import InferenceOutcome, Promise, served_outcome
from engine.inference.registry import KINDS, detect_kind, parse_served

__all__ = [
    "KINDS",
    "InferenceOutcome",
    "Promise",
    "ServedRequest",
    "ServedResponses",
    "ServedResponsesError",
    "detect_kind",
    "parse_served",
    "served_outcome",
]
