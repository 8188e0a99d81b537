"""Failed-run analysis: from a bundle of logs and dumps to the initiating rank and its evidence.

Pure Python (no Django): the upload pipeline, the CLI and the tests share it.

    sources = read_bundle(data, name="run.tar.gz")
    result = analyse(sources, world_size=512)
    result.initiating_rank, result.to_json()
"""

from __future__ import annotations

from .analysis import Analysis, SecondaryGroup, analyse
from .bundle import BundleLimits, read_bundle, read_paths
from .errors import (
    BundleError,
    BundleTooLarge,
    DumpError,
    FailureInputError,
    IncidentTermsError,
    RankMapError,
    UnsafePickle,
)
from .flightrec import Mismatch
from .incident import (
    ChecklistItem,
    ClockStatus,
    IncidentClocks,
    SeverityProposal,
    clock_status,
    incident_clocks,
    lost_gpu_hours,
    propose_severity,
    recovery_checklist,
)
from .model import KINDS, Event, SourceFile
from .normalise import normalise_text
from .rankmap import RankInfo, RankMap, parse_rank_map
from .skew import ClockSkew
from .unpickle import load_dump, restricted_loads

__all__ = [
    "KINDS",
    "Analysis",
    "BundleError",
    "BundleLimits",
    "BundleTooLarge",
    "ChecklistItem",
    "ClockSkew",
    "ClockStatus",
    "DumpError",
    "Event",
    "FailureInputError",
    "IncidentClocks",
    "IncidentTermsError",
    "Mismatch",
    "RankInfo",
    "RankMap",
    "RankMapError",
    "SecondaryGroup",
    "SeverityProposal",
    "SourceFile",
    "UnsafePickle",
    "analyse",
    "clock_status",
    "incident_clocks",
    "load_dump",
    "lost_gpu_hours",
    "normalise_text",
    "parse_rank_map",
    "propose_severity",
    "read_bundle",
    "read_paths",
    "recovery_checklist",
    "restricted_loads",
]
