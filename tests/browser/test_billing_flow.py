"""Issue 31's browser walk, as a provider new to the bill pages: upload an AWS Cost and Usage
Report whose instance type the catalogue does not know, read what was detected, answer how many
GPUs the type has, confirm the node identity table, reconcile and read the three planted
findings; a reconciliation whose worker was lost shows Retry, and Retry runs it; with the task
queue unreachable, an upload answers the queue-unavailable page, the file is kept, and once the
queue is back its page sends the reading again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from billing.models import UsageState, UsageUpload
from billing.services import LOST_WORKER
from tests.api.v1.test_api_usage_bills import _reservation
from tests.engine.billing.test_bill_profiles import DATA
from tests.incidents.helpers import media_root

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["media_root"]  # autouse: uploads are written to a temporary MEDIA_ROOT


def _cur(tmp_path: Path, *, unknown: bool) -> Path:
    data = (DATA / "aws_cur2.csv").read_bytes()
    if unknown:
        data = data.replace(b"p5.48xlarge", b"p9.96xlarge")
    path = tmp_path / "cur-2026-03.csv"
    path.write_bytes(data)
    return path


def _upload(page, live_server, reservation, path: Path) -> None:
    page.goto(f"{live_server.url}/reservations/{reservation.pk}/usage/")
    page.set_input_files("#usage-upload-form input[type=file]", str(path))
    page.click("#usage-upload-form button[type=submit]")


def test_a_provider_reads_answers_confirms_and_reconciles_a_cur_bill(
    live_server, new_page, login_as, world, buyer, provider, tmp_path
):
    reservation = _reservation(world, buyer, provider, rate="12.29")
    page = login_as(new_page(), "nora")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{live_server.url}/reservations/{reservation.pk}/usage/")
    assert "No usage uploaded yet" in page.inner_text("#usage-uploads")
    hint = page.inner_text("#usage-upload")
    assert "FOCUS" in hint and "Cost and Usage Report" in hint  # what it can read, said up front

    _upload(page, live_server, reservation, _cur(tmp_path, unknown=True))
    page.wait_for_url(re.compile(r".*/usage/\d+/mapping/"))
    assert "Reading the file" not in page.content()  # the worker read it (in-process here)
    assert "AWS Cost and Usage Report" in page.inner_text("#bill-profile")
    detected = page.inner_text("#bill-detected")
    assert "Delimiter" in detected and "Lines read" in detected
    questions = page.inner_text("#bill-questions")
    assert "p9.96xlarge" in questions and "How many GPUs" in questions

    page.fill("#bill-questions input", "8")
    page.click("#usage-bill-form button[type=submit]")
    # The answer turns the asked lines into GPU lines: read again, then their nodes confirmed.
    page.wait_for_selector(".messages >> text=Reading the file again")
    # The answer stays on the form (confirming without it would lose it), and asks no more.
    assert "Answered: one 'p9.96xlarge' has 8 GPUs" in page.inner_text("#bill-questions")
    assert page.input_value("#bill-questions input") == "8"
    rows = page.locator("#bill-nodes tr.node-row")
    assert rows.count() == 2
    for index in range(2):
        proposed = rows.nth(index).locator("select").input_value()
        assert proposed in ("node-a", "node-b")  # paired in order: the user checks and keeps
    assert "paired in order: check it" in page.inner_text("#bill-nodes")
    page.click("#usage-bill-form button[type=submit]")

    page.wait_for_url(re.compile(r".*/usage/\d+/$"))
    assert page.inner_text("#usage-state") == "Reconciled"
    found = page.locator("#usage-differences tr.difference")
    assert found.count() == 3
    planted = sorted(
        (int(found.nth(i).get_attribute("data-line")), found.nth(i).get_attribute("data-rule"))
        for i in range(3)
    )
    assert planted == [(2, "before-clock"), (8, "node-out"), (9, "rate")]
    assert "FOCUS CSV" in page.inner_text("#focus-export")
    assert not errors


def test_a_lost_reconciliation_shows_retry_and_retry_runs_it(
    live_server, new_page, login_as, world, buyer, provider, tmp_path
):
    reservation = _reservation(world, buyer, provider, rate="12.29")
    page = login_as(new_page(), "nora")
    _upload(page, live_server, reservation, _cur(tmp_path, unknown=False))
    page.wait_for_url(re.compile(r".*/usage/\d+/mapping/"))
    page.click("#usage-bill-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/usage/\d+/$"))
    row = UsageUpload.objects.get()
    assert row.state == UsageState.DONE
    # Its worker died mid-run (the real-worker test in tests/billing kills one): it says so.
    UsageUpload.objects.filter(pk=row.pk).update(state=UsageState.ERROR, error=LOST_WORKER)

    page.reload()
    assert "did not finish" in page.inner_text("#usage-error")
    assert "its worker was lost" in page.inner_text("#usage-error")
    page.click("#usage-retry")
    page.wait_for_selector(".messages >> text=Reconciling cur-2026-03.csv again")
    assert page.inner_text("#usage-state") == "Reconciled"
    assert page.locator("#usage-differences tr.difference").count() == 3


def test_with_the_queue_unreachable_an_upload_answers_the_503_page_and_keeps_the_file(
    live_server, new_page, login_as, world, buyer, provider, tmp_path, broker_away
):
    reservation = _reservation(world, buyer, provider, rate="12.29")
    page = login_as(new_page(), "nora")
    page.goto(f"{live_server.url}/reservations/{reservation.pk}/usage/")
    page.set_input_files("#usage-upload-form input[type=file]", str(_cur(tmp_path, unknown=False)))
    with page.expect_response(re.compile(r".*/usage/$")) as answer:
        page.click("#usage-upload-form button[type=submit]")
    assert answer.value.status == 503
    text = page.inner_text("main")
    assert "Stored, but not started yet" in text and "could not be reached" in text
    row = UsageUpload.objects.get()
    assert row.size > 0 and row.state == UsageState.MAPPING

    # The queue is back: the file's page offers to send its reading again, and it is read.
    broker_away()
    page.goto(live_server.url + reverse("billing:usage-mapping", args=[row.pk]))
    assert "Reading the file" in page.inner_text("#bill-reading")
    page.click("#usage-retry")
    page.wait_for_selector(".messages >> text=Reading cur-2026-03.csv again")
    assert "AWS Cost and Usage Report" in page.inner_text("#bill-profile")
