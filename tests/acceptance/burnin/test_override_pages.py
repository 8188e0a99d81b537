"""The override on the pages: the run page asks (and keeps what was typed when it refuses), the
reservation page shows the request to both parties and the approve/decline buttons only to a
second buyer-side approver; the others read why they cannot."""

from __future__ import annotations

import pytest
from django.urls import reverse

from acceptance.models import OverrideOutcome, OverrideRequest, Reservation, ReservationStatus
from acceptance.selectors.override import blocking_checks
from tests.acceptance.burnin.test_override import REASON, failing

__all__ = ["failing"]
pytestmark = pytest.mark.django_db


def _ask(client, run, **data):
    body = {"reason": REASON, "waived": [c["code"] for c in blocking_checks(run=run)]}
    body |= {"confirm": "on"} | data
    return client.post(reverse("burnin:run-override", args=[run.pk]), body)


def test_the_run_page_lists_each_blocking_check_to_tick(failing, buyer_requester):
    html = buyer_requester.client().get(reverse("burnin:run-detail", args=[failing.run.pk]))
    page = html.content.decode()
    (check,) = blocking_checks(run=failing.run)
    assert 'id="override-form"' in page
    assert f'name="waived" value="{check["code"]}"' in page
    assert "Make this overridden run the recovery baseline" in page
    assert "measured against the contracted thresholds" in page  # the warning
    assert 'disabled title="The gate has not passed.' in page  # the accept button says why


def test_a_refused_request_keeps_what_was_typed_and_names_the_unticked_check(
    failing, buyer_requester
):
    response = _ask(buyer_requester.client(), failing.run, waived=[], confirm="")
    assert response.status_code == 200
    page = response.content.decode()
    (check,) = blocking_checks(run=failing.run)
    assert REASON in page  # the reason stays in the textarea
    assert 'id="id_waived_error"' in page and f"not ticked ({check['title']})" in page
    assert 'id="id_confirm_error"' in page
    assert not OverrideRequest.objects.exists()


def test_only_a_second_approver_sees_the_approve_button(
    failing, buyer_requester, buyer_approver, buyer, provider
):
    response = _ask(buyer_requester.client(), failing.run)
    assert response.status_code == 302
    url = reverse("burnin:reservation-detail", args=[failing.reservation.pk])
    requester_page = buyer_requester.client().get(url).content.decode()
    assert "awaiting a second approver" in requester_page and REASON in requester_page
    assert 'id="approve-override"' not in requester_page
    assert "needs the role Administrator or Approver; yours is Requester" in requester_page
    for role in (buyer_approver, buyer):  # an approver, an administrator: both other people
        assert 'id="approve-override"' in role.client().get(url).content.decode()
    provider_page = provider.client().get(url).content.decode()
    assert "awaiting a second approver" in provider_page
    assert 'id="approve-override"' not in provider_page
    run_page = buyer.client().get(reverse("burnin:run-detail", args=[failing.run.pk]))
    assert 'id="override-pending"' in run_page.content.decode()


def test_the_requester_posting_approve_is_refused_with_the_reason(failing, buyer_approver):
    _ask(buyer_approver.client(), failing.run)
    client = buyer_approver.client()
    response = client.post(
        reverse("burnin:override-approve", args=[failing.reservation.pk]), follow=True
    )
    assert "You asked for this override" in response.content.decode()
    assert Reservation.objects.get(pk=failing.reservation.pk).is_pending


def test_approved_override_names_both_people_reason_and_waived_checks(
    failing, buyer_requester, buyer_approver, provider
):
    _ask(buyer_requester.client(), failing.run)
    response = buyer_approver.client().post(
        reverse("burnin:override-approve", args=[failing.reservation.pk])
    )
    assert response.status_code == 302
    reservation = Reservation.objects.get(pk=failing.reservation.pk)
    assert reservation.status == ReservationStatus.ACCEPTED
    (check,) = OverrideRequest.objects.get().waived
    for client in (buyer_requester.client(), provider.client()):
        page = client.get(
            reverse("burnin:reservation-detail", args=[reservation.pk])
        ).content.decode()
        assert 'id="override-requester">rhea<' in page and 'id="override-approver">abel<' in page
        assert REASON in page and check["title"] in page
        assert "the contracted thresholds" in page and "431" in page


def test_a_decline_without_a_reason_stays_on_the_page(failing, buyer_requester, buyer_approver):
    _ask(buyer_requester.client(), failing.run)
    url = reverse("burnin:override-decline", args=[failing.reservation.pk])
    page = buyer_approver.client().post(url, {"reason": ""})
    assert page.status_code == 200 and 'id="id_reason_error"' in page.content.decode()
    done = buyer_approver.client().post(url, {"reason": "Fix the fabric first."})
    assert done.status_code == 302
    assert OverrideRequest.objects.get().outcome == OverrideOutcome.DECLINED
