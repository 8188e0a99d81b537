"""The comparison's pilot section while the buyer anonymises the bids: each bid goes by its
label, and nothing on the section, nor where its buttons lead, names a provider (the pilot's
own page does, so the section does not link it until names are shown)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.urls import reverse

from evaluation.anonymise import anonymous_labels
from tests.acceptance.pilot.helpers import invite, run_pilot, shortlist_both

pytestmark = pytest.mark.django_db

NAMES = ("Northwind", "Rival Cloud", "nora", "rita")


def _section(html: str) -> str:
    start = html.index('id="pilots"')
    return html[start : html.index("</section>", start)]


def _messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_anonymised_pilot_section_names_and_links_no_provider(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    run_pilot(
        pilot,
        provider.user,
        django_capture_on_commit_callbacks,
        [("perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt", "gpu-a01")],
    )
    labels = anonymous_labels(capacity_request=world.request)
    client = buyer.client()
    compare = reverse("evaluation:request-compare", args=[world.request.pk])
    pilot_page = reverse("pilots:detail", args=[pilot.pk])

    named = _section(client.get(compare).content.decode())
    assert pilot_page in named and "Northwind" in named

    hidden = _section(client.get(compare + "?labels=anonymous").content.decode())
    assert labels[world.bid.pk] in hidden and labels[world.rival_bid.pk] in hidden
    assert "198" in hidden  # the verified figure is still there, under the label
    assert pilot_page not in hidden and "/pilot-evidence/" not in hidden
    for name in NAMES:
        assert name not in hidden, name

    # Inviting the other bid from the anonymised page comes back to it, naming the label.
    start = date.today() + timedelta(days=1)
    prefix = f"pilot-{world.rival_bid.pk}"
    invited = client.post(
        reverse("evaluation:request-pilot-invite", args=[world.request.pk, world.rival_bid.pk])
        + "?labels=anonymous",
        {f"{prefix}-starts_on": start, f"{prefix}-ends_on": start + timedelta(days=1)},
        follow=True,
    )
    assert invited.redirect_chain[-1][0] == compare + "?labels=anonymous#pilots"
    said = " ".join(_messages(invited))
    assert f"{labels[world.rival_bid.pk]} is invited to a pilot" in said
    page = invited.content.decode()
    for name in NAMES:
        assert name not in _section(page) and name not in said, name

    rescored = client.post(
        reverse("evaluation:request-pilot-scoring", args=[world.request.pk]) + "?labels=anonymous",
        {"use_verified": "on"},
    )
    assert rescored["Location"] == compare + "?labels=anonymous#pilots"
    # The section says what scoring now uses, and the box stays ticked: the page reads the
    # choice once, with the comparison's live inputs, and both show it.
    after = _section(client.get(compare).content.decode())
    assert "Scoring uses the verified figures" in after
    assert 'name="use_verified" id="id_use_verified" checked' in after
