"""SCIM 2.0 provisioning of Helix Labs' members by its identity provider's SCIM client, with the
token an administrator generates: create, find, switch off and on, delete; each call reaches
only the accounts it made for Helix Labs, and a switched-off member cannot sign in."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from audit.models import AuditEntry
from orgs.models import Membership
from sso import scim
from sso.models import OidcConnection, ScimAccount
from sso.services import connection_save
from tests.sso.conftest import connection_input, sign_in

pytestmark = pytest.mark.django_db
USERS = "/scim/v2/Users"
DANA = {
    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
    "userName": "dana@helix.example",
    "name": {"givenName": "Dana", "familyName": "Reyes"},
    "emails": [{"value": "dana@helix.example", "primary": True}],
    "externalId": "00u1",
    "active": True,
}


@pytest.fixture
def token(helix_sso, buyer):
    return scim.token_generate(org=buyer.org, user=buyer.user)


def _call(method, path, token, body=None):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    data = json.dumps(body) if body is not None else None
    return getattr(client, method)(path, data=data, content_type="application/scim+json")


def test_an_administrator_generates_the_token_shown_once(buyer, helix_sso):
    page = buyer.client().post("/org/sign-in/scim-token/")
    assert page.status_code == 200
    shown = page.content.decode().split('id="scim-token">')[1].split("<")[0]
    assert shown.startswith("scim_") and "no-store" in page["Cache-Control"]
    stored = OidcConnection.objects.get().scim_token_sha256
    assert stored == scim.token_digest(shown) and shown not in stored
    assert shown not in buyer.client().get("/org/sign-in/").content.decode()
    assert AuditEntry.objects.get(action="scim.token").after == {"replaced": False}
    assert _call("get", USERS, shown).status_code == 200


def test_a_call_without_the_token_is_refused(token):
    for wrong in ("", "scim_wrong"):
        response = _call("get", USERS, wrong)
        assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")
        assert json.loads(response.content)["status"] == "401"


def test_the_client_creates_a_member_who_later_signs_in_as_that_account(idp, token, buyer):
    made = _call("post", USERS, token, DANA)
    assert made.status_code == 201 and made["Content-Type"] == "application/scim+json"
    body = json.loads(made.content)
    assert body["userName"] == "dana@helix.example" and body["active"] is True
    assert body["roles"] == [{"value": "requester"}]  # the least role until groups decide
    entry = AuditEntry.objects.get(action="scim.provision")
    assert entry.actor is None and entry.org_id == buyer.org.pk
    assert _call("post", USERS, token, DANA).status_code == 409
    found = json.loads(
        _call("get", USERS + '?filter=userName eq "DANA@helix.example"', token).content
    )
    assert found["totalResults"] == 1 and found["Resources"][0]["id"] == body["id"]
    idp.people["dana"].groups = ["helix-approvers"]
    assert sign_in(Client(), "dana", "dana-pw").status_code == 302
    account = ScimAccount.objects.get()
    assert account.user.oidc_identities.count() == 1
    assert Membership.objects.get(user=account.user).role == "approver"


def test_a_role_named_in_the_resource_is_taken_when_the_organisation_has_it(token):
    body = json.loads(
        _call("post", USERS, token, {**DANA, "roles": [{"value": "approver"}]}).content
    )
    assert body["roles"] == [{"value": "approver"}]


def test_switching_off_removes_the_membership_and_refuses_sign_in(idp, token):
    pk = json.loads(_call("post", USERS, token, DANA).content)["id"]
    entra = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
             "Operations": [{"op": "Replace", "path": "active", "value": "False"}]}  # fmt: skip
    off = _call("patch", f"{USERS}/{pk}", token, entra)
    assert off.status_code == 200 and json.loads(off.content)["active"] is False
    assert not Membership.objects.filter(user__email="dana@helix.example").exists()
    assert AuditEntry.objects.get(action="scim.deprovision").before["role"] == "requester"
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code == 403 and "switched off your access" in refused.content.decode()
    okta = {"Operations": [{"op": "replace", "value": {"active": True}}]}
    assert json.loads(_call("patch", f"{USERS}/{pk}", token, okta).content)["active"] is True
    assert sign_in(Client(), "dana", "dana-pw").status_code == 302


def test_delete_switches_off_and_forgets(token):
    pk = json.loads(_call("post", USERS, token, DANA).content)["id"]
    assert _call("delete", f"{USERS}/{pk}", token).status_code == 204
    assert _call("get", f"{USERS}/{pk}", token).status_code == 404
    assert not Membership.objects.filter(user__email="dana@helix.example").exists()


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"name": {}}, "userName is required."),
        ({"userName": "not an address"}, "“not an address” is not an e-mail address."),
        ([1, 2], "The body is not a JSON object."),
    ],
)
def test_bad_input_is_named(token, body, detail):
    response = _call("post", USERS, token, body)
    assert response.status_code == 400 and json.loads(response.content)["detail"] == detail


def test_an_unsupported_filter_is_refused(token):
    response = _call("get", USERS + '?filter=emails co "helix"', token)
    assert response.status_code == 400
    assert json.loads(response.content)["scimType"] == "invalidFilter"


def test_the_last_administrator_cannot_be_switched_off(token, buyer):
    pk = json.loads(_call("post", USERS, token, {**DANA, "roles": [{"value": "admin"}]}).content)[
        "id"
    ]
    Membership.objects.filter(organization=buyer.org).exclude(user__email=DANA["userName"]).update(
        role="approver"
    )
    off = _call(
        "patch", f"{USERS}/{pk}", token, {"Operations": [{"path": "active", "value": False}]}
    )
    assert off.status_code == 409 and "last administrator" in json.loads(off.content)["detail"]


def test_another_organisations_token_reaches_none_of_these_members(idp, token, outsider):
    pk = json.loads(_call("post", USERS, token, DANA).content)["id"]
    connection_save(
        org=outsider.org, user=outsider.user, data=connection_input(idp, email_domains="")
    )
    other = scim.token_generate(org=outsider.org, user=outsider.user)
    assert json.loads(_call("get", USERS, other).content)["totalResults"] == 0
    assert _call("get", f"{USERS}/{pk}", other).status_code == 404
    assert _call("delete", f"{USERS}/{pk}", other).status_code == 404
    assert Membership.objects.filter(user__email="dana@helix.example").exists()


def test_only_administrators_generate_a_token(buyer, helix_sso):
    from tests.factories import MembershipFactory, UserFactory

    approver = UserFactory(username="abel")
    MembershipFactory(user=approver, organization=buyer.org, role="approver")
    client = Client()
    client.force_login(approver)
    assert client.post("/org/sign-in/scim-token/").status_code == 403
    assert not OidcConnection.objects.get().scim_token_sha256
