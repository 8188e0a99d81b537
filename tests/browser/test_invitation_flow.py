"""Membership by invitation in a real browser: an administrator invites an address, the person
sees it under Invitations and accepts, and only then appears on the members page; their header
still acts for the organisation they had."""

from __future__ import annotations

import pytest

from orgs.models import Membership

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_invite_then_accept(live_server, new_page, login_as, buyer, provider):
    admin = login_as(new_page(), provider.user.get_username())
    admin.goto(f"{live_server.url}/org/members/")
    admin.fill("#id_email", buyer.user.email)
    admin.select_option("#id_role", "engineer")
    admin.click("#invite-submit")
    admin.wait_for_selector("text=If an account uses this address, its owner is told")
    assert buyer.user.get_username() not in admin.inner_text("#members")

    person = login_as(new_page(), buyer.user.get_username())
    person.click("#invitations-link")
    row = person.locator("#invitations tbody tr")
    assert "Northwind" in row.inner_text() and "Engineer" in row.inner_text()
    row.locator("button", has_text="Accept").click()
    person.wait_for_selector("text=You are now a member of Northwind (engineer).")
    assert person.is_visible("#no-invitations")
    membership = Membership.objects.get(user=buyer.user, organization=provider.org)
    assert membership.role == "engineer"

    admin.goto(f"{live_server.url}/org/members/")
    assert buyer.user.get_username() in admin.inner_text("#members")
    assert "None." in admin.inner_text("#pending-invitations")
