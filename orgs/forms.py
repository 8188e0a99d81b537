"""The members page's forms: the role choices are the organisation's kind's (see roles_for)."""

from __future__ import annotations

from typing import Any

from django import forms

from orgs.models import Organization
from orgs.selectors import roles_for


class InviteForm(forms.Form):
    # A CharField: the service checks the address and names the field in its own words.
    email = forms.CharField(
        label="E-mail address",
        max_length=254,
        help_text="They join once they accept, signed in to the account with this address.",
    )
    role = forms.ChoiceField(label="Role")

    def __init__(self, *args: Any, org: Organization, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_roles(self.fields["role"], org)


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label="Role")

    def __init__(self, *args: Any, org: Organization, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_roles(self.fields["role"], org)


def _offer_roles(field: forms.Field, org: Organization) -> None:
    choices = roles_for(org)
    field.choices = choices  # type: ignore[attr-defined]
    names = ", ".join(label.lower() for _, label in choices)
    field.error_messages["invalid_choice"] = (
        f"A {org.get_kind_display().lower()} organisation's roles are: {names}."
    )
