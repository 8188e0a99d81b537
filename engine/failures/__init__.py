"""Failed-run analysis: from a bundle of logs and dumps to the initiating rank and its evidence.

Pure Python (no Django): the upload pipeline, the CLI and the tests share it.

    sources = read_bundle(data, name="run.tar.gz")
    result = analyse(sources, world_size=512)
    result.initiating_rank, result.to_json()
"""

from __future__ import annotations

from .analysis import Analysis, analyse
from .bundle import (
    BundleLimits,
    iter_bundle,
    iter_paths,
    iter_uploads,
    read_bundle,
    read_paths,
    unreadable_reason,
)
from .checkpoints import CheckpointVerdict, assess_checkpoints, parse_listing
from .errors import (
    MAX_WORLD_SIZE,
    BundleError,
    BundleTooLarge,
    DumpError,
    FailureInputError,
    IncidentTermsError,
    RankMapError,
    UnsafePickle,
    world_size_problem,
)
from .flightrec import Mismatch
from .incident import (
    ChecklistItem,
    CheckpointEstimate,
    ClockStatus,
    IncidentClocks,
    SeverityProposal,
    clock_status,
    estimate_checkpoint,
    incident_clocks,
    lost_gpu_hours,
    propose_severity,
    recovery_checklist,
)
from .model import KINDS, Event, SourceFile
from .normalise import normalise_text
from .owner import CUSTOMER, OWNERS, PROVIDER, UNDETERMINED, contract_owner
from .rankmap import RankInfo, RankMap, parse_rank_map
from .recovery import (
    Context,
    ItemState,
    NodeShape,
    Recurrence,
    evaluate,
    terms_clocks,
    terms_recovery,
)
from .recovery_loss import LossLog, loss_tolerance, parse_loss_log
from .recovery_nccl import NcclShape
from .report import SecondaryGroup
from .skew import ClockSkew
from .stored import FIRST_CHOICES, first_ever, read_analysis, view
from .unpickle import load_dump, restricted_loads
from .window import IncidentWindow, StepRecord, incident_window, parse_step_records

__all__ = [
    "CUSTOMER",
    "FIRST_CHOICES",
    "KINDS",
    "MAX_WORLD_SIZE",
    "OWNERS",
    "PROVIDER",
    "UNDETERMINED",
    "Analysis",
    "BundleError",
    "BundleLimits",
    "BundleTooLarge",
    "ChecklistItem",
    "CheckpointEstimate",
    "CheckpointVerdict",
    "ClockSkew",
    "ClockStatus",
    "Context",
    "DumpError",
    "Event",
    "FailureInputError",
    "IncidentClocks",
    "IncidentTermsError",
    "IncidentWindow",
    "ItemState",
    "LossLog",
    "Mismatch",
    "NcclShape",
    "NodeShape",
    "RankInfo",
    "RankMap",
    "RankMapError",
    "Recurrence",
    "SecondaryGroup",
    "SeverityProposal",
    "SourceFile",
    "StepRecord",
    "UnsafePickle",
    "analyse",
    "assess_checkpoints",
    "clock_status",
    "contract_owner",
    "estimate_checkpoint",
    "evaluate",
    "first_ever",
    "incident_clocks",
    "incident_window",
    "iter_bundle",
    "iter_paths",
    "iter_uploads",
    "load_dump",
    "loss_tolerance",
    "lost_gpu_hours",
    "normalise_text",
    "parse_listing",
    "parse_loss_log",
    "parse_rank_map",
    "parse_step_records",
    "propose_severity",
    "read_analysis",
    "read_bundle",
    "read_paths",
    "recovery_checklist",
    "restricted_loads",
    "terms_clocks",
    "terms_recovery",
    "unreadable_reason",
    "view",
    "world_size_problem",
]
