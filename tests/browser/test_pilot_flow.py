"""A pilot before the award, in Chromium: the buyer invites both shortlisted bids from the
comparison page, each provider uploads its pilot's evidence on its own pilot page (and cannot
open the other's), and the buyer sees the verified figures beside the claimed ones on the
comparison, then has scoring use them. The pilot and comparison pages fit a 390 px phone."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Pilot
from tests.acceptance.burnin.helpers import DATA, media_root
from tests.acceptance.pilot.helpers import PILOT_SET, shortlist_both
from tests.evaluation.pages.test_phone_layout import PHONE, _fits

__all__ = ["media_root"]  # autouse: uploads go to a temporary MEDIA_ROOT
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The rival's cluster: a full-rate NDR link where Northwind's second HCA runs at half rate.
RIVAL_SET = [
    (
        name.replace(
            "ib_write_bw_two_hcas_mlx5_1_at_198gbits", "ib_write_bw_report_gbits_1qp_64k_ndr_client"
        ),
        node,
    )
    for name, node in PILOT_SET
]


def _invite(page: Any, provider: str, instructions: str) -> None:
    block = page.locator(f"#pilots .pilot-bid[data-bid='{provider}']")
    block.get_by_label("The application run").fill(instructions)
    block.get_by_role("button", name="Invite to a pilot").click()
    page.wait_for_selector(f"text={provider} is invited to a pilot")


def _upload(page: Any, files: list[tuple[str, str]]) -> None:
    for node in ("", "gpu-a01"):
        page.set_input_files("#id_file", [str(DATA / name) for name, n in files if n == node])
        page.fill("#id_node", node)
        page.click("#upload button[type=submit]")
        page.wait_for_selector("text=parsing has started")


def _figure(page: Any, scope: str, key: str) -> str:
    return page.locator(f"{scope} tr[data-figure='{key}'] td.verified strong").inner_text()


def test_a_pilot_for_two_shortlisted_bids_shows_verified_figures_on_the_comparison(
    live_server, new_page, login_as, world, buyer, provider, rival_provider
):
    shortlist_both(world, buyer)
    compare_url = live_server.url + reverse("evaluation:request-compare", args=[world.request.pk])

    alice = login_as(new_page(), "alice")
    alice.goto(compare_url)
    # A window longer than a pilot may last is refused, and what was typed stays.
    block = alice.locator("#pilots .pilot-bid[data-bid='Northwind']")
    block.get_by_label("The application run").fill("python train.py --steps 200")
    block.get_by_label("Last day").fill("2099-12-31")
    block.get_by_role("button", name="Invite to a pilot").click()
    alice.wait_for_selector("#pilots .error >> text=A pilot lasts at most 14 days.")
    block = alice.locator("#pilots .pilot-bid[data-bid='Northwind']")
    assert block.get_by_label("The application run").input_value() == "python train.py --steps 200"
    alice.goto(compare_url)
    _invite(alice, "Northwind", "python train.py --steps 200 on all 16 GPUs")
    _invite(alice, "Rival Cloud", "python train.py --steps 200 on all 16 GPUs")
    mine = Pilot.objects.get(bid=world.bid)
    theirs = Pilot.objects.get(bid=world.rival_bid)

    nora = login_as(new_page(), "nora")
    nora.goto(live_server.url + reverse("notices:list"))
    nora.get_by_text("invites your bid").first.click()
    nora.wait_for_url(f"**/pilots/{mine.pk}/")
    assert "python train.py --steps 200" in nora.inner_text("#pilot-terms")
    _upload(nora, PILOT_SET)
    assert set(nora.locator("#evidence td.state .status").all_inner_texts()) == {"Parsed"}
    assert _figure(nora, "#verified", "fabric_bandwidth").startswith("198")
    # Northwind sees its own pilot only: the rival's is not found.
    nora.goto(live_server.url + reverse("pilots:list"))
    assert nora.locator("#pilot-list tbody tr").count() == 1
    missing = nora.goto(live_server.url + reverse("pilots:detail", args=[theirs.pk]))
    assert missing is not None and missing.status == 404

    rita = login_as(new_page(), "rita")
    rita.goto(live_server.url + reverse("pilots:detail", args=[theirs.pk]))
    _upload(rita, RIVAL_SET)
    assert not _figure(rita, "#verified", "fabric_bandwidth").startswith("198")
    assert rita.goto(live_server.url + reverse("pilots:detail", args=[mine.pk])).status == 404

    alice.goto(compare_url)
    section = alice.locator("#pilots")
    for provider_name, pilot in (("Northwind", mine), ("Rival Cloud", theirs)):
        scope = f"#pilots .pilot-bid[data-bid='{provider_name}']"
        assert alice.locator(f"{scope} a[href$='/pilots/{pilot.pk}/']").count() == 1
        for key in ("bus_bandwidth", "nvlink_bandwidth", "fabric_bandwidth", "fabric_p99_latency"):
            assert _figure(alice, scope, key), (provider_name, key)
        claimed = alice.locator(f"{scope} tr[data-figure='fabric_bandwidth'] td.claimed")
        assert claimed.inner_text() == "claimed 400 Gb/s"
    northwind = "#pilots .pilot-bid[data-bid='Northwind']"
    assert _figure(alice, northwind, "fabric_bandwidth").startswith("198")
    assert (
        alice.locator(f"{northwind} tr[data-figure='fabric_bandwidth'] td.share").inner_text()
        == "50 %"
    )
    assert "verified" in section.locator(".tag-verified").first.inner_text()

    section.get_by_label(
        "Score on the pilots' verified figures where a pilot verified them"
    ).check()
    section.get_by_role("button", name="Save and re-score").click()
    alice.wait_for_selector("text=Scoring now uses the pilots' verified figures")
    assert "uses the verified figures" in alice.inner_text("#pilot-scoring-state")

    phone = login_as(new_page(viewport=PHONE, is_mobile=True, has_touch=True), "alice")
    _fits(phone, compare_url)
    _fits(phone, live_server.url + reverse("pilots:detail", args=[mine.pk]))
