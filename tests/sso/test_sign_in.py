"""Signing in through Helix Labs' identity provider, a real one on a loopback port: the first
sign-in makes the account and the membership with the role the groups map to, later ones
follow the groups, and whatever the provider cannot vouch for is refused in words."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from audit.models import AuditEntry
from orgs.models import Membership
from sso.models import OidcIdentity
from tests.sso.conftest import sign_in

pytestmark = pytest.mark.django_db


def _dana() -> User:
    return OidcIdentity.objects.select_related("user").get(subject__isnull=False).user


def test_the_first_sign_in_provisions_the_member_with_the_mapped_role(idp, helix_sso, buyer):
    client = Client()
    landed = sign_in(client, "dana", "dana-pw")
    assert landed.status_code == 302 and landed["Location"] == "/"
    dana = _dana()
    assert (dana.username, dana.email, dana.get_full_name()) == (
        "dana@helix.example", "dana@helix.example", "Dana Reyes",
    )  # fmt: skip
    assert not dana.has_usable_password()
    membership = Membership.objects.get(user=dana)
    assert (membership.organization, membership.role) == (buyer.org, "requester")
    entry = AuditEntry.objects.get(action="sso.provision")
    assert entry.org_id == buyer.org.pk and entry.actor == dana
    assert entry.after == {"member": "dana@helix.example", "role": "requester",
                           "subject": idp.people["dana"].sub}  # fmt: skip
    home = client.get("/", follow=True)
    assert "Helix Labs" in home.content.decode()


def test_a_later_sign_in_takes_the_role_from_the_groups(idp, helix_sso):
    sign_in(Client(), "dana", "dana-pw")
    idp.people["dana"].groups = ["helix-buyers", "helix-approvers", "unrelated"]
    sign_in(Client(), "dana", "dana-pw")
    assert Membership.objects.get(user=_dana()).role == "approver"
    entry = AuditEntry.objects.get(action="sso.role")
    assert (entry.before["role"], entry.after["role"]) == ("requester", "approver")
    sign_in(Client(), "dana", "dana-pw")
    assert AuditEntry.objects.filter(action="sso.role").count() == 1  # unchanged: no entry
    assert User.objects.filter(email="dana@helix.example").count() == 1


def test_groups_that_map_to_nothing_are_refused_in_words(idp, helix_sso):
    idp.people["dana"].groups = ["marketing"]
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code == 403
    text = refused.content.decode()
    assert "None of your groups at 127.0.0.1" in text and "gives you a role in Helix Labs" in text
    assert "“marketing”" in text and "Ask an administrator of Helix Labs" in text
    assert not OidcIdentity.objects.exists()
    assert not Membership.objects.filter(user__email="dana@helix.example").exists()
    assert "_auth_user_id" not in refused.wsgi_request.session


def test_the_last_administrator_keeps_the_role_whatever_the_groups(idp, helix_sso, buyer):
    Membership.objects.filter(organization=buyer.org).update(role="approver")
    idp.people["dana"].groups = ["helix-admins"]
    sign_in(Client(), "dana", "dana-pw")
    idp.people["dana"].groups = ["helix-buyers"]
    sign_in(Client(), "dana", "dana-pw")
    assert Membership.objects.get(user=_dana()).role == "admin"


def test_a_password_account_with_the_same_address_is_never_taken_over(idp, helix_sso, provider):
    provider.user.email = "dana@helix.example"
    provider.user.save()
    sign_in(Client(), "dana", "dana-pw")
    dana = _dana()
    assert dana != provider.user and dana.username == "dana@helix.example"
    assert not Membership.objects.filter(user=provider.user, organization=helix_sso.organization)


def test_the_organisations_short_name_leads_there_too(idp, helix_sso):
    assert sign_in(Client(), "dana", "dana-pw", who="HELIX").status_code == 302
    assert Membership.objects.filter(user=_dana()).exists()


def test_an_address_no_organisation_signs_in_with_is_told_and_kept(helix_sso):
    page = Client().post("/accounts/sso/", {"who": "someone@elsewhere.example"})
    assert page.status_code == 400
    text = page.content.decode()
    assert "No organisation signs in through its identity provider with that address" in text
    assert 'value="someone@elsewhere.example"' in text


def test_a_switched_off_connection_leads_nowhere(idp, helix_sso):
    helix_sso.enabled = False
    helix_sso.save()
    assert Client().post("/accounts/sso/", {"who": "dana@helix.example"}).status_code == 400


@pytest.mark.parametrize(
    "tamper",
    [{"nonce": "another-nonce"}, {"aud": "another-client"}, {"iss": "https://evil.example"},
     {"exp": 1_000_000}],
    ids=["nonce", "audience", "issuer", "expired"],
)  # fmt: skip
def test_an_id_token_that_does_not_match_the_sign_in_is_refused(idp, helix_sso, tamper):
    idp.tamper = tamper
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code in (400, 403)
    assert "could not be verified" in refused.content.decode()
    assert not OidcIdentity.objects.exists()


def test_an_id_token_signed_with_a_key_the_provider_does_not_publish_is_refused(idp, helix_sso):
    idp.sign_with_unpublished_key = True
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code in (400, 403)
    assert not OidcIdentity.objects.exists()


def test_a_callback_this_browser_did_not_start_is_refused(idp, helix_sso):
    victim, attacker = Client(), Client()
    attacker.get("/accounts/sso/", {"who": "dana@helix.example"})
    forged = victim.get("/accounts/sso/callback/", {"code": "abc", "state": "made-up"})
    assert forged.status_code == 400
    assert "was not started in this browser" in forged.content.decode()


def test_a_callback_cannot_be_replayed(idp, helix_sso):
    client = Client()
    first = sign_in(client, "dana", "dana-pw")
    assert first.status_code == 302
    again = client.get(first.wsgi_request.get_full_path())
    assert again.status_code == 400 and "already used" in again.content.decode()


def test_a_code_the_providers_token_endpoint_refuses_is_told_not_a_server_error(
    idp, helix_sso, buyer
):
    from sso.services import connection_save
    from tests.sso.conftest import connection_input

    connection_save(
        org=buyer.org, user=buyer.user, data=connection_input(idp, client_secret="rotated")
    )
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code == 400
    assert "The identity provider of Helix Labs did not sign you in" in refused.content.decode()


def test_the_address_never_travels_in_a_url(idp, helix_sso):
    """Addresses in URLs end up in access logs, browser history and Referer headers."""
    client = Client()
    page = client.get("/accounts/login/").content.decode()
    assert '<form method="post" action="/accounts/sso/">' in page
    start = client.post("/accounts/sso/", {"who": "dana@helix.example", "next": "/inbox/"})
    assert start.status_code == 302 and "helix.example" not in start["Location"]
    assert client.session["oidc_login_next"] == "/inbox/"
    # An old link with the address in its query string starts nothing and repeats nothing.
    old = Client().get("/accounts/sso/", {"who": "dana@helix.example", "next": "/inbox/"})
    assert old.status_code == 302 and old["Location"] == "/accounts/login/?next=%2Finbox%2F"


def test_a_next_address_off_the_site_is_dropped(idp, helix_sso):
    client = Client()
    client.post("/accounts/sso/", {"who": "helix", "next": "https://evil.example/"})
    assert client.session["oidc_login_next"] is None
