"""Forms of the request's gate and of inviting, and joining as, a new provider."""

from __future__ import annotations

from typing import Any

from django import forms

from bids.models import DetailsGate
from core.limits import TEXT_LIMIT
from core.uploads import NamedFileField
from suppliers.choices import DocumentType


class GateForm(forms.Form):
    nda_text = forms.CharField(
        label="NDA text",
        required=False,
        max_length=TEXT_LIMIT,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="What an administrator of each invited provider accepts before the details "
        "open. Leave empty if the NDA is only the file.",
    )
    nda_file = NamedFileField(
        label="NDA file", required=False, help_text="A PDF, a PNG or JPEG image, or plain text."
    )
    remove_file = forms.BooleanField(label="Remove the NDA file", required=False)
    required_documents = forms.MultipleChoiceField(
        label="Required compliance documents",
        required=False,
        choices=DocumentType.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text="Each invitee must hold a current one on its supplier profile to accept.",
    )

    @classmethod
    def for_gate(cls, gate: DetailsGate | None, data: Any = None, files: Any = None) -> GateForm:
        initial = (
            {"nda_text": gate.nda_text, "required_documents": gate.required_documents}
            if gate
            else {}
        )
        return cls(data, files, initial=initial)


class SupplierInviteForm(forms.Form):
    email = forms.EmailField(label="E-mail address", max_length=254)
    company = forms.CharField(
        label="Company", max_length=120, required=False, help_text="Optional, for your list."
    )


class JoinForm(forms.Form):
    organization_name = forms.CharField(label="Organisation name", max_length=120)
    username = forms.CharField(label="Username", max_length=150)
    email = forms.EmailField(label="E-mail address", max_length=254)
    password1 = forms.CharField(
        label="Password", widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )
    password2 = forms.CharField(
        label="Password again",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("password1") and cleaned.get("password1") != cleaned.get("password2"):
            self.add_error("password2", "The two passwords differ; type the same one twice.")
        return cleaned
