from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

from bids.choices import IsolationClass, Region
from bids.models import Bid, BidTerms, CapacityRequest
from bids.models.bids import REQUIRED_TO_SUBMIT, validate_bid_terms
from bids.models.envelope import INFERENCE_FIELDS, SCHEDULING_FIELDS
from bids.models.requests import (
    ALLOCATION_FIELDS,
    PURCHASING_FIELDS,
    TERM_FIELDS,
    WORKLOAD_FIELDS,
    default_offer_kinds,
)
from core.forms import bounds_from_model
from core.uploads import NamedFileField
from engine.formatting import data_size
from engine.scoring.offer_kinds import MIG_PROFILES
from orgs.models import Organization

DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")

REQUEST_FIELDSETS: list[tuple[str, list[str]]] = [
    ("What you need", ["title", "description"]),
    ("Allocation", list(ALLOCATION_FIELDS)),
    ("Term and bidding", [*TERM_FIELDS, "bid_deadline", "sealed"]),
    ("Workload profile", list(WORKLOAD_FIELDS)),
]
# The page's form also holds the buyer's own purchasing references, which no provider reads.
FORM_FIELDSETS = [*REQUEST_FIELDSETS, ("Purchasing (your organisation only)", [*PURCHASING_FIELDS])]


class CapacityRequestForm(forms.ModelForm):
    # Not required here: the model's own check words the one message ("Choose at least one ...").
    acceptable_regions = forms.MultipleChoiceField(
        choices=Region.choices,
        widget=forms.CheckboxSelectMultiple,
        label="Acceptable regions",
        required=False,
    )
    acceptable_regions.needed_to_submit = True  # type: ignore[attr-defined]  # keeps the asterisk
    # Not required here either: the model's check words an empty choice.
    accepted_offer_kinds = forms.MultipleChoiceField(
        choices=IsolationClass.choices,
        widget=forms.CheckboxSelectMultiple,
        label="Accepted offer kinds",
        required=False,
        initial=default_offer_kinds,
        help_text="Whole devices, MIG instances, time-sliced replicas: bids of other kinds are "
        "refused. Scoring compares them per whole-device-equivalent hour.",
    )
    accepted_offer_kinds.needed_to_submit = True  # type: ignore[attr-defined]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        bounds_from_model(self)

    class Meta:
        model = CapacityRequest
        fields = [name for _, names in FORM_FIELDSETS for name in names]
        widgets = {
            "reservation_start": DATE,
            "reservation_end": DATE,
            "bid_deadline": DATETIME,
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def fieldsets(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, [self[name] for name in names]) for title, names in FORM_FIELDSETS]


class InviteForm(forms.Form):
    providers = forms.ModelMultipleChoiceField(
        queryset=Organization.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one provider to invite."},
    )

    def __init__(self, *args: Any, choices: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["providers"].queryset = choices  # type: ignore[attr-defined]


OFFER_KIND_FIELDSET = "Offer kind"
BID_FIELDSETS: list[tuple[str, list[str]]] = [
    (
        "Price and term",
        [
            "price_per_gpu_hour",
            "fees_usd",
            "egress_usd",
            "billing_terms",
            "region",
            "site",
            "available_start",
            "available_end",
        ],
    ),
    (
        "Hardware and fabric",
        [
            "gpu_model",
            "nodes",
            "gpus_per_node",
            "nvlink_domain_size",
            "fabric",
            "nics_per_node",
            "nic_rate_gbps",
            "rail_optimised",
            "oversubscription_ratio",
            "leaf_switches",
        ],
    ),
    (
        OFFER_KIND_FIELDSET,
        ["isolation_class", "mig_profile", "time_slice_replicas"],
    ),
    (
        "Scheduler",
        ["scheduler", "topology_aware", "gang_scheduling", "health_checks_auto_drain"],
    ),
    (
        "SLA and operations",
        [
            "uptime_pct",
            "sla_credits",
            "node_replacement_hours",
            "spares_count",
            "spares_location",
            "coverage",
            "declared_node_mtbf_hours",
            "site_readiness",
            "notes",
        ],
    ),
    ("Service envelope", list(SCHEDULING_FIELDS)),
    ("Inference offer (leave empty for training-only capacity)", list(INFERENCE_FIELDS)),
]


class BidForm(forms.ModelForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A draft may be incomplete; these must be filled before it can be submitted.
        for name in REQUIRED_TO_SUBMIT:
            self.fields[name].needed_to_submit = True  # type: ignore[attr-defined]
        bounds_from_model(self)
        gpu_model = self.instance.request.gpu_model if self.instance.request_id else ""
        if profiles := MIG_PROFILES.get(gpu_model):
            # The profiles of the GPU the request asks for, so the provider types a real one.
            self.fields[
                "mig_profile"
            ].help_text = (
                f"MIG offers: the instance profile sold. {gpu_model}: {', '.join(profiles)}."
            )

    class Meta:
        model = Bid
        fields = [name for _, names in BID_FIELDSETS for name in names]
        widgets = {
            "available_start": DATE,
            "available_end": DATE,
            "notes": forms.Textarea(attrs={"rows": 3}),
        }

    def fieldsets(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, [self[name] for name in names]) for title, names in BID_FIELDSETS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        probe = Bid(**{k: v for k, v in cleaned.items() if k in BidTerms.term_field_names()})
        capacity_request = self.instance.request if self.instance.request_id else None
        errors = validate_bid_terms(probe, for_submit=False, capacity_request=capacity_request)
        if errors:
            raise ValidationError(errors)
        return cleaned


class ConfirmForm(forms.Form):
    """A move the request's table says needs a confirmation (close, cancel, reopen)."""

    confirm = forms.BooleanField(required=False)


class ReopenForm(ConfirmForm):
    # Not required here: the service words a missing or past deadline on this field.
    bid_deadline = forms.DateTimeField(label="New bid deadline", required=False, widget=DATETIME)
    confirm = forms.BooleanField(
        required=False,
        label="I confirm: providers can bid and revise again until the new deadline, and bids "
        "already opened stay visible to us.",
    )


class AddendumForm(ConfirmForm):
    # Not required or bounded here: the service words each field's error (see addendum_publish).
    title = forms.CharField(label="Title", required=False)
    text = forms.CharField(label="Text", required=False, widget=forms.Textarea(attrs={"rows": 6}))
    # A change to the request: optional, checked by the service.
    bid_deadline = forms.DateTimeField(
        label="Extend the bid deadline to",
        required=False,
        widget=DATETIME,
        help_text="Optional. Only a later deadline; invitees see the old and the new one.",
    )
    summary = forms.CharField(
        label="What changed in the request",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Optional. One or two lines invitees read above the text.",
    )
    confirm = forms.BooleanField(
        required=False,
        label="I confirm: every invited provider is told now, and a published addendum cannot "
        "be edited or withdrawn (a correction is a new addendum).",
    )


class ShortlistChoice(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.provider.name} — revision {obj.latest_revision_number}"


class FinalRoundForm(ConfirmForm):
    # Not required here: the service words an empty shortlist and a missing or past deadline.
    shortlist = ShortlistChoice(
        queryset=Bid.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Shortlisted bids",
        help_text="Only these providers may revise; the others' bids stay as submitted.",
    )
    bid_deadline = forms.DateTimeField(
        label="Final-round deadline", required=False, widget=DATETIME
    )
    confirm = forms.BooleanField(
        required=False,
        label="I confirm: the shortlisted providers may revise until the new deadline, sealed "
        "until then, and every invited provider is told whether it is shortlisted.",
    )

    confirm_single = forms.BooleanField(
        required=False,
        label="I understand: with one shortlisted bid, the final round is with that provider "
        "alone, the other bids can no longer win, and the round cannot be undone or repeated.",
    )

    def __init__(self, *args: Any, bids: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["shortlist"].queryset = bids  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        shortlist = data.get("shortlist") or []
        if len(shortlist) == 1 and not data.get("confirm_single"):
            # Irreversible and easy to do by a slip of one tick: ask once more, in words.
            self.add_error(
                "confirm_single",
                "Only one bid is shortlisted: this final round is a negotiation with "
                f"{shortlist[0].provider.name} alone and cannot be undone. Tick to open it "
                "anyway, or shortlist more bids.",
            )
        return data


class AttachmentForm(forms.Form):
    file = NamedFileField(
        label="File",
        help_text="A PDF, a PNG or JPEG image, or plain text, checked by its content.",
        widget=forms.ClearableFileInput(
            attrs={"accept": ".pdf,.png,.jpg,.jpeg,.txt,application/pdf,image/png,image/jpeg"}
        ),
    )
    description = forms.CharField(
        label="Description (optional)",
        max_length=200,
        required=False,
        help_text="What the file shows, e.g. 'Tier III certificate' or 'Network diagram'.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limit = data_size(settings.EVIDENCE_MAX_BYTES)
        self.fields["file"].help_text = f"{self.fields['file'].help_text} At most {limit}."
