"""Award optimisation: split a request's lots between bids under the buyer's business rules.

Plain Python over HiGHS (`highspy`); nothing here imports Django. The interface, kept stable for
the apps that store scenarios and run them in a Celery task:

Inputs (`model.py`, frozen dataclasses; money and fractions as `Decimal`):
- `LotSpec(key, gpus, gpus_per_node, divisible=False, min_block_nodes=1,
  fabric_domain_required=False, region=None, number=0)`: the GPUs to cover exactly, in whole
  nodes (`engine.lots`' record of a lot, the one the bid checks read too).
- `Offer(key, provider, lot, max_nodes, price_per_gpu_hour, hours, useful_fraction, region,
  fabric_domain)`: one bid line; `useful_fraction` is useful GPU-hours per paid GPU-hour, from
  the scoring.
- `Bundle(provider, kind, lots=(), discount_pct=0, max_gpus=None)`, `kind` one of
  "all_or_nothing" (these lots together or none), "discount" (−pct % on these lots' value
  when awarded some of each) and "max_total" (at most `max_gpus` GPUs on these lots, or all).
- `Scenario(objective, min_providers, max_providers, max_share_pct, share_basis ("gpus" or
  "value"), min_share_pct {provider: pct}, min_regions, budget, excluded_providers,
  one_fabric_domain_per_lot, required_useful_gpu_hours)`; `objective` is
  "max_useful_per_dollar" or "min_cost_for_required_useful".

`solve(scenario, lots, offers, bundles=(), *, time_limit_s=30.0, with_rule_costs=True,
rel_gap=1e-6) -> AwardResult`:
- `status`: "optimal", "best_found" (time ran out; `mip_gap` is the relative gap left),
  "infeasible" or "no_solution" (time ran out before any allocation);
- `lines`: the awarded offers with nodes, GPUs, value and useful GPU-hours (`allocation` gives
  offer key → nodes); `figures`: list value, discounts, cost, useful GPU-hours and their ratio,
  all exact `Decimal`s recomputed from the integer allocation;
- `rule_costs`: for each rule in force (`rules.py` lists the keys), the scenario's cost and
  useful GPU-hours less those of the same scenario without the rule;
- `conflicts` (infeasible only): the rules whose removal, alone (or failing that in pairs),
  makes it feasible; `uncoverable_lots` when no rule is to blame;
- `ineligible`: offers that can take no part (wrong region, too small for the lot), with why.
`result_to_dict(result)` gives the answer as JSON types (Decimals as strings) for a JSONField
or a Celery result. Bad input raises `AwardInputError` naming the field.
docs/award-optimisation.md has the model, the ratio objective (Dinkelbach's method) and a
worked example.
"""

from engine.lots.model import LotSpec

from .formulation import Rule
from .model import (
    AwardInputError,
    AwardResult,
    Bundle,
    Conflict,
    Figures,
    Line,
    Offer,
    RuleCost,
    Scenario,
)
from .serialize import result_to_dict
from .solve import solve

__all__ = [
    "AwardInputError",
    "AwardResult",
    "Bundle",
    "Conflict",
    "Figures",
    "Line",
    "LotSpec",
    "Offer",
    "Rule",
    "RuleCost",
    "Scenario",
    "result_to_dict",
    "solve",
]
