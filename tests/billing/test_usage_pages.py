"""The usage pages as a user meets them: upload, confirm the guessed mapping against its preview,
read the totals and differences, filter, download; a file that fails keeps its error and runs
again once the mapping is fixed; the provider's next file reuses the mapping."""

from __future__ import annotations

import csv
import html
import io
from datetime import date, timedelta

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from audit.models import AuditEntry
from billing.models import UsageMapping, UsageState, UsageUpload
from tests.billing.conftest import usage_file

pytestmark = pytest.mark.django_db

MAPPING = {
    "period_start": "usage_start",
    "period_end": "usage_end",
    "node": "instance_id",
    "gpus": "gpu_count",
    "quantity": "hours",
    "rate": "rate_usd",
    "amount": "amount_usd",
    "line_type": "line_type",
    "unit": "hours",
    "date_format": "",
}


def _upload(client, reservation, name="usage_planted.csv", content=None):
    url = reverse("billing:usage-list", args=[reservation.pk])
    return client.post(url, {"file": usage_file(name, content)})


def test_the_first_file_waits_for_its_mapping_with_a_preview_then_is_reconciled(
    contracted, buyer, django_capture_on_commit_callbacks
):
    client = buyer.client()
    response = _upload(client, contracted.reservation)
    upload = UsageUpload.objects.get()
    assert response["Location"] == reverse("billing:usage-mapping", args=[upload.pk])
    page = client.get(response["Location"]).content.decode()
    assert "gpu-b01" in page and "8.0000" in page  # the first row as the guess reads it
    assert '<option value="instance_id" selected>' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(response["Location"], MAPPING)
    assert response["Location"] == reverse("billing:usage-detail", args=[upload.pk])
    page = client.get(response["Location"]).content.decode()
    # No incident here: the hour before the clock and the wrong rate (see the planted test).
    assert "632.00 USD" in page and "610.00 USD" in page
    assert page.count('class="difference"') == 2
    only_rate = client.get(response["Location"] + "?rule=rate").content.decode()
    assert only_rate.count('class="difference"') == 1 and 'data-line="11"' in only_rate
    # The buyer mapped it: for this file alone, said on the page; the provider's stays unset.
    assert "set for this file only by" in page
    assert not UsageMapping.objects.filter(provider=contracted.reservation.bid.provider).exists()
    upload.refresh_from_db()
    assert upload.reconciled_mapping["columns"]["node"] == "instance_id"
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"usage.uploaded", "usage.file_mapping_set"} <= actions
    assert "usage.mapping_changed" not in actions


def test_the_differences_download_as_csv_and_xlsx(
    contracted, provider, buyer, django_capture_on_commit_callbacks
):
    from tests.billing.conftest import upload_and_map

    upload = upload_and_map(
        contracted.reservation,
        provider.user,
        usage_file("usage_planted.csv"),
        django_capture_on_commit_callbacks,
    )
    client = buyer.client()
    body = client.get(reverse("billing:usage-export", args=[upload.pk, "csv"])).content
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[0][:2] == ["Line", "Rule"] and [r[0] for r in rows[1:]] == ["2", "11"]
    xlsx = client.get(reverse("billing:usage-export", args=[upload.pk, "xlsx"]) + "?rule=rate")
    sheet = load_workbook(io.BytesIO(xlsx.content)).active
    assert [c.value for c in sheet[2]][:2] == [11, "rate"] and sheet.max_row == 2


def test_a_bad_mapping_keeps_the_file_and_a_fixed_one_runs_it_again(
    contracted, provider, django_capture_on_commit_callbacks
):
    client = provider.client()
    _upload(client, contracted.reservation)
    upload = UsageUpload.objects.get()
    url = reverse("billing:usage-mapping", args=[upload.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {**MAPPING, "quantity": "usage_end"})
    # The first rows, kept at upload, already show the mapping misreads: refused, named.
    page = html.unescape(response.content.decode())
    assert "Cannot confirm this mapping: 10 of the first 10 lines" in page
    assert "line 2, column 'usage_end': '2026-03-01T06:00:00Z' is not a number." in page
    upload.refresh_from_db()
    assert upload.state == UsageState.MAPPING and upload.error == ""
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, MAPPING)
    upload.refresh_from_db()
    assert upload.state == UsageState.DONE and upload.difference_count == 2


def test_a_mapping_naming_no_column_for_a_required_field_is_refused_on_that_field(
    contracted, provider
):
    client = provider.client()
    _upload(client, contracted.reservation)
    url = reverse("billing:usage-mapping", args=[UsageUpload.objects.get().pk])
    response = client.post(url, {**MAPPING, "rate": "", "gpus": "no such header"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "This field is required." in page and "Select a valid choice" in page
    assert not UsageMapping.objects.exists()


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("hello", "'hello' has no year (%Y or %y)"),
        ("%Q/%m/%Y", "'%Q/%m/%Y' holds a code that is not a date code"),
    ],
)
def test_a_date_format_that_reads_no_date_is_refused_on_its_field_as_typed(
    contracted, provider, typed, said
):
    client = provider.client()
    _upload(client, contracted.reservation)
    url = reverse("billing:usage-mapping", args=[UsageUpload.objects.get().pk])
    response = client.post(url, {**MAPPING, "date_format": typed})
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert 'id="id_date_format_error"' in page and said in page
    assert f'name="date_format" value="{typed}"' in page
    assert not UsageMapping.objects.exists()


def test_the_next_file_from_the_same_provider_reuses_its_mapping(
    contracted, provider, buyer, django_capture_on_commit_callbacks
):
    UsageMapping.objects.create(
        provider=contracted.reservation.bid.provider,
        columns={k: v for k, v in MAPPING.items() if k not in ("unit", "date_format")},
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(buyer.client(), contracted.reservation)
    upload = UsageUpload.objects.get()
    assert response["Location"] == reverse("billing:usage-detail", args=[upload.pk])
    upload.refresh_from_db()
    assert upload.state == UsageState.DONE and upload.difference_count == 2


def test_an_unreadable_file_is_stored_with_its_error(contracted, provider):
    response = _upload(provider.client(), contracted.reservation, "usage.xlsx", b"PK\x03\x04junk")
    upload = UsageUpload.objects.get()
    assert upload.state == UsageState.ERROR and upload.size == 8
    assert "is not a readable XLSX workbook" in upload.error
    # Refused on the form, with the reason; the stored file is listed with its error.
    assert response.status_code == 400
    refused = html.unescape(response.content.decode())
    assert f"usage.xlsx is stored (upload {upload.pk}) but cannot be read" in refused
    assert reverse("billing:usage-detail", args=[upload.pk]) in refused
    page = provider.client().get(reverse("billing:usage-detail", args=[upload.pk]))
    page = page.content.decode()
    assert "no header row we could read" in page and "upload a corrected file" in page
    mapping = reverse("billing:usage-mapping", args=[upload.pk])
    assert "nothing to map" in provider.client().get(mapping).content.decode()


def test_usage_before_acceptance_is_refused_on_the_page(world, provider, buyer):
    from tests.acceptance.burnin.helpers import award

    reservation = award(world, buyer).reservation
    response = _upload(provider.client(), reservation)
    assert response.status_code == 200 and not UsageUpload.objects.exists()
    page = provider.client().get(reverse("billing:usage-list", args=[reservation.pk]))
    assert "pending acceptance cannot be given usage lines" in page.content.decode()


def test_empty_states(contracted, buyer):
    page = buyer.client().get(reverse("billing:usage-list", args=[contracted.reservation.pk]))
    assert "No usage uploaded yet" in page.content.decode()


def test_the_pages_read_the_same_queries_for_few_and_many_rows(
    contracted, provider, buyer, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    from tests.billing.conftest import upload_and_map

    client = buyer.client()
    first = upload_and_map(
        contracted.reservation,
        provider.user,
        usage_file("usage_planted.csv"),
        django_capture_on_commit_callbacks,
    )
    detail = reverse("billing:usage-detail", args=[first.pk])
    listing = reverse("billing:usage-list", args=[contracted.reservation.pk])
    with django_assert_max_num_queries(1000) as few_detail:
        client.get(detail)
    with django_assert_max_num_queries(1000) as few_list:
        client.get(listing)
    lines = usage_file("usage_planted.csv").read().decode().splitlines()
    wrong = lines[10].replace("2.50,20.00", "2.75,22.00")  # one hour of gpu-b01 on 1 March
    days = [date(2026, 3, 2) + timedelta(days=i) for i in range(40)]  # 40 hours, none twice
    many = "\n".join([lines[0]] + [wrong.replace("2026-03-01", str(d)) for d in days]) + "\n"
    for _ in range(6):
        upload_and_map(
            contracted.reservation,
            provider.user,
            usage_file("more.csv", many.encode()),
            django_capture_on_commit_callbacks,
        )
    big = UsageUpload.objects.filter(original_name="more.csv").first()
    assert big is not None and big.difference_count == 40  # the wrong rate on every line
    with django_assert_max_num_queries(len(few_detail)):
        client.get(reverse("billing:usage-detail", args=[big.pk]))
    with django_assert_max_num_queries(len(few_list)):
        client.get(listing)


def test_a_file_longer_than_the_preview_is_reconciled_whole(
    contracted, provider, django_capture_on_commit_callbacks
):
    from tests.billing.conftest import upload_and_map

    row = "2026-03-{day:02d}T{hour:02d}:00:00Z,,gpu-b0{node},8,1,2.50,20.00,gpu"
    lines = [
        row.format(day=d, hour=h, node=n) for d in range(2, 31) for h in range(24) for n in (1, 2)
    ]
    body = (
        "usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type\n"
        + "\n".join(lines * 5)
        + "\n"
    ).encode()
    assert len(body) > 256 * 1024
    upload = upload_and_map(
        contracted.reservation,
        provider.user,
        usage_file("march.csv", body),
        django_capture_on_commit_callbacks,
    )
    assert upload.state == UsageState.DONE and upload.lines == len(lines) * 5
    assert upload.totals["billed"] == f"{len(lines) * 5 * 20:,}.00".replace(",", "")


def test_the_mapping_page_previews_from_the_rows_kept_at_upload(contracted, buyer):
    """A year-long workbook is read once, at upload: the mapping page previews the kept first
    rows, never the file again."""
    client = buyer.client()
    _upload(client, contracted.reservation)
    upload = UsageUpload.objects.get()
    assert [row[0] for row in upload.inspection["head"]][:2] == [2, 3]
    with upload.file.open("wb") as handle:  # were the page to read the file, it would fail
        handle.write(b"\x00 not a table")
    url = reverse("billing:usage-mapping", args=[upload.pk])
    page = client.get(url).content.decode()
    assert "gpu-b01" in page and "8.0000" in page
