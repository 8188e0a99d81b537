"""Planned changes over the API, as scripts on each side run them: the provider's engineer
uploads the canary's evidence from the cluster with curl's multipart form, reads the verdict and
the checks beside the accepted burn-in's; the buyer's script objects. The rival sees nothing."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext

from tests.acceptance.burnin.helpers import DATA, media_root
from tests.api.v1.conftest import token_client
from tests.delivery.changes.helpers import FAILING, PASSING, announce, change_world, upload_canary

__all__ = ["media_root"]
pytestmark = pytest.mark.django_db


def _upload_set(client: Any, change_id: int, files: list[tuple[str, str]], capture: Any) -> None:
    """One curl call per node label, each with every file of that node (-F file=@… repeated)."""
    by_node: dict[str, list[str]] = defaultdict(list)
    for name, node in files:
        by_node[node].append(name)
    for node, names in by_node.items():
        uploads = [SimpleUploadedFile(n.rsplit("/", 1)[-1], (DATA / n).read_bytes()) for n in names]
        with capture(execute=True):
            response = client.post(
                f"/api/v1/changes/{change_id}/canary/evidence/",
                {"file": uploads, "node": node},
                format="multipart",
            )
        assert response.status_code == 201, response.content


def test_the_provider_curls_a_failing_canary_and_the_buyer_objects(
    buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    cw = change_world(buyer, provider, django_capture_on_commit_callbacks)
    change = announce(cw, provider)
    bob, nora, rita = (token_client(r.user) for r in (buyer, provider, rival_provider))
    _upload_set(nora, change.pk, FAILING, django_capture_on_commit_callbacks)

    state = nora.get(f"/api/v1/changes/{change.pk}/canary/evidence/").json()
    assert state["run"]["canary"] == change.canary.pk and state["run"]["reservation"] is None
    assert {f["state"] for f in state["results"]} == {"parsed"}
    assert state["gate"]["passed"] is False

    body = bob.get(f"/api/v1/changes/{change.pk}/").json()
    assert body["verdict"] == "failed" and body["canary_nodes"] == ["gpu-a01", "gpu-a02"]
    busbw = next(r for r in body["comparison"] if "busbw" in r["name"] and r["before"])
    assert busbw["after_status"] == "fail" and busbw["before"] != busbw["after"]

    for path in (f"/api/v1/changes/{change.pk}/", f"/api/v1/changes/{change.pk}/canary/evidence/"):
        assert rita.get(path).status_code == 404
    # The canary is the provider's proof: the buyer cannot add to it.
    name = FAILING[0][0]
    upload = SimpleUploadedFile("mine.jsonl", (DATA / name).read_bytes())
    refused = bob.post(
        f"/api/v1/changes/{change.pk}/canary/evidence/", {"file": [upload]}, format="multipart"
    )
    assert refused.status_code == 403 and "Only the provider" in refused.json()["detail"]

    answer = f"/api/v1/changes/{change.pk}/answer/"
    unexplained = bob.post(answer, {"decision": "object"}, format="json")
    assert unexplained.status_code == 400 and "reason" in unexplained.json()["errors"]
    own = nora.post(answer, {"decision": "accept"}, format="json")
    assert own.status_code == 403
    objected = bob.post(answer, {"decision": "object", "reason": "Canary bus bandwidth fell."},
                        format="json")  # fmt: skip
    assert objected.status_code == 200, objected.content
    assert objected.json()["state"] == "objected"
    assert objected.json()["objection"] == "Canary bus bandwidth fell."


def test_the_list_of_changes_costs_the_same_queries_for_one_change_as_for_five(
    buyer, provider, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    """Each listed change is the one its own URL answers, comparison included; the page's
    canaries (runs, files, checks, the accepted burn-in's checks) are read together."""
    capture = django_capture_on_commit_callbacks
    cw = change_world(buyer, provider, capture)
    upload_canary(announce(cw, provider), provider.user, FAILING, capture)
    bob = token_client(buyer.user)
    url = f"/api/v1/reservations/{cw.reservation.pk}/changes/"
    bob.get(url)  # the token's first use is recorded once, not on every call
    # Django keeps the query log from one request's start to the next's: count from empty.
    reset_queries()
    with CaptureQueriesContext(connection) as queries:
        assert len(bob.get(url).json()["results"]) == 1
    one = len(queries)

    passing = announce(cw, provider, component="NVIDIA driver, second build")
    upload_canary(passing, provider.user, PASSING, capture)
    for n in range(3):
        announce(cw, provider, kind="firmware", component=f"BMC {n}", from_version="1.0",
                 to_version=f"1.{n + 1}")  # fmt: skip
    reset_queries()
    with django_assert_max_num_queries(one) as five:
        listed = bob.get(url).json()["results"]
    assert len(five) == one

    assert len(listed) == 5
    assert [c["verdict"] for c in listed].count("waiting") == 3
    assert {c["verdict"] for c in listed} == {"failed", "passed", "waiting"}
    for change in listed:
        assert change == bob.get(f"/api/v1/changes/{change['id']}/").json()
        assert bool(change["comparison"]) == (change["verdict"] != "waiting")
