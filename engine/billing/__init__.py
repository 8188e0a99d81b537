"""Provider usage and invoice lines: read through a per-provider column mapping, then reconciled
against the contract. Plain Python (no Django): the upload service, the API and `bench/` share it.
"""

from engine.billing.errors import UsageError
from engine.billing.lines import LineReader, UsageLine, dollars, gpu_hours, read_lines, to_micro
from engine.billing.mapping import FIELDS, GPU_MINUTES, HOURS, UNITS, Mapping, guess_mapping
from engine.billing.preview import Preview, PreviewRow, preview
from engine.billing.reader import Table, open_table
from engine.billing.reconcile import RULES, Contract, Difference, Outage, Result, money, reconcile

__all__ = [
    "FIELDS",
    "GPU_MINUTES",
    "HOURS",
    "RULES",
    "UNITS",
    "Contract",
    "Difference",
    "LineReader",
    "Mapping",
    "Outage",
    "Preview",
    "PreviewRow",
    "Result",
    "Table",
    "UsageError",
    "UsageLine",
    "dollars",
    "gpu_hours",
    "guess_mapping",
    "money",
    "open_table",
    "preview",
    "read_lines",
    "reconcile",
    "to_micro",
]
