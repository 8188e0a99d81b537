"""The reservation and run pages as a browser sees them (without JavaScript)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.choices import RequestStatus
from tests.acceptance.burnin.helpers import (
    DATA,
    GOOD_SET,
    attach_fixture,
    file_upload,
    two_node_spec,
)
from tests.text import shows_number

pytestmark = pytest.mark.django_db


def test_the_buyer_awards_from_the_request_page(world, buyer):
    attach_fixture(world.request, two_node_spec())
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    client = buyer.client()
    html = client.get(reverse("bids:request-detail", args=[world.request.pk])).content.decode()
    assert f"Award to {world.bid.provider.name}" in html
    response = client.post(reverse("evaluation:bid-award", args=[world.bid.pk]), follow=True)
    assert "Awarded to Northwind" in response.content.decode()
    assert response.redirect_chain[-1][0].startswith("/reservations/")


def test_the_award_panel_shows_submitted_terms_and_who_is_disqualified(
    world, buyer, provider, rival_provider
):
    from decimal import Decimal

    from bids.models import Bid
    from bids.services import bid_save_draft, bid_submit
    from evaluation.services import request_score

    attach_fixture(world.request, two_node_spec())
    # The rival resubmits from a region the request does not accept: disqualified.
    Bid.objects.filter(pk=world.rival_bid.pk).update(region="apac", has_unsubmitted_changes=True)
    world.rival_bid.refresh_from_db()
    bid_submit(bid=world.rival_bid, user=rival_provider.user)
    # Northwind's working copy holds an edit it never submitted.
    bid_save_draft(bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("9.99")})
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    request_score(capacity_request=world.request)
    html = buyer.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    panel = html.content.decode()
    panel = panel[panel.index('id="award-panel"') :]
    assert "$2.400" in panel and not shows_number(panel, "9.99")
    rival_row = panel[panel.index(world.rival_bid.provider.name) :]
    assert "disqualified" in rival_row[: rival_row.index("</tr>")]


def test_no_award_button_while_bidding_is_open(world, buyer):
    attach_fixture(world.request, two_node_spec())
    html = buyer.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    assert "Bidding is still open" in html.content.decode()
    assert "Award to" not in html.content.decode()


def test_many_files_at_once_with_a_node_label(
    awarded, provider, django_capture_on_commit_callbacks
):
    client = provider.client()
    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    files = [
        file_upload("ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt"),
        file_upload("dcgmi-diag/diag_r3_dcgm3_all_pass.txt"),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"file": files, "node": "gpu-a01"}, follow=True)
    html = response.content.decode()
    assert "Stored 2 files" in html
    assert list(awarded.run.evidence.values_list("node", "state")) == [
        ("gpu-a01", "parsed"),
        ("gpu-a01", "parsed"),
    ]
    again = client.post(url, {"file": [files[0].open()], "node": "gpu-a01"}, follow=True)
    assert "is already uploaded as ibstat_8x400g_ndr_plus_bond_tabs.txt" in again.content.decode()


def test_a_too_big_file_is_named_and_the_others_are_stored(
    awarded, provider, settings, django_capture_on_commit_callbacks
):
    settings.EVIDENCE_MAX_BYTES = 6000
    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    files = [
        file_upload("burnin/fixture-result/fixture_16ranks.jsonl"),
        file_upload("huge.log", b"x" * 9000),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = provider.client().post(url, {"file": files}, follow=True)
    html = response.content.decode()
    assert "huge.log: the file is 8.8" in html and "Stored 1 file" in html
    assert awarded.run.evidence.count() == 1


def test_an_empty_file_is_named_and_the_others_are_stored(
    awarded, provider, django_capture_on_commit_callbacks
):
    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    files = [
        file_upload("burnin/fixture-result/fixture_16ranks.jsonl"),
        file_upload("empty.txt", b""),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = provider.client().post(url, {"file": files}, follow=True)
    html = response.content.decode()
    assert "empty.txt: the file is empty" in html and "Stored 1 file" in html
    assert awarded.run.evidence.count() == 1


def test_a_batch_with_every_file_refused_keeps_the_node_and_kind_as_typed(awarded, provider):
    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    response = provider.client().post(
        url, {"file": [file_upload("empty.txt", b"")], "node": "gpu-a01", "kind": "ibstat"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="id_file_error"' in html
    assert "empty.txt: the file is empty; there is nothing to check." in html
    assert 'value="gpu-a01"' in html and '<option value="ibstat" selected>' in html
    assert awarded.run.evidence.count() == 0


def test_a_gzipped_empty_log_is_refused_in_a_batch_as_an_empty_one_is(awarded, provider):
    import gzip

    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    response = provider.client().post(
        url, {"file": [file_upload("nccl.log.gz", gzip.compress(b""))]}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "nccl.log.gz: the file is empty once unpacked (a gzip of an empty file)" in html
    assert awarded.run.evidence.count() == 0


def test_a_bad_node_label_is_shown_on_the_field(awarded, provider):
    url = reverse("burnin:run-upload", args=[awarded.run.pk])
    response = provider.client().post(
        url, {"file": [file_upload("burnin/fixture-result/fixture_16ranks.jsonl")], "node": "a b"}
    )
    assert response.status_code == 200
    assert 'id="id_node_error"' in response.content.decode()


def test_the_run_page_shows_checks_gate_charts_and_links(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    from tests.acceptance.burnin.helpers import upload_all

    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    evidence = upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    html = buyer.client().get(reverse("burnin:run-detail", args=[awarded.run.pk])).content.decode()
    assert "Gate fails" in html
    # The badge gives the verdict; the summary beside it does not say it again.
    summary = html.split('id="gate-summary"', 1)[1].split("</p>", 1)[0]
    assert "mandatory checks block" in summary and "gate failed" not in summary.lower()
    assert "nccl-tests all_reduce: large-message busbw" in html
    assert reverse("burnin:evidence-download", args=[evidence[-1].pk]) in html
    assert 'id="accept-button" disabled' in html
    assert 'id="override-form"' in html
    assert "vendor/plotly/plotly.min.js" in html and "cdn" not in html.lower()
    assert 'id="burnin-charts"' in html and "chart-busbw-0" in html
    status = buyer.client().get(reverse("burnin:run-status", args=[awarded.run.pk])).json()
    assert status["busy"] is False and status["gate"]["passed"] is False


def test_every_chart_has_its_figures_as_a_table(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    """A reader who cannot see the charts (or runs no JavaScript) reads the same figures."""
    from tests.acceptance.burnin.helpers import upload_all

    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    html = buyer.client().get(reverse("burnin:run-detail", args=[awarded.run.pk])).content.decode()
    charts = html.count('<div class="chart" id="chart-')
    assert charts >= 3 and html.count('<details class="chart-data">') == charts
    busbw = html[html.index('id="chart-busbw-0"') :]
    table = busbw[: busbw.index("</details>")]
    assert "<th>Message size</th>" in table and "<td>1 GiB</td>" in table
    if 'id="chart-steps"' in html:
        steps = html[html.index('id="chart-steps"') :]
        assert "The slowest ranks as a table" in steps[: steps.index("</details>")]


def test_a_check_links_to_the_line_it_came_from(
    awarded, buyer, rival_provider, provider, django_capture_on_commit_callbacks
):
    """GIVEN a busbw check failing at a row of the log THEN its evidence cell links to that line,
    and the link shows the lines around it with that one marked (to the parties only)."""
    from tests.acceptance.burnin.helpers import upload_all

    files = [("burnin/nccl-tests/all_reduce_2node_slow.txt", "")]
    (evidence,) = upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    check = awarded.run.checks.get(name="nccl-tests all_reduce: large-message busbw")
    assert check.line
    url = f"{reverse('burnin:evidence-download', args=[evidence.pk])}?line={check.line}"
    html = buyer.client().get(reverse("burnin:run-detail", args=[awarded.run.pk])).content.decode()
    assert f'href="{url}#L{check.line}"' in html
    page = buyer.client().get(url)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    text = evidence.file.open("rb").read().decode().split("\n")[check.line - 1]
    body = page.content.decode()
    assert f'<tr id="L{check.line}" class="target">' in body and text.split()[0] in body
    assert rival_provider.client().get(url).status_code == 404


def test_the_provider_sees_no_decision_buttons(awarded, provider):
    html = provider.client().get(reverse("burnin:run-detail", args=[awarded.run.pk]))
    assert 'id="accept-button"' not in html.content.decode()


def test_download_returns_the_stored_bytes(awarded, buyer, provider):
    from tests.acceptance.burnin.helpers import upload

    evidence = upload(
        awarded.run, provider.user, "burnin/fixture-result/fixture_16ranks.jsonl"
    ).evidence
    response = buyer.client().get(reverse("burnin:evidence-download", args=[evidence.pk]))
    assert (
        b"".join(response.streaming_content)
        == (DATA / "burnin/fixture-result/fixture_16ranks.jsonl").read_bytes()
    )
    assert "fixture_16ranks.jsonl" in response["Content-Disposition"]


def _page_queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_run_page_query_count_does_not_grow_with_the_evidence(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    from tests.acceptance.burnin.helpers import upload_all

    client = buyer.client()
    url = reverse("burnin:run-detail", args=[awarded.run.pk])
    upload_all(awarded.run, provider.user, GOOD_SET[:2], django_capture_on_commit_callbacks)
    few = _page_queries(client, url)
    upload_all(awarded.run, provider.user, GOOD_SET[2:], django_capture_on_commit_callbacks)
    assert _page_queries(client, url) == few


def test_the_run_list_counts_files_not_checks(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    from acceptance.selectors.burnin import run_list
    from tests.acceptance.burnin.helpers import upload_all

    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    (run,) = run_list(reservation=awarded.reservation)
    assert run.file_count == len(GOOD_SET)


@pytest.mark.parametrize("role", ["provider", "buyer"])
def test_an_awarded_bid_says_so_and_links_to_its_reservation(awarded, role, request):
    client = request.getfixturevalue(role).client()
    html = client.get(reverse("bids:bid-detail", args=[awarded.bid.pk])).content.decode()
    assert "Current draft" not in html and "<h2>Awarded" in html
    assert reverse("burnin:reservation-detail", args=[awarded.reservation.pk]) in html
