"""The scenario form: typed fields, one minimum-share field and one exclusion box per bidder,
so an error names the field and a refused form keeps what was typed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from evaluation.scenario_models import SCENARIO_FIELDS, AwardScenario

PLAIN = [f for f in SCENARIO_FIELDS if f not in ("min_share", "excluded_providers")]


class ScenarioForm(forms.ModelForm):
    class Meta:
        model = AwardScenario
        fields = PLAIN
        labels = {"required_useful_gpu_hours": "Required useful GPU-hours"}
        help_texts = {
            "required_useful_gpu_hours": "For the lowest-cost objective: a floor on the award's "
            "useful GPU-hours; empty: no floor (every lot is covered in full either way)."
        }

    def __init__(self, *args: Any, bidders: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bidders = bidders
        shares = self.instance.min_share or {}
        self.fields["excluded_providers"] = forms.TypedMultipleChoiceField(
            label="Excluded providers",
            choices=bidders,
            coerce=int,
            required=False,
            widget=forms.CheckboxSelectMultiple,
            initial=list(self.instance.excluded_providers or []),
        )
        for org_id, name in bidders:
            self.fields[f"min_share_{org_id}"] = forms.DecimalField(
                label=f"Minimum share for {name} (%)",
                min_value=Decimal(0),
                max_value=Decimal(100),
                decimal_places=2,
                required=False,
                initial=shares.get(str(org_id)),
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # The model's own checks (run next) see the rules as they will be stored.
        if "excluded_providers" in cleaned:
            self.instance.excluded_providers = sorted(cleaned["excluded_providers"])
        self.instance.min_share = self._shares(cleaned)
        return cleaned

    def _update_errors(self, errors: ValidationError) -> None:
        if hasattr(errors, "error_dict") and "min_share" in errors.error_dict:
            target = f"min_share_{self.bidders[0][0]}" if self.bidders else NON_FIELD_ERRORS
            errors.error_dict.setdefault(target, []).extend(errors.error_dict.pop("min_share"))
        super()._update_errors(errors)  # type: ignore[misc]

    def _shares(self, cleaned: dict[str, Any]) -> dict[str, str]:
        return {
            str(org_id): str(value)
            for org_id, _ in self.bidders
            if (value := cleaned.get(f"min_share_{org_id}")) is not None
        }

    def share_fields(self) -> list[forms.BoundField]:
        return [self[f"min_share_{org_id}"] for org_id, _ in self.bidders]

    def scenario_data(self) -> dict[str, Any]:
        """What the services take: the plain fields, and the per-bidder fields folded back."""
        data = {name: self.cleaned_data[name] for name in PLAIN}
        data["excluded_providers"] = sorted(self.cleaned_data["excluded_providers"])
        data["min_share"] = self._shares(self.cleaned_data)
        return data
