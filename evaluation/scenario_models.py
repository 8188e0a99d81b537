"""Award scenarios kept with a request: the buyer's objective and business rules, and the
optimiser's stored answer (`engine.award.result_to_dict`).

Providers are named by organisation id in the rules (names can change); the service turns
them into the names the engine and its rule keys use."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from bids.models.requests import CapacityRequest


class ScenarioObjective(models.TextChoices):
    MAX_USEFUL_PER_DOLLAR = "max_useful_per_dollar", "Most useful GPU-hours per dollar"
    MIN_COST = "min_cost_for_required_useful", "Lowest cost for the required useful GPU-hours"


class ShareBasis(models.TextChoices):
    GPUS = "gpus", "GPUs"
    VALUE = "value", "Value"


class ScenarioStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    SOLVING = "solving", "Solving"
    SOLVED = "solved", "Solved"
    INFEASIBLE = "infeasible", "Infeasible"
    FAILED = "failed", "Failed"


PCT = [MinValueValidator(0), MaxValueValidator(100)]
AT_LEAST_1 = [MinValueValidator(1)]


class AwardScenario(models.Model):
    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="award_scenarios"
    )
    name = models.CharField(max_length=120)
    objective = models.CharField(
        max_length=40, choices=ScenarioObjective.choices, default=ScenarioObjective.MIN_COST
    )
    min_providers = models.PositiveIntegerField(null=True, blank=True, validators=AT_LEAST_1)
    max_providers = models.PositiveIntegerField(null=True, blank=True, validators=AT_LEAST_1)
    max_share_pct = models.DecimalField(
        "Maximum share per provider (%)",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=PCT,
    )
    share_basis = models.CharField(max_length=8, choices=ShareBasis.choices, default="gpus")
    # {"<provider org id>": "<pct>"}: incumbents that keep at least that share.
    min_share = models.JSONField(default=dict, blank=True)
    min_regions = models.PositiveIntegerField(
        "At least N regions", null=True, blank=True, validators=AT_LEAST_1
    )
    budget = models.DecimalField(
        "Budget cap ($)",
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01"))],
    )
    # [<provider org id>, ...]
    excluded_providers = models.JSONField(default=list, blank=True)
    one_fabric_domain_per_lot = models.BooleanField("Each lot in one fabric domain", default=False)
    required_useful_gpu_hours = models.DecimalField(
        max_digits=16, decimal_places=1, null=True, blank=True, validators=[MinValueValidator(0)]
    )
    status = models.CharField(
        max_length=12, choices=ScenarioStatus.choices, default=ScenarioStatus.QUEUED
    )
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # Raised by every edit and solve request: a task stores its answer only for the revision
    # it was queued for, so a late answer to an old definition never overwrites a newer one.
    revision = models.PositiveIntegerField(default=0)
    solved_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["request", "created_at", "pk"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = scenario_errors(self)
        if errors:
            raise ValidationError(errors)

    @property
    def finished(self) -> bool:
        return self.status not in (ScenarioStatus.QUEUED, ScenarioStatus.SOLVING)


# What a scenario states, in the order forms, the API and the audit list them.
SCENARIO_FIELDS = (
    "name",
    "objective",
    "min_providers",
    "max_providers",
    "max_share_pct",
    "share_basis",
    "min_share",
    "min_regions",
    "budget",
    "excluded_providers",
    "one_fabric_domain_per_lot",
    "required_useful_gpu_hours",
)


def _pct(value: object) -> Decimal | None:
    try:
        pct = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return pct if pct.is_finite() and 0 <= pct <= 100 else None


def scenario_errors(s: AwardScenario) -> dict[str, list[str]]:
    """Field-level messages for rules that contradict each other or are malformed."""
    errors: dict[str, list[str]] = {}
    if s.min_providers and s.max_providers and s.min_providers > s.max_providers:
        errors["max_providers"] = [
            f"At most {s.max_providers} provider{'s' if s.max_providers != 1 else ''} cannot "
            f"meet the minimum of {s.min_providers}."
        ]
    if s.max_share_pct is not None and s.max_share_pct <= 0:
        errors["max_share_pct"] = ["Give a share above 0 %, or leave it empty for no cap."]
    if not isinstance(s.min_share, dict):
        errors["min_share"] = ["Give minimum shares as {provider id: percent}."]
    else:
        bad = [str(k) for k, v in s.min_share.items() if not str(k).isdigit() or _pct(v) is None]
        if bad:
            errors["min_share"] = [f"Give each minimum share as 0–100 %: {', '.join(bad)}."]
        elif sum((_pct(v) or Decimal(0)) for v in s.min_share.values()) > 100:
            errors["min_share"] = ["The minimum shares add up to more than 100 %."]
    ids = s.excluded_providers
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        errors["excluded_providers"] = ["Give excluded providers as a list of provider ids."]
    elif isinstance(s.min_share, dict) and (both := {str(i) for i in ids} & set(s.min_share)):
        errors["excluded_providers"] = [
            f"Provider {', '.join(sorted(both))} cannot be excluded and keep a minimum share."
        ]
    if s.required_useful_gpu_hours and s.objective != ScenarioObjective.MIN_COST:
        errors["required_useful_gpu_hours"] = [
            "Required useful GPU-hours apply to the lowest-cost objective only."
        ]
    return errors


class ScenarioAward(models.Model):
    """A scenario awarded: its allocation became one reservation per (lot, provider). One per
    request (a request is awarded once), so a second submit finds it instead of awarding again."""

    request = models.OneToOneField(
        CapacityRequest, on_delete=models.PROTECT, related_name="scenario_award"
    )
    scenario = models.OneToOneField(AwardScenario, on_delete=models.PROTECT, related_name="award")
    # Kept as awarded: the scenario's name and answer may be edited afterwards.
    scenario_name = models.CharField(max_length=120)
    result = models.JSONField(default=dict)
    reservations = models.ManyToManyField("acceptance.Reservation", related_name="+")
    justification = models.TextField(blank=True, max_length=4000)
    awarded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    awarded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.scenario_name} awarded"
