"""A bill layout on the pages: the mapping page shows what the worker stored (profile,
detected dialect, columns, the node identity table, the first lines) without reading the file
again; confirming it reconciles, and the detail page lists tax, credits and refunds apart from
the usage and says what it could not check."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from billing.models import UsageUpload
from tests.api.v1.test_api_usage_bills import _reservation
from tests.billing.conftest import usage_file
from tests.engine.billing.test_bill_profiles import DATA
from tests.incidents.helpers import media_root

pytestmark = pytest.mark.django_db
__all__ = ["media_root"]


def _post_data(form_initial: dict) -> dict:
    return {k: ("" if v is None else v) for k, v in form_initial.items()}


def test_a_cloud_bill_is_shown_as_read_confirmed_and_reconciled_on_the_pages(
    world, buyer, provider, django_capture_on_commit_callbacks, monkeypatch
):
    reservation = _reservation(world, buyer, provider, rate="12.29")
    client = provider.client()
    url = reverse("billing:usage-list", args=[reservation.pk])
    content = (DATA / "aws_cur2.csv").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"file": usage_file("cur.csv", content)})
    upload = UsageUpload.objects.get()
    assert response["Location"] == reverse("billing:usage-mapping", args=[upload.pk])

    def no_read(*args, **kwargs):  # the page shows what was stored, never the file again
        raise AssertionError("the mapping page read the file")

    monkeypatch.setattr("billing.bills.read_bill", no_read)
    monkeypatch.setattr("billing.selectors.usage_head", no_read)
    page = client.get(response["Location"])
    html = page.content.decode()
    assert "AWS Cost and Usage Report 2.0" in html and "Header row" in html
    assert 'id="bill-nodes"' in html and "paired in order: check it" in html
    assert html.count('class="node-row"') == 2 and 'id="bill-preview"' in html
    assert '<option value="line_item_usage_start_date" selected>' in html
    monkeypatch.undo()

    form = page.context["form"]
    data = _post_data({name: form[name].value() for name in form.fields})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("billing:usage-mapping", args=[upload.pk]), data)
    assert response["Location"] == reverse("billing:usage-detail", args=[upload.pk])
    upload.refresh_from_db()
    assert upload.state == "done", upload.error
    assert sorted(upload.differences.values_list("line", "rule")) == [
        (2, "before-clock"),
        (8, "node-out"),
        (9, "rate"),
    ]
    html = client.get(response["Location"]).content.decode()
    assert 'id="usage-other"' in html and 'data-charge="tax"' in html and "70.29" in html
    assert 'data-charge="credit"' in html and 'id="usage-warnings"' not in html


def test_an_unconfirmed_node_is_a_warning_on_the_reconciliation(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    reservation = _reservation(world, buyer, provider, rate="12.29")
    client = provider.client()
    content = (DATA / "aws_cur2.csv").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("billing:usage-list", args=[reservation.pk]),
            {"file": usage_file("cur.csv", content)},
        )
    upload = UsageUpload.objects.get()
    page = client.get(reverse("billing:usage-mapping", args=[upload.pk]))
    form = page.context["form"]
    data = _post_data({name: form[name].value() for name in form.fields})
    data = {k: ("" if k.startswith("node_") else v) for k, v in data.items()}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("billing:usage-mapping", args=[upload.pk]), data)
    html = client.get(reverse("billing:usage-detail", args=[upload.pk])).content.decode()
    assert 'data-kind="unmatched-outage" data-node="node-b"' in html
    assert html.count('data-kind="unmatched-billed"') == 2


def test_confirming_a_bill_with_a_bad_cell_is_refused_on_the_page_naming_it(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    from tests.api.v1.test_api_usage_malformed import LINE, RATE, _invoice_csv

    reservation = _reservation(world, buyer, provider, rate="2.5")
    client = provider.client()
    url = reverse("billing:usage-list", args=[reservation.pk])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"file": usage_file("invoice.csv", _invoice_csv(RATE, "#DIV/0!"))})
    upload = UsageUpload.objects.get()
    mapping_url = reverse("billing:usage-mapping", args=[upload.pk])
    page = client.get(mapping_url)
    form = page.context["form"]
    data = _post_data({name: form[name].value() for name in form.fields})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(mapping_url, data)
    assert response.status_code == 200  # the form again, with why
    text = html.unescape(response.content.decode())
    assert "Cannot confirm this mapping: 1 cell(s) of invoice.csv cannot be read" in text
    assert f"line {LINE}, column '{RATE}': '#DIV/0!' is a spreadsheet error" in text
    upload.refresh_from_db()
    assert upload.state == "mapping" and not upload.differences.exists()


def _preview(page_html: str) -> dict[int, list[str]]:
    """The cells of the mapping page's first lines, by line."""
    section = page_html.split('id="bill-preview"', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r"<tr><td>(\d+)</td>(.*?)</tr>", section)
    return {int(n): re.findall(r"<td[^>]*>(.*?)</td>", cells) for n, cells in rows}


def test_a_sagemaker_bill_shows_hyperpod_hours_as_gpu_time_and_the_nat_gateway_as_fees(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    """A CUR of a HyperPod p5 node: its node-hours are read as 8 GPUs each at the per-GPU-hour
    rate, the NAT gateway's hour and processed bytes as fees, and only data sent out as egress,
    on the mapping page and in the reconciliation's totals."""
    reservation = _reservation(world, buyer, provider, rate="12.29")
    client = provider.client()
    content = (DATA / "aws_cur2_sagemaker.csv").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("billing:usage-list", args=[reservation.pk]),
            {"file": usage_file("cur.csv", content)},
        )
    upload = UsageUpload.objects.get()
    page = client.get(response["Location"])
    rows = _preview(page.content.decode())
    # start, end, node, type, GPUs, GPU-hours, rate per GPU-hour, amount, currency, read as
    assert rows[3][3:] == ["ml.p5.48xlarge", "8", "8.0000", "12.29", "98.32", "USD", "gpu"]
    assert rows[8][3:] == ["ml.p4d.24xlarge", "8", "8.0000", "4.71", "37.69", "USD", "gpu"]
    assert [rows[n][-1] for n in (7, 9, 10, 11, 12)] == [
        "fee", "fee", "fee", "egress", "tax (not usage)"]  # fmt: skip

    form = page.context["form"]
    data = _post_data({name: form[name].value() for name in form.fields})
    assert [form.fields[f"node_{i}"].label for i in (0, 1)] == [
        "arn:aws:sagemaker:us-east-1:444455556666:cluster/k2f8d4vz1x3m",
        "arn:aws:sagemaker:us-east-1:444455556666:training-job/eval-p4d-0007",
    ]
    data |= {"node_0": "node-a", "node_1": ""}  # the training job is no node of this reservation
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("billing:usage-mapping", args=[upload.pk]), data)
    upload.refresh_from_db()
    assert upload.state == "done", upload.error
    assert sorted(upload.differences.values_list("line", "rule")) == [
        (2, "before-clock"),
        (6, "rate"),
        (8, "rate"),
        (8, "unknown-node"),
    ]
    text = client.get(reverse("billing:usage-detail", args=[upload.pk])).content.decode()
    text = " ".join(text.split())
    assert "10 lines, 48.00 GPU-hours; GPU 534.17, egress 22.50, fees 5.82" in text
    # Four accepted node-hours at the agreed 12.29 × 8; the NAT gateway within the fees bid.
    assert "nodes in service; GPU 393.28, egress 22.50, fees 5.82" in text
    assert 'data-kind="unmatched-billed" data-node="arn:aws:sagemaker:' in text


def test_an_empty_usage_file_is_named_on_the_page_and_by_the_api(world, buyer, provider):
    from tests.api.v1.conftest import token_client

    reservation = _reservation(world, buyer, provider, rate="12.29")
    url = reverse("billing:usage-list", args=[reservation.pk])
    page = provider.client().post(url, {"file": usage_file("usage.csv", b"")})
    said = "usage.csv: the file is empty; there is nothing to check."
    assert said in html.unescape(page.content.decode())
    assert "The submitted file is empty" not in page.content.decode()
    api = token_client(provider.user).post(
        f"/api/v1/reservations/{reservation.pk}/usage/",
        {"file": usage_file("usage.csv", b"")},
        format="multipart",
    )
    assert api.status_code == 400
    assert api.json()["errors"]["file"] == [said]
    assert not UsageUpload.objects.exists()
