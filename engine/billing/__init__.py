"""Provider usage and invoice lines: read through a per-provider column mapping, then reconciled
against the contract. Plain Python (no Django): the upload service, the API and `bench/` share it.
"""

from engine.billing.bill import Bill, Question, parse_unit, read_bill
from engine.billing.catalogue import CATALOGUE, InstanceType, lookup
from engine.billing.charges import Profile
from engine.billing.errors import UsageError
from engine.billing.guard import check_xlsx
from engine.billing.lines import LineReader, UsageLine, dollars, gpu_hours, read_lines, to_micro
from engine.billing.mapping import FIELDS, GPU_MINUTES, HOURS, UNITS, Mapping, guess_mapping
from engine.billing.nodes import NodeMatch, match_nodes
from engine.billing.preview import Preview, PreviewRow, preview
from engine.billing.profiles import PROFILES, Proposal, propose, recognise
from engine.billing.reader import Table, open_table
from engine.billing.reconcile import RULES, Contract, Difference, Outage, Result, money, reconcile
from engine.billing.sheet import Detected, Overrides

__all__ = [
    "CATALOGUE",
    "FIELDS",
    "GPU_MINUTES",
    "HOURS",
    "PROFILES",
    "RULES",
    "UNITS",
    "Bill",
    "Contract",
    "Detected",
    "Difference",
    "InstanceType",
    "LineReader",
    "Mapping",
    "NodeMatch",
    "Outage",
    "Overrides",
    "Preview",
    "PreviewRow",
    "Profile",
    "Proposal",
    "Question",
    "Result",
    "Table",
    "UsageError",
    "UsageLine",
    "check_xlsx",
    "dollars",
    "gpu_hours",
    "guess_mapping",
    "lookup",
    "match_nodes",
    "money",
    "open_table",
    "parse_unit",
    "preview",
    "propose",
    "read_bill",
    "read_lines",
    "recognise",
    "reconcile",
    "to_micro",
]
