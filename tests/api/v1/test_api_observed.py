"""What the workload observed, through the API as a script on the cluster would use it: the
worked example of docs/observed-outcomes.md uploaded with tokens (`curl -F kind=… -F file=@…`),
its figures read back as JSON; a file that cannot be read says its line and field and is read
again on request; the roles and states that may not write are told so."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from acceptance.models import Reservation, ReservationStatus
from audit.models import AuditEntry
from observed import services
from observed.models import ObservedState, ObservedUpload, ResultDefinition
from tests.api.v1.conftest import token_client
from tests.incidents.helpers import media_root
from tests.observed.helpers import NODE_FILES, data_file, worked_reservation

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def reservation(buyer: Any, provider: Any, media_root: Any) -> Any:
    return worked_reservation(buyer, provider)


def _post(client: Any, reservation: Any, kind: str, name: str, content: bytes | None = None):
    return client.post(
        f"/api/v1/reservations/{reservation.pk}/observed/",
        {"kind": kind, "file": data_file(name, content)},
        format="multipart",
    )


def test_the_worked_example_uploaded_by_api_gives_its_figures(
    reservation, buyer, provider, django_capture_on_commit_callbacks
):
    engineer, lead = token_client(provider.user), token_client(buyer.user)
    with django_capture_on_commit_callbacks(execute=True):
        first = _post(engineer, reservation, "kueue", "kueue-workloads-events.json")
        for name in NODE_FILES:
            assert _post(engineer, reservation, "kube_nodes", name).status_code == 201
        assert _post(lead, reservation, "results", "results.csv").status_code == 201
    assert first.status_code == 201
    body = first.json()
    assert (body["kind"], body["party"], body["name"]) == (
        "kueue",
        "provider",
        "kueue-workloads-events.json",
    )
    assert engineer.get(f"/api/v1/observed/{body['id']}/").json()["state"] == "done"
    named = lead.put(
        f"/api/v1/reservations/{reservation.pk}/observed/result/",
        {"unit": "step", "expected_per_gpu_hour": "1.25"},
        format="json",
    )
    assert named.status_code == 200
    assert named.json() == {"unit": "step", "expected_per_gpu_hour": "1.2500"}

    figures = lead.get(f"/api/v1/reservations/{reservation.pk}/observed/figures/").json()
    days = {d["day"]: d for d in figures["days"]}
    first_day = days["2026-03-02"]
    assert [first_day[k] for k in ("contracted", "allocatable", "healthy", "in_use")] == [
        "16.00", "16.00", "12.00", "13.53",
    ]  # fmt: skip
    assert days["2026-03-03"]["healthy"] == "14.00" and days["2026-03-03"]["in_use"] == "4.00"
    receipts = figures["receipts"]
    assert (receipts["promised_p95"], receipts["observed_p95"]) == (30, "45.00")
    late = [r for r in receipts["rows"] if r["within_p95"] is False]
    assert [(r["job"], r["to_running_minutes"]) for r in late] == [
        ("job-pretrain-b-9d1e4", "45.00")
    ]
    miss = figures["misses"][0]
    assert miss["promise"] == "Time to running (p95)"
    pending = [r for r in miss["records"] if r["line"] == 631]
    assert pending and pending[0]["source"] == "kueue-workloads-events.json"
    assert "insufficient unused quota for nvidia.com/gpu" in pending[0]["detail"]
    cost = figures["cost"]
    assert (cost["unit"], cost["accepted"], cost["replayed"], cost["rejected"]) == (
        "step", 391, 10, 5,
    )  # fmt: skip
    assert cost["cost"] == "4.9105"
    assert figures["files"] == {"queued": 0, "parsing": 0, "done": 6, "error": 0}
    month = lead.get(f"/api/v1/reservations/{reservation.pk}/observed/figures/?period=2026-03")
    assert month.json()["period"] == "2026-03" and month.json()["misses"]
    listed = engineer.get(f"/api/v1/reservations/{reservation.pk}/observed/?page_size=2").json()
    assert listed["count"] == 6 and len(listed["results"]) == 2


def test_a_file_that_cannot_be_read_says_its_line_and_field_and_is_read_again(
    reservation, provider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    bad = b"time,step\n2026-03-02T00:06:00Z,one\n"
    with django_capture_on_commit_callbacks(execute=True):
        posted = _post(client, reservation, "results", "results.csv", bad)
    assert posted.status_code == 201  # stored first, whatever reading it finds
    detail = client.get(f"/api/v1/observed/{posted.json()['id']}/").json()
    assert (detail["state"], detail["error_line"], detail["error_field"]) == ("error", 2, "step")
    assert "'one' is not a whole number" in detail["error"]
    with django_capture_on_commit_callbacks(execute=True):
        retried = client.post(f"/api/v1/observed/{detail['id']}/retry/")
    assert retried.status_code == 202 and retried.json()["state"] == "queued"
    row = ObservedUpload.objects.get()
    assert (row.state, row.attempts, row.error_line) == (ObservedState.ERROR, 2, 2)
    entry = AuditEntry.objects.get(action="observed.retry")
    assert entry.obj_key == f"observed:{row.pk}"


def test_the_provider_may_not_name_the_result(reservation, provider):
    response = token_client(provider.user).put(
        f"/api/v1/reservations/{reservation.pk}/observed/result/", {"unit": "run"}, format="json"
    )
    assert response.status_code == 403 and response.json()["move"] == "observed_result"
    assert not ResultDefinition.objects.exists()


def test_a_result_unit_that_is_none_is_named(reservation, buyer):
    response = token_client(buyer.user).put(
        f"/api/v1/reservations/{reservation.pk}/observed/result/", {"unit": "hour"}, format="json"
    )
    assert response.status_code == 400 and list(response.json()["errors"]) == ["unit"]


def test_a_file_read_is_not_read_again(reservation, buyer, django_capture_on_commit_callbacks):
    client = token_client(buyer.user)
    with django_capture_on_commit_callbacks(execute=True):
        row = _post(client, reservation, "results", "results.csv").json()
    retried = client.post(f"/api/v1/observed/{row['id']}/retry/")
    assert retried.status_code == 409
    assert "only a file that could not be read is read again" in retried.json()["detail"]


def test_a_missing_kind_or_an_empty_file_is_named_and_nothing_is_stored(reservation, provider):
    client = token_client(provider.user)
    no_kind = client.post(
        f"/api/v1/reservations/{reservation.pk}/observed/",
        {"file": data_file("results.csv")},
        format="multipart",
    )
    assert no_kind.status_code == 400 and "kind" in no_kind.json()["errors"]
    unknown = _post(client, reservation, "slurm", "sacct-parsable2.txt")
    assert unknown.status_code == 400
    words = unknown.json()["errors"]["kind"][0]
    assert words.startswith('"slurm" is not a kind of observed file; send one of: kueue (')
    assert "sacct (Slurm job records (sacct --parsable2))" in words
    empty = _post(client, reservation, "results", "results.csv", b"")
    assert empty.status_code == 400
    assert empty.json()["errors"]["file"] == [
        "results.csv: the file is empty; there is nothing to check."
    ]
    assert not ObservedUpload.objects.exists()


def test_a_month_outside_the_term_is_refused_by_name(reservation, buyer):
    url = f"/api/v1/reservations/{reservation.pk}/observed/figures/?period=2026-04"
    response = token_client(buyer.user).get(url)
    assert response.status_code == 400
    assert response.json()["errors"]["period"] == [
        "The term has no month '2026-04' to date; its months: 2026-03."
    ]


def test_a_reservation_not_accepted_refuses_the_upload_with_the_move(reservation, provider):
    Reservation.objects.filter(pk=reservation.pk).update(status=ReservationStatus.PENDING)
    response = _post(token_client(provider.user), reservation, "results", "results.csv")
    assert response.status_code == 409 and response.json()["move"] == "observed_upload"
    assert not ObservedUpload.objects.exists()


def test_a_rival_provider_neither_reads_nor_uploads(reservation, provider, rival_provider):
    row = services.observed_upload(
        reservation=reservation, user=provider.user, kind="results",
        upload=data_file("results.csv"),
    )  # fmt: skip
    rival = token_client(rival_provider.user)
    assert rival.get(f"/api/v1/observed/{row.pk}/").status_code == 404
    assert _post(rival, reservation, "results", "results.csv").status_code == 404
    assert ObservedUpload.objects.count() == 1


def test_an_oversized_body_is_refused_before_it_is_read(reservation, provider):
    response = token_client(provider.user).post(
        f"/api/v1/reservations/{reservation.pk}/observed/",
        {"kind": "results", "file": data_file("results.csv")},
        format="multipart",
        CONTENT_LENGTH=str(80 * 1024 * 1024),
    )
    assert response.status_code == 413 and "Nothing was read or stored" in response.json()["detail"]
    assert not ObservedUpload.objects.exists()


def _list_queries(client: Any, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_list_does_not_grow_with_its_files(reservation, buyer, provider):
    def add(n: int) -> None:
        for i in range(n):
            services.observed_upload(
                reservation=reservation, user=provider.user, kind="results",
                upload=data_file(f"results-{i}.csv", f"time,job,step\n#{i}\n".encode()),
            )  # fmt: skip

    client, url = token_client(buyer.user), f"/api/v1/reservations/{reservation.pk}/observed/"
    add(2)
    client.get(url)  # the token's first use is recorded once
    few = _list_queries(client, url)
    add(20)
    assert _list_queries(client, url) == few


def test_a_blank_prediction_is_refused_not_read_as_none(reservation, buyer):
    """DRF reads `""` as null for a decimal that may be null: a script that left the figure
    blank would erase the prediction without a word."""
    client = token_client(buyer.user)
    url = f"/api/v1/reservations/{reservation.pk}/observed/result/"
    set_it = client.put(url, {"unit": "step", "expected_per_gpu_hour": "2"}, format="json")
    assert set_it.status_code == 200
    blank = client.put(url, {"unit": "step", "expected_per_gpu_hour": " "}, format="json")
    assert blank.status_code == 400
    assert blank.json()["errors"] == {"expected_per_gpu_hour": ["A valid number is required."]}
    assert ResultDefinition.objects.get().expected_per_gpu_hour == Decimal("2")
    cleared = client.put(url, {"unit": "step", "expected_per_gpu_hour": None}, format="json")
    assert cleared.json() == {"unit": "step", "expected_per_gpu_hour": None}
