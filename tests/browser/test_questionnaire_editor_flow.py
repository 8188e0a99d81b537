"""The buyer's questionnaire editor in a real browser: one bad target refuses the save, and
every value typed elsewhere on the page (targets, ticks, deal-breaker rules, the transport)
is still in its box when the error shows, so the buyer fixes one cell instead of starting over."""

from __future__ import annotations

import pytest
from django.urls import reverse

from questionnaire import selectors, services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_refused_save_keeps_what_the_buyer_typed(live_server, new_page, login_as, world, buyer):
    req = world.request
    services.question_set_attach_default(capacity_request=req, user=buyer.user)
    before = selectors.current_question_set(capacity_request=req).version
    page = login_as(new_page(), buyer.user.username)
    page.goto(live_server.url + reverse("questionnaire:set-edit", args=[req.pk]))

    page.fill("input[name=target_response_S1]", "20 min")
    page.fill("input[name=target_restore_S2]", "soon")  # the mistake
    page.fill("input[name=required_transport]", "RoCE")
    row = page.locator("tr[id='q-byos.offered']")
    row.locator("input[type=checkbox]").check()
    row.locator("select").select_option("yes")
    page.click("text=Save questions and targets")

    page.wait_for_selector(".cell-error")
    assert page.locator("td:has(input[name=target_restore_S2]) .cell-error").count() == 1
    assert page.input_value("input[name=target_response_S1]") == "20 min"
    assert page.input_value("input[name=target_restore_S2]") == "soon"
    assert page.input_value("input[name=required_transport]") == "RoCE"
    row = page.locator("tr[id='q-byos.offered']")
    assert row.locator("input[type=checkbox]").is_checked()
    assert row.locator("select").input_value() == "yes"
    assert selectors.current_question_set(capacity_request=req).version == before

    page.fill("input[name=target_restore_S2]", "8 h")
    page.click("text=Save questions and targets")
    page.wait_for_load_state("networkidle")
    assert selectors.current_question_set(capacity_request=req).version == before + 1
    page.goto(live_server.url + reverse("questionnaire:set-edit", args=[req.pk]))
    assert page.input_value("input[name=target_response_S1]") == "20 min"
    assert page.input_value("input[name=required_transport]") == "RoCE"
