"""Usage reconciliation through the API, as a script would use it: upload with a token
(`curl -F file=@usage.csv`), confirm the mapping, read totals and differences."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from billing.models import UsageUpload
from tests.api.v1.conftest import token_client
from tests.api.v1.tenancy_builders import USAGE_MAPPING
from tests.billing.conftest import DATA, contracted, media_root

pytestmark = pytest.mark.django_db
__all__ = ["contracted", "media_root"]


def _post(client, reservation, content=None):
    data = (DATA / "usage_planted.csv").read_bytes() if content is None else content
    return client.post(
        f"/api/v1/reservations/{reservation.pk}/usage/",
        {"file": SimpleUploadedFile("usage.csv", data)},
        format="multipart",
    )


def test_upload_map_and_read_the_reconciliation(
    contracted, provider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    reservation = contracted.reservation
    response = _post(client, reservation)
    assert response.status_code == 201
    body = response.json()
    assert body["state"] == "mapping" and body["headers"][0] == "usage_start"
    base = f"/api/v1/reservations/{reservation.pk}/usage/{body['id']}/"
    mapping = client.get(base + "mapping/").json()
    assert mapping["mapping"]["columns"]["node"] == "instance_id"
    assert mapping["preview"][0]["line"] == 2 and mapping["preview"][0]["error"] == ""
    with django_capture_on_commit_callbacks(execute=True):
        response = client.put(base + "mapping/", USAGE_MAPPING, format="json")
    assert response.status_code == 202
    detail = client.get(base).json()
    assert detail["state"] == "done"
    assert detail["totals"]["billed"] == "632.00" and detail["totals"]["net"] == "610.00"
    assert detail["by_rule"] == {"before-clock": 1, "rate": 1}
    page = detail["difference_page"]
    assert [(d["line"], d["rule"]) for d in page["results"]] == [(2, "before-clock"), (11, "rate")]
    only_rate = client.get(base + "?rule=rate").json()["difference_page"]
    assert only_rate["count"] == 1 and only_rate["results"][0]["billed_usd"] == "22.00"
    listed = client.get(f"/api/v1/reservations/{reservation.pk}/usage/").json()
    assert [row["id"] for row in listed["results"]] == [body["id"]]


def test_the_next_upload_reuses_the_mapping_and_is_reconciled_at_once(
    contracted, provider, buyer, django_capture_on_commit_callbacks
):
    first = _post(token_client(provider.user), contracted.reservation).json()
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{first['id']}/"
    with django_capture_on_commit_callbacks(execute=True):
        token_client(provider.user).put(base + "mapping/", USAGE_MAPPING, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        second = _post(token_client(buyer.user), contracted.reservation).json()
    assert second["state"] == "queued"
    assert UsageUpload.objects.get(pk=second["id"]).state == "done"


def test_a_mapping_naming_no_header_is_refused_field_by_field(contracted, provider):
    client = token_client(provider.user)
    upload = _post(client, contracted.reservation).json()
    url = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{upload['id']}/mapping/"
    bad = {"columns": {**USAGE_MAPPING["columns"], "rate": "price", "gpus": ""}, "unit": "hours"}
    response = client.put(url, bad, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["rate"] == ["'price' is not a header of this file."]
    assert errors["gpus"] == ["Say which column holds the gpu count."]


def test_an_upload_of_another_reservation_is_not_found_under_this_one(contracted, provider, world):
    client = token_client(provider.user)
    upload = _post(client, contracted.reservation).json()
    assert client.get(f"/api/v1/reservations/999999/usage/{upload['id']}/").status_code == 404


def test_an_empty_file_is_refused_with_its_name(contracted, provider):
    response = _post(token_client(provider.user), contracted.reservation, content=b"")
    assert response.status_code == 400
    assert "empty" in str(response.json())


def test_a_gzipped_empty_file_is_refused_at_upload_as_an_empty_one_is(contracted, provider):
    import gzip

    client = token_client(provider.user)
    response = client.post(
        f"/api/v1/reservations/{contracted.reservation.pk}/usage/",
        {"file": SimpleUploadedFile("usage-00001.csv.gz", gzip.compress(b""))},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"]["file"] == [
        "usage-00001.csv.gz: the file is empty once unpacked (a gzip of an empty file); "
        "there is nothing to check."
    ]
    assert not UsageUpload.objects.exists()  # refused before anything is stored


def test_the_reconciliation_exports_every_line_in_focus_columns(
    contracted, provider, buyer, django_capture_on_commit_callbacks
):
    import csv
    import io
    from decimal import Decimal

    from engine.billing.focus import COLUMNS

    client = token_client(provider.user)
    upload = _post(client, contracted.reservation).json()
    base = f"/api/v1/reservations/{contracted.reservation.pk}/usage/{upload['id']}/"
    assert client.get(base + "focus/").status_code == 404  # not reconciled yet
    with django_capture_on_commit_callbacks(execute=True):
        client.put(base + "mapping/", USAGE_MAPPING, format="json")
    detail = client.get(base).json()
    response = token_client(buyer.user).get(base + "focus/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == list(COLUMNS) and len(rows) == detail["lines"]
    assert sum(Decimal(r["BilledCost"]) for r in rows) == Decimal(detail["totals"]["billed"])
    assert sum(Decimal(r["EffectiveCost"]) for r in rows) == Decimal(detail["totals"]["allowed"])
    assert {r["BillingAccountId"] for r in rows} == {
        f"clusterbid-reservation-{contracted.reservation.pk}"
    }
    flagged = {r["x_SourceLine"]: r["x_Findings"] for r in rows if r["x_Findings"]}
    assert flagged == {"2": "before-clock", "11": "rate"}
    assert {r["ResourceId"] for r in rows if r["ServiceCategory"] == "Compute"} == {
        "gpu-b01",
        "gpu-b02",
    }


def test_an_xlsx_bomb_upload_is_kept_and_refused_at_once_with_the_reason(contracted, provider):
    """~420 KB whose shared strings unpack to ~400 MB: the upload is stored (as every upload
    is), read no further than its zip directory, and refused with a 400 saying why (the engine's
    own test holds the refusal to 2 s and 200 MB)."""
    from tests.engine.billing.test_bill_hostile import _deflated, _zip

    chunk = b"<si><t>" + b"A" * (1 << 20) + b"</t></si>"
    strings = _deflated((b'<?xml version="1.0"?><sst>', 1), (chunk, 400), (b"</sst>", 1))
    bomb = _zip(
        [
            ("[Content_Types].xml", *_deflated((b"<Types/>", 1))),
            ("xl/workbook.xml", *_deflated((b"<workbook/>", 1))),
            ("xl/sharedStrings.xml", *strings),
        ]
    )
    client = token_client(provider.user)
    response = client.post(
        f"/api/v1/reservations/{contracted.reservation.pk}/usage/",
        {"file": SimpleUploadedFile("bill.xlsx", bomb)},
        format="multipart",
    )
    assert response.status_code == 400
    refused = response.json()
    assert "bill.xlsx is refused" in refused["detail"]
    assert refused["errors"]["file"] == [refused["upload"]["error"]]
    assert "it unpacks to more than 100 MB" in refused["upload"]["error"]
    body = refused["upload"]
    assert body["state"] == "error" and "bill.xlsx is refused" in body["error"]
    assert UsageUpload.objects.get(pk=body["id"]).size == len(bomb)
