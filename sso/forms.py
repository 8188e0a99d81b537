from __future__ import annotations

from typing import Any

from django import forms

from engine.groupmap import GroupRule, format_group_roles
from orgs.models import Organization
from sso.models import OidcConnection
from sso.services import ConnectionInput


class SignInForm(forms.Form):
    who = forms.CharField(
        label="Your work e-mail address or your organisation's short name",
        max_length=254,
        widget=forms.TextInput(attrs={"autocomplete": "email"}),
    )


class ConnectionForm(forms.Form):
    issuer = forms.URLField(
        label="Issuer",
        max_length=500,
        assume_scheme="https",
        help_text="As the provider shows it, e.g. https://login.example.com/realms/acme; "
        "its /.well-known/openid-configuration must be reachable from Clusterbid.",
    )
    client_id = forms.CharField(label="Client ID", max_length=255)
    client_secret = forms.CharField(
        label="Client secret",
        max_length=500,
        required=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted. Leave empty to keep the stored secret.",
    )
    email_domains = forms.CharField(
        label="E-mail domains",
        max_length=1000,
        required=False,
        help_text="Separated by commas: people typing an address at one of them on the sign-in "
        "page are sent to this provider. They can also type the organisation's short name.",
    )
    groups_claim = forms.CharField(
        label="Groups claim", max_length=100, initial="groups",
        help_text="The claim of the ID token or userinfo that lists the person's groups.",
    )  # fmt: skip
    group_roles = forms.CharField(
        label="Groups and roles",
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="One “group = role” per line. A person in several groups gets the highest "
        "role; a person in none of them is refused.",
    )
    enabled = forms.BooleanField(label="Members may sign in this way", required=False)

    def __init__(
        self, *args: Any, org: Organization, connection: OidcConnection | None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.connection = connection
        if connection is None:
            self.fields["client_secret"].help_text = "Stored encrypted."
            self.fields["enabled"].initial = True
            return
        self.initial.update(
            issuer=connection.issuer,
            client_id=connection.client_id,
            email_domains=", ".join(d.domain for d in connection.domains.all()),
            groups_claim=connection.groups_claim,
            group_roles=format_group_roles(
                GroupRule(group=group, role=role) for group, role in connection.group_roles
            ),
            enabled=connection.enabled,
        )

    def connection_input(self) -> ConnectionInput:
        return ConnectionInput(**self.cleaned_data)
