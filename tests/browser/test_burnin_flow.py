"""Burn-in in a real browser: award, upload a set, watch the states change, see the failed check,
upload the fixed file, accept — and the clock starts on the term's first day (it lies ahead)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from acceptance.models import Evidence, Reservation, ReservationStatus
from acceptance.services import burnin as burnin_services
from acceptance.tasks import parse_evidence
from bids.choices import RequestStatus
from tests.acceptance.burnin.helpers import (
    DATA,
    GOOD_SET,
    attach_fixture,
    media_root,
    two_node_spec,
)

__all__ = ["media_root"]  # autouse: uploads go to a temporary MEDIA_ROOT
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def held_parses(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Hold parsing back, so the page shows files queued until the test lets the worker run."""
    held: list[int] = []
    monkeypatch.setattr(burnin_services, "_queue_parse", lambda evidence: held.append(evidence.pk))

    def release() -> None:
        while held:
            parse_evidence(held.pop(0))

    return release


def _settled(page: Any) -> None:
    """Wait until the page has reloaded itself with nothing left in flight: while files parse
    or checks run it polls and then reloads, and a reload during the next upload would drop
    that upload's form post (and its flash)."""
    page.wait_for_function(
        "() => { const s = document.getElementById('burnin-status');"
        " return s !== null && !JSON.parse(s.textContent).busy; }",
        timeout=30_000,
    )


def _upload(page: Any, files: list[str], node: str = "") -> None:
    page.set_input_files("#id_file", [str(DATA / name) for name in files])
    page.fill("#id_node", node)
    page.click("#upload button[type=submit]")
    page.wait_for_selector("text=parsing has started")


def test_upload_watch_fail_fix_accept(
    live_server, new_page, login_as, world, buyer, provider, held_parses
):
    attach_fixture(world.request, two_node_spec())
    world.request.status = RequestStatus.CLOSED
    world.request.save()

    buyer_page = login_as(new_page(), "alice")
    buyer_page.on("dialog", lambda dialog: dialog.accept())
    buyer_page.goto(f"{live_server.url}/requests/{world.request.pk}/")
    buyer_page.click("text=Award to Northwind")
    buyer_page.wait_for_selector("text=Awarded to Northwind")
    assert "not started" in buyer_page.inner_text("#clock")
    buyer_page.click("text=Start a burn-in run")
    buyer_page.wait_for_selector("text=Upload evidence")
    run_url = buyer_page.url

    provider_page = login_as(new_page(), "nora")
    provider_page.on("dialog", lambda dialog: dialog.accept())
    provider_page.goto(run_url)
    for node in ("gpu-a01", "gpu-a02"):
        _upload(provider_page, [name for name, n in GOOD_SET if n == node], node)
        held_parses()
        _settled(provider_page)

    whole = [
        "burnin/fixture-result/fixture_16ranks.jsonl",
        "burnin/nccl-tests/all_reduce_2node_slow.txt",
    ]
    whole.append("burnin/step-times/step_times_16ranks.csv")
    _upload(provider_page, whole)
    slow = Evidence.objects.get(original_name="all_reduce_2node_slow.txt")
    state = provider_page.locator(f"#evidence-{slow.pk} td.state .status")
    assert state.inner_text() == "Queued"

    held_parses()  # the worker runs; the page notices by itself and shows the verdict
    provider_page.wait_for_selector("#gate-summary:has-text('Gate fails')")
    assert state.inner_text() == "Parsed"
    failed = provider_page.locator("tr.check-fail", has_text="large-message busbw")
    assert "431 GB/s" in failed.inner_text()
    assert "all_reduce_2node_slow.txt" in failed.inner_text()

    buyer_page.goto(run_url)
    assert buyer_page.is_disabled("#accept-button")
    buyer_page.click("#override-form button[type=submit]")
    assert "write why" in buyer_page.inner_text("#id_reason_error")

    _upload(provider_page, ["burnin/nccl-tests/all_reduce_2node_pass.txt"])
    held_parses()
    _settled(provider_page)
    provider_page.locator(f"#evidence-{slow.pk} button:has-text('Withdraw')").click()
    provider_page.wait_for_selector("text=no longer checked")
    provider_page.wait_for_selector("#gate-summary:has-text('Gate passes')")

    buyer_page.goto(run_url)
    assert buyer_page.is_enabled("#accept-button")
    buyer_page.click("#accept-button")
    buyer_page.wait_for_selector("text=this run is the hand-over baseline")
    reservation = Reservation.objects.get(request=world.request)
    assert reservation.status == ReservationStatus.ACCEPTED
    clock = buyer_page.inner_text("#clock")
    # The term starts 60 days from now: the clock waits for its first day.
    start = world.request.reservation_start
    assert re.search(rf"starts {start:%-d %b %Y} 00:00 UTC \(the term's first day", clock)
    assert "all_reduce" in buyer_page.inner_text("#baseline")
