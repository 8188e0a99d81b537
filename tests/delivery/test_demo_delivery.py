"""The delivery demo (demo/delivery.py): forty days in service, reconciled and statement-ready,
seeded once however often `seed_demo` runs."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from acceptance.models import Reservation, ReservationStatus
from billing.models import UsageState, UsageUpload
from delivery.selectors import delivery_for
from demo.delivery import DEMO_TITLE
from tests.incidents.helpers import media_root

pytestmark = pytest.mark.django_db
__all__ = ["media_root"]


def test_the_demo_has_history_to_show_and_is_seeded_once(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)
    (reservation,) = Reservation.objects.filter(request__title=DEMO_TITLE)
    assert reservation.status == ReservationStatus.ACCEPTED
    report = delivery_for(reservation=reservation).report
    assert report is not None and len(report.months) >= 2
    assert any(m.credit.value for m in report.months)  # the S1 costs a month its tier
    (bill,) = UsageUpload.objects.filter(reservation=reservation)
    assert bill.state == UsageState.DONE and bill.lines == 1440
    assert set(bill.by_rule) == {"node-out"}  # the hours a node was out are not allowed
    assert reservation.incidents.count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_open_requests_scores_are_current_after_the_whole_demo(media_root):
    """The delivery demo's incidents change Aurora's track record, which the open request's
    scoring reads: the command scores it again last, so a first visit sees current scores.
    Real commits, as in `make run`: each part's on-commit work runs when that part commits."""
    from bids.models import CapacityRequest
    from demo.seed import REQUEST_TITLE
    from evaluation.comparison import comparison_state

    call_command("seed_demo", verbosity=0)
    state, run = comparison_state(capacity_request=CapacityRequest.objects.get(title=REQUEST_TITLE))
    assert state == "current" and run is not None and run.status == "done"
