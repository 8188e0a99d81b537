"""An organisation's administrators connect its identity provider on /org/sign-in/: the issuer
is checked against its discovery document, the secret is stored encrypted, mistakes are named
on their field with what was typed kept, and each save is on the audit trail."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ValidationError
from django.test import Client

from audit.models import AuditEntry
from core import secrets
from sso.models import OidcConnection, OidcIdentity
from sso.services import ConnectionInput, connection_save
from tests.factories import MembershipFactory, UserFactory
from tests.sso.conftest import MAPPING, connection_input, sign_in
from tests.sso.idp import CLIENT_ID, CLIENT_SECRET, Provider

pytestmark = pytest.mark.django_db
URL = "/org/sign-in/"


def _form(idp, **changes):
    values = {
        "issuer": idp.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "email_domains": "helix.example, @Helix-Labs.example",
        "groups_claim": "groups",
        "group_roles": MAPPING,
        "enabled": "on",
    }
    return {**values, **changes}


def test_an_administrator_connects_the_provider_and_members_sign_in(idp, buyer):
    response = buyer.client().post(URL, _form(idp), follow=True)
    assert "Sign-in through your identity provider is saved." in response.content.decode()
    connection = OidcConnection.objects.get(organization=buyer.org)
    assert connection.token_endpoint == f"{idp.issuer}/token"
    assert sorted(d.domain for d in connection.domains.all()) == [
        "helix-labs.example", "helix.example",
    ]  # fmt: skip
    assert CLIENT_SECRET.encode() not in bytes(connection.client_secret_encrypted)
    other = [Fernet.generate_key().decode()]
    with pytest.raises(secrets.SecretKeyError):
        secrets.decrypt(connection.client_secret_encrypted, what="it", keys=other)
    entry = AuditEntry.objects.get(action="sso.configure")
    assert entry.after["issuer"] == idp.issuer and entry.after["secret_changed"] is True
    assert CLIENT_SECRET not in str(entry.after)
    assert sign_in(Client(), "dana", "dana-pw").status_code == 302


def test_saving_again_with_an_empty_secret_keeps_the_stored_one(idp, buyer, helix_sso):
    page = buyer.client().get(URL).content.decode()
    assert CLIENT_SECRET not in page and "helix-admins = admin" in page
    buyer.client().post(URL, _form(idp, client_secret="", group_roles="helix-buyers = approver"))
    sign_in(Client(), "dana", "dana-pw")
    assert AuditEntry.objects.get(action="sso.provision").after["role"] == "approver"


@pytest.mark.parametrize(
    ("changes", "field_error"),
    [
        ({"group_roles": "helix-buyers = requester\nhelix-ops = engineer"},
         "Line 2: “engineer” is not a role here"),
        ({"group_roles": "# nothing yet"}, "Map at least one group to a role."),
        ({"email_domains": "helix..example"}, "“helix..example” is not a domain name."),
        ({"client_secret": ""}, "Give the client secret the provider issued."),
    ],
)  # fmt: skip
def test_a_mistake_is_named_and_the_input_kept(idp, buyer, changes, field_error):
    response = buyer.client().post(URL, _form(idp, **changes))
    assert response.status_code == 400
    text = response.content.decode()
    assert field_error in text
    assert 'value="clusterbid"' in text and 'value="' + idp.issuer + '"' in text
    assert not OidcConnection.objects.exists() and not AuditEntry.objects.exists()


def test_an_issuer_that_does_not_answer_discovery_is_refused(idp, buyer):
    wrong = idp.issuer + "-typo"
    text = buyer.client().post(URL, _form(idp, issuer=wrong)).content.decode()
    assert f"Could not read {wrong}/.well-known/openid-configuration: it answered HTTP 404" in text


def test_plain_http_issuers_are_refused_unless_allowed(idp, buyer, settings):
    settings.SSO_ALLOW_HTTP_ISSUERS = False
    text = buyer.client().post(URL, _form(idp)).content.decode()
    assert "must start with https://" in text


def test_a_domain_leads_to_one_organisation_only(idp, helix_sso, outsider):
    with pytest.raises(ValidationError) as caught:
        connection_save(org=outsider.org, user=outsider.user, data=connection_input(idp))
    assert "helix.example already leads to another organisation's sign-in." in str(caught.value)


def test_only_administrators_see_and_change_it(idp, buyer, helix_sso):
    approver = UserFactory(username="abel")
    MembershipFactory(user=approver, organization=buyer.org, role="approver")
    client = Client()
    client.force_login(approver)
    page = client.get(URL)
    assert page.status_code == 403
    assert (
        "Only an administrator of Helix Labs sets up its single sign-on." in page.content.decode()
    )
    assert idp.issuer not in page.content.decode()
    assert client.post(URL, _form(idp, client_id="taken-over")).status_code == 403
    assert OidcConnection.objects.get().client_id == CLIENT_ID


def test_the_members_page_leads_administrators_there(buyer):
    assert 'href="/org/sign-in/"' in buyer.client().get("/org/members/").content.decode()


def test_connection_input_carries_only_the_forms_fields():
    assert set(ConnectionInput.__dataclass_fields__) == {
        "issuer", "client_id", "client_secret", "email_domains", "groups_claim", "group_roles",
        "enabled",
    }  # fmt: skip


def test_another_issuer_unlinks_the_accounts_of_the_previous_one(idp, buyer, helix_sso):
    """Subjects are unique per issuer: the new provider's "dana" subject must not reach the
    account the previous provider's subject signed in as."""
    sign_in(Client(), "dana", "dana-pw")
    with Provider() as other:
        other.people["dana"] = idp.people["dana"]  # same subject, another issuer
        buyer.client().post(URL, _form(other, client_secret=""))
        assert not OidcIdentity.objects.exists()
        entry = AuditEntry.objects.filter(action="sso.configure").latest("seq")
        assert entry.after["accounts_unlinked"] == 1
