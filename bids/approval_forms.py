"""The approval policy page's forms: the thresholds, and a delegation."""

from __future__ import annotations

from typing import Any

from django import forms

from bids.forms import DATE
from bids.models import ApprovalPolicy, Delegation


class ApprovalPolicyForm(forms.ModelForm):
    class Meta:
        model = ApprovalPolicy
        fields = ["publish_one_over", "publish_two_over", "award_one_over", "award_two_over"]
        help_texts = {
            "publish_one_over": "Leave empty: publishing asks nobody, whatever the budget.",
            "award_two_over": "For example 500000: awards over $500,000 need a second approver.",
        }


class DelegationForm(forms.ModelForm):
    class Meta:
        model = Delegation
        fields = ["delegator", "delegate", "starts_on", "ends_on"]
        labels = {
            "delegator": "Approvals of",
            "delegate": "Given by",
            "starts_on": "From",
            "ends_on": "Until (included)",
        }
        widgets = {"starts_on": DATE, "ends_on": DATE}

    def __init__(self, *args: Any, delegators: Any, members: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["delegator"].queryset = delegators  # type: ignore[attr-defined]
        self.fields["delegate"].queryset = members  # type: ignore[attr-defined]
        for name in ("delegator", "delegate"):
            field = self.fields[name]
            field.label_from_instance = (  # type: ignore[attr-defined]
                lambda u: u.get_full_name() or u.get_username()
            )

    def _post_clean(self) -> None:
        # The service checks the people against the organisation; the model's own checks
        # would only repeat them in other words.
        pass
