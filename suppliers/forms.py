from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from core.limits import year_problem
from core.uploads import NamedFileField
from suppliers.models import EXPIRY_AFTER_ISSUE, ComplianceDocument, SupplierProfile

DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class ProfileForm(forms.ModelForm):
    website = forms.URLField(max_length=200, required=False, assume_scheme="https")

    class Meta:
        model = SupplierProfile
        fields = [
            "legal_name",
            "website",
            "regions",
            "contact_name",
            "contact_email",
            "contact_phone",
        ]


class DocumentForm(forms.ModelForm):
    file = NamedFileField(help_text="A PDF, a PNG or JPEG image, or plain text.")

    class Meta:
        model = ComplianceDocument
        fields = ["doc_type", "issuer", "issued_on", "expires_on"]
        widgets = {"issued_on": DATE, "expires_on": DATE}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in ("issued_on", "expires_on"):
            value = cleaned.get(name)
            if isinstance(value, date) and (problem := year_problem(value.year)):
                self.add_error(name, problem)
        issued, expires = cleaned.get("issued_on"), cleaned.get("expires_on")
        if isinstance(issued, date) and isinstance(expires, date) and expires <= issued:
            self.add_error("expires_on", EXPIRY_AFTER_ISSUE)
        return cleaned

    def validate_constraints(self) -> None:
        """The dates' rule is checked above, on the field; the service checks it again."""
