"""A buyer invites a provider that has no account: the e-mail carries a signed link that works
once, for that address, until it expires; from it the person creates the provider
organisation and its first administrator, and lands invited to the request."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from bids.models import Invitation, SupplierInvitation
from bids.services import supplier_invite, supplier_join
from core.errors import Conflict
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization
from tests.factories import CapacityRequestFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a long enough passphrase 42"


@pytest.fixture
def open_request(buyer):
    return CapacityRequestFactory(buyer=buyer.org, title="16 × H200, EU")


def _link(index: int = -1) -> str:
    return re.search(r"http\S+/join/(\S+)/", mail.outbox[index].body).group(0)


def _token(index: int = -1) -> str:
    return re.search(r"/join/(\S+)/", mail.outbox[index].body).group(1)


def _join(token: str, **fields: str):
    data = {
        "organization_name": "Borealis GPU",
        "username": "bea",
        "email": "bea@borealis.example",
        "password": PASSWORD,
    }
    data.update(fields)
    return supplier_join(token=token, **data)


def test_the_invitation_is_e_mailed_with_a_link_that_creates_the_provider(open_request, buyer):
    supplier_invite(
        capacity_request=open_request, user=buyer.user, email="Bea@Borealis.example", company="B"
    )
    assert mail.outbox[-1].to == ["bea@borealis.example"]
    assert "until" in mail.outbox[-1].body and _link().startswith("http")
    user, org = _join(_token())
    assert org.kind == OrgKind.PROVIDER
    assert Membership.objects.get(user=user, organization=org).role == MemberRole.ADMIN
    assert Invitation.objects.filter(request=open_request, provider=org).exists()
    assert AuditEntry.objects.filter(action="request.invite_supplier").exists()
    assert AuditEntry.objects.filter(action="request.invite", provider_org_id=org.pk).exists()


def test_the_e_mail_goes_once_however_often_the_task_runs(open_request, buyer):
    from bids.services.onboarding import supplier_invitation_email

    invitation = supplier_invite(
        capacity_request=open_request, user=buyer.user, email="x@y.example"
    )
    assert supplier_invitation_email(invitation_id=invitation.pk) == "already sent"
    assert len(mail.outbox) == 1


def test_a_used_link_is_refused_in_words(open_request, buyer):
    supplier_invite(capacity_request=open_request, user=buyer.user, email="bea@borealis.example")
    token = _token()
    _join(token)
    with pytest.raises(Conflict, match=r"already used .* to create Borealis GPU"):
        _join(token, username="bea2", organization_name="Other")


def test_an_expired_link_is_refused_with_its_date(open_request, buyer):
    invitation = supplier_invite(
        capacity_request=open_request, user=buyer.user, email="bea@borealis.example"
    )
    SupplierInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(hours=1)
    )
    with pytest.raises(Conflict, match="expired on"):
        _join(_token())
    assert not Organization.objects.filter(name="Borealis GPU").exists()


def test_another_address_is_refused_naming_the_invited_one(open_request, buyer):
    supplier_invite(capacity_request=open_request, user=buyer.user, email="bea@borealis.example")
    with pytest.raises(ValidationError) as refused:
        _join(_token(), email="eve@elsewhere.example")
    assert "bea@borealis.example" in refused.value.message_dict["email"][0]


def test_a_tampered_link_is_refused(client):
    response = client.get(reverse("bids:supplier-join", args=["not-a-token"]))
    assert response.status_code == 410
    assert "not valid" in response.content.decode()


def test_an_address_with_an_account_is_told_to_sign_in(open_request, buyer):
    UserFactory(username="bea", email="bea@borealis.example")
    supplier_invite(capacity_request=open_request, user=buyer.user, email="bea@borealis.example")
    with pytest.raises(ValidationError) as refused:
        _join(_token(), username="bea-new")
    assert "Sign in" in refused.value.message_dict["email"][0]


def test_a_second_open_invitation_to_one_address_is_refused(open_request, buyer):
    supplier_invite(capacity_request=open_request, user=buyer.user, email="bea@borealis.example")
    with pytest.raises(ValidationError, match="already has an open invitation"):
        supplier_invite(
            capacity_request=open_request, user=buyer.user, email="bea@borealis.example"
        )


def test_the_join_page_keeps_what_was_typed_and_names_the_field(open_request, buyer, client):
    supplier_invite(capacity_request=open_request, user=buyer.user, email="bea@borealis.example")
    url = reverse("bids:supplier-join", args=[_token()])
    data = {
        "organization_name": "Borealis GPU",
        "username": "bea",
        "email": "bea@borealis.example",
        "password1": PASSWORD,
        "password2": "something else",
    }
    html = client.post(url, data).content.decode()
    assert "The two passwords differ" in html and 'value="Borealis GPU"' in html
    data["password2"] = PASSWORD
    response = client.post(url, data)
    assert response.status_code == 302
    assert response["Location"] == reverse("bids:request-detail", args=[open_request.pk])
    page = client.get(response["Location"]).content.decode()
    assert "Start a bid" in page
