"""The API tenancy table's rows for what a reservation observed and served
(tests/api/v1/test_tenancy.py merges them): both parties to the accepted reservation read,
upload and retry; the rival provider and outsiders get 404, anonymous callers 401."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api.v1.conftest import ApiWorld
from tests.api.v1.tenancy_builders import (
    CONFLICT,
    CREATED,
    FORBIDDEN,
    OK,
    OWNER_AND_BUYER,
    Body,
    Multipart,
    Params,
    only,
)

PARTIES_409 = only(provider=CONFLICT, buyer=CONFLICT)


def accepted(w: ApiWorld) -> dict[str, Any]:
    return {"id": w.incident.reservation_id}


def observed_file(w: ApiWorld) -> dict[str, Any]:
    """A result file the buyer sent, still queued (the worker's callback is not run)."""
    from observed.services import observed_upload

    row = observed_upload(
        reservation=w.incident.reservation, user=w.incident.opened_by, kind="results",
        upload=SimpleUploadedFile("results.csv", b"time,job,step,tokens,accepted\n"),
    )  # fmt: skip
    return {"id": row.pk}


def served_file(w: ApiWorld) -> dict[str, Any]:
    """A served-responses file the buyer sent, still queued."""
    from inference.services import served_upload

    row, _duplicate = served_upload(
        reservation=w.incident.reservation, user=w.incident.opened_by,
        upload=SimpleUploadedFile("requests.csv", b"request_id,start,first_token,end\n"),
    )  # fmt: skip
    return {"id": row.pk}


OUTCOME_OPERATIONS: dict[str, tuple[Params, Body, dict[str, int]]] = {
    "reservations_observed_list": (accepted, None, OWNER_AND_BUYER),
    # Stored whatever the bytes are (the all_reduce log is read, and refused, by the worker).
    "reservations_observed_create": (
        accepted,
        lambda w: Multipart(kind="results"),
        only(provider=CREATED, buyer=CREATED),
    ),
    "reservations_observed_figures_retrieve": (accepted, None, OWNER_AND_BUYER),
    # The buyer alone names the result; the provider is told it is not its move.
    "reservations_observed_result_update": (
        accepted,
        lambda w: {"unit": "step", "expected_per_gpu_hour": "1.25"},
        only(provider=FORBIDDEN, buyer=OK),
    ),
    "observed_retrieve": (observed_file, None, OWNER_AND_BUYER),
    # Still queued: only a file that could not be read is read again.
    "observed_retry_create": (observed_file, None, PARTIES_409),
    "reservations_inference_list": (accepted, None, OWNER_AND_BUYER),
    # The same bytes twice are one file: the buyer, second, is answered with the stored one.
    "reservations_inference_create": (
        accepted,
        lambda w: Multipart(),
        only(provider=CREATED, buyer=OK),
    ),
    "reservations_inference_figures_retrieve": (accepted, None, OWNER_AND_BUYER),
    "served_retrieve": (served_file, None, OWNER_AND_BUYER),
    # Still queued: it is already waiting for its reading.
    "served_retry_create": (served_file, None, PARTIES_409),
}
