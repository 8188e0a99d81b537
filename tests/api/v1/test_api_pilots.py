"""Pilots over the API, as a script on each side runs them: the buyer invites a shortlisted
bid, the provider uploads the pilot's evidence with curl's multipart form, reads each file's
state and the figures, and the comparison shows verified beside claimed. The rival, shortlisted
too, sees nothing of it."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bids.services import request_close
from tests.acceptance.burnin.helpers import DATA, media_root
from tests.acceptance.pilot.helpers import PILOT_SET, invite, shortlist_both
from tests.api.v1.conftest import token_client

__all__ = ["media_root"]
pytestmark = pytest.mark.django_db


def _window(days: int = 2) -> dict[str, str]:
    start = date.today() + timedelta(days=1)
    return {"starts_on": start.isoformat(), "ends_on": (start + timedelta(days=days)).isoformat()}


def _files(names: list[str]) -> list[SimpleUploadedFile]:
    return [
        SimpleUploadedFile(name.rsplit("/", 1)[-1], (DATA / name).read_bytes()) for name in names
    ]


def _upload(client: Any, pilot_id: int, names: list[str], node: str, capture: Any) -> Any:
    with capture(execute=True):
        return client.post(
            f"/api/v1/pilots/{pilot_id}/evidence/",
            {"file": _files(names), "node": node},
            format="multipart",
        )


def test_a_pilot_runs_over_the_api_and_the_rival_sees_none_of_it(
    world, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    buyer_api, nora, rita = (token_client(r.user) for r in (buyer, provider, rival_provider))
    made = buyer_api.post(
        f"/api/v1/requests/{world.request.pk}/pilots/",
        {"bid": world.bid.pk, **_window(), "instructions": "python train.py --steps 200"},
        format="json",
    )
    assert made.status_code == 201, made.content
    pilot = made.json()
    assert pilot["bid"] == world.bid.pk and pilot["evidence_url"].endswith("/evidence/")
    assert [f["verified"] for f in pilot["figures"]] == [None] * 5

    assert [p["id"] for p in nora.get("/api/v1/pilots/").json()["results"]] == [pilot["id"]]
    assert rita.get("/api/v1/pilots/").json()["results"] == []
    for path in (f"/api/v1/pilots/{pilot['id']}/", f"/api/v1/pilots/{pilot['id']}/evidence/"):
        assert rita.get(path).status_code == 404

    whole = [name for name, node in PILOT_SET if node == ""]
    one_node = [name for name, node in PILOT_SET if node == "gpu-a01"]
    assert (
        _upload(nora, pilot["id"], whole, "", django_capture_on_commit_callbacks).status_code == 201
    )
    sent = _upload(nora, pilot["id"], one_node, "gpu-a01", django_capture_on_commit_callbacks)
    assert sent.status_code == 201, sent.content
    assert all(f["download_url"].startswith("/pilot-evidence/") for f in sent.json()["files"])
    refused = rita.post(
        f"/api/v1/pilots/{pilot['id']}/evidence/",
        {"file": _files(one_node[:1])},
        format="multipart",
    )
    assert refused.status_code == 404

    state = nora.get(f"/api/v1/pilots/{pilot['id']}/evidence/").json()
    assert state["count"] == len(PILOT_SET)
    assert {f["state"] for f in state["results"]} == {"parsed"}
    assert state["run"]["pilot"] == pilot["id"] and state["run"]["reservation"] is None
    assert state["checks_current"] and state["checks"]

    figures = {f["key"]: f for f in nora.get(f"/api/v1/pilots/{pilot['id']}/").json()["figures"]}
    fabric = figures["fabric_bandwidth"]
    assert fabric["claimed"] == world.bid.nic_rate_gbps
    assert fabric["verified"] == pytest.approx(198, abs=1) and fabric["unit"] == "Gb/s"
    assert fabric["source"]["file"].startswith("ib_write_bw_two_hcas") and fabric["source"]["line"]
    assert all(f["verified"] is not None for f in figures.values())


def test_the_comparison_api_shows_verified_beside_claimed_and_scoring_can_use_them(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    buyer_api, nora = token_client(buyer.user), token_client(provider.user)
    _upload(
        nora,
        pilot.pk,
        ["perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt"],
        "gpu-a01",
        django_capture_on_commit_callbacks,
    )
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    section = buyer_api.get(url).json()["pilots"]
    assert section["scoring_uses_verified"] is False
    rows = {row["bid"]: row for row in section["bids"]}
    assert set(rows) == {world.bid.pk, world.rival_bid.pk}
    assert rows[world.rival_bid.pk]["pilot"] is None
    fabric = {f["key"]: f for f in rows[world.bid.pk]["figures"]}["fabric_bandwidth"]
    assert (fabric["claimed"], round(fabric["verified"])) == (world.bid.nic_rate_gbps, 198)

    anonymous = buyer_api.get(url + "?labels=anonymous").json()["pilots"]["bids"]
    assert {row["bid"] for row in anonymous} == {None}
    sources = [f["source"] for row in anonymous for f in row["figures"] if f["source"]]
    assert sources and {s["file"] for s in sources} == {None}

    with django_capture_on_commit_callbacks(execute=True):
        put = buyer_api.put(
            f"/api/v1/requests/{world.request.pk}/pilot-scoring/",
            {"use_verified": True},
            format="json",
        )
    assert put.status_code == 200 and put.json() == {"use_verified": True}
    assert buyer_api.get(url).json()["pilots"]["scoring_uses_verified"] is True
    assert (
        nora.put(
            f"/api/v1/requests/{world.request.pk}/pilot-scoring/",
            {"use_verified": False},
            format="json",
        ).status_code
        == 404
    )


def test_invitation_refusals_name_the_field_or_the_state(world, buyer, provider):
    buyer_api = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/pilots/"
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    not_shortlisted = buyer_api.post(url, {"bid": world.bid.pk, **_window()}, format="json")
    assert not_shortlisted.status_code == 409
    assert "shortlisted" in not_shortlisted.json()["detail"]
    by_provider = token_client(provider.user).post(
        url, {"bid": world.bid.pk, **_window()}, format="json"
    )
    assert by_provider.status_code == 404  # only the buyer reaches the request


def test_a_window_too_long_is_refused_naming_the_last_day(world, buyer):
    shortlist_both(world, buyer)
    buyer_api = token_client(buyer.user)
    sent = buyer_api.post(
        f"/api/v1/requests/{world.request.pk}/pilots/",
        {"bid": world.bid.pk, **_window(days=30)},
        format="json",
    )
    assert sent.status_code == 400
    assert sent.json()["errors"] == {"ends_on": ["A pilot lasts at most 14 days."]}


def test_an_unreadable_file_names_its_line_and_is_retried(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    nora = token_client(provider.user)
    name = "perftest/broken_lat_row_missing_percentiles.txt"
    assert (
        _upload(nora, pilot.pk, [name], "gpu-a01", django_capture_on_commit_callbacks).status_code
        == 201
    )
    (row,) = nora.get(f"/api/v1/pilots/{pilot.pk}/evidence/").json()["results"]
    assert (row["state"], row["error_line"]) == ("unreadable", 19)
    assert "6 values for 9 columns" in row["error"]
    with django_capture_on_commit_callbacks(execute=True):
        retried = nora.post(f"/api/v1/pilot-evidence/{row['id']}/retry/")
    assert retried.status_code == 202
    assert retried.json()["download_url"] == f"/pilot-evidence/{row['id']}/download/"
    assert token_client(buyer.user).get(f"/api/v1/pilots/{pilot.pk}/evidence/").status_code == 200
