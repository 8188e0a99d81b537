"""Pure-Python bid scoring: the goodput cost model, criteria, ranking and sensitivity.

Imports nothing from Django or the rest of the project; the Django layer builds the input
records from its models and stores `result_to_dict(score_bids(...))` in a JSONField.
"""

from .cost_model import (
    CostBreakdown,
    GoodputCurve,
    compute_cost,
    daly_interval,
    first_order_goodput,
    goodput_curve,
    young_interval,
)
from .criteria import CriterionScore, Disqualification, hard_requirement_failures
from .history import ProviderHistory, TimingRecord
from .inputs import (
    CRITERIA,
    MAX_WEIGHT,
    MODEL_VERSION,
    BidOffer,
    RequestProfile,
    ScoringInputError,
    WeightError,
    Weights,
)
from .ranking import BidScore, ScoringResult, score_bids
from .reliability import DEFAULT_NODE_MTBF_HOURS
from .sensitivity import ROBUST_WIN_SHARE, Sensitivity, WeightMove
from .serialize import result_to_dict

__all__ = [
    "CRITERIA",
    "DEFAULT_NODE_MTBF_HOURS",
    "MAX_WEIGHT",
    "MODEL_VERSION",
    "ROBUST_WIN_SHARE",
    "BidOffer",
    "BidScore",
    "CostBreakdown",
    "CriterionScore",
    "Disqualification",
    "GoodputCurve",
    "ProviderHistory",
    "RequestProfile",
    "ScoringInputError",
    "ScoringResult",
    "Sensitivity",
    "TimingRecord",
    "WeightError",
    "WeightMove",
    "Weights",
    "compute_cost",
    "daly_interval",
    "first_order_goodput",
    "goodput_curve",
    "hard_requirement_failures",
    "result_to_dict",
    "score_bids",
    "young_interval",
]
