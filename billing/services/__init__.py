"""Writes for billing: store an uploaded usage file, set how it is read, reconcile, retry.

The bytes are stored before anything reads them; a file that cannot be read keeps its row, its
error (line and column) and its bytes, so a fixed mapping can run it again. A reconciliation
always ends: done, or failed with a reason and a Retry (a lost worker, the time limit, the
reaper in billing.jobs); a broker that is away leaves the row queued and the caller a 503.
"""

from billing.services.common import LOST_WORKER, MAX_LISTED, UsageRefused
from billing.services.inspection import usage_inspect, usage_mark_inspection_error
from billing.services.mappings import clean_mapping, usage_map, usage_map_bill
from billing.services.reconciling import (
    credits_for_period,
    usage_mark_error,
    usage_reconcile,
)
from billing.services.uploads import usage_retry, usage_upload

__all__ = [
    "LOST_WORKER",
    "MAX_LISTED",
    "UsageRefused",
    "clean_mapping",
    "credits_for_period",
    "usage_inspect",
    "usage_map",
    "usage_map_bill",
    "usage_mark_error",
    "usage_mark_inspection_error",
    "usage_reconcile",
    "usage_retry",
    "usage_upload",
]
