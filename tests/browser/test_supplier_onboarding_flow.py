"""A new provider, invited by e-mail, through to its first bid in a real browser: the buyer
types an address on the request; the link in the e-mail refuses another address in words,
then creates the organisation and its administrator, lands on the request and bids. The
same link used again is refused, saying so."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from bids.models import Bid
from orgs.models import Membership
from tests.factories import CapacityRequestFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long enough passphrase 42"


def test_invite_a_new_provider_by_e_mail_through_to_its_first_bid(
    live_server, new_page, login_as, buyer
):
    req = CapacityRequestFactory(buyer=buyer.org, title="16 × H200, two 8-GPU servers")
    page = login_as(new_page(), buyer.user.get_username())
    page.goto(f"{live_server.url}/requests/{req.pk}/")
    page.fill("#new-provider #id_email", "bea@borealis.example")
    page.fill("#new-provider #id_company", "Borealis GPU")
    page.click("#supplier-invite")
    page.wait_for_selector("text=Invitation e-mailed to bea@borealis.example")
    assert "open until" in page.inner_text("#new-provider")

    link = re.search(r"http\S+/join/\S+/", mail.outbox[-1].body).group(0)
    link = live_server.url + link[link.index("/join/") :]
    newcomer = new_page(viewport={"width": 390, "height": 844})
    newcomer.goto(link)
    assert newcomer.evaluate("document.documentElement.scrollWidth") <= 390
    assert newcomer.input_value("#id_email") == "bea@borealis.example"
    assert newcomer.input_value("#id_organization_name") == "Borealis GPU"
    newcomer.fill("#id_username", "bea")
    newcomer.fill("#id_email", "eve@elsewhere.example")
    newcomer.fill("#id_password1", PASSWORD)
    newcomer.fill("#id_password2", PASSWORD)
    newcomer.click("#join-submit")
    assert "sent to bea@borealis.example" in newcomer.inner_text("#id_email_error")
    assert newcomer.input_value("#id_username") == "bea"

    newcomer.fill("#id_email", "bea@borealis.example")
    newcomer.fill("#id_password1", PASSWORD)
    newcomer.fill("#id_password2", PASSWORD)
    newcomer.click("#join-submit")
    newcomer.wait_for_selector("text=Borealis GPU is created and you are its administrator")
    assert newcomer.url.endswith(f"/requests/{req.pk}/")

    newcomer.click("text=Start a bid")
    newcomer.fill("#id_price_per_gpu_hour", "2.10")
    newcomer.select_option("#id_region", "eu")
    newcomer.click("button[name=submit]")
    newcomer.wait_for_selector("text=Revision 1 submitted and frozen")
    bid = Bid.objects.get(request=req)
    assert bid.provider.name == "Borealis GPU" and bid.latest_revision_number == 1
    assert Membership.objects.get(user__username="bea").role == "admin"

    again = new_page()
    again.goto(link)
    assert "already used" in again.inner_text("#join-refused")

    page.goto(f"{live_server.url}/requests/{req.pk}/")
    assert "joined as Borealis GPU" in page.inner_text("#new-provider")
