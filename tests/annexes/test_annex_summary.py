"""The comparison summary PDF: every bid ranked, the leading bids detailed, a readable matrix."""

from __future__ import annotations

import logging

import pytest

from annexes.document.comparison_doc import (
    DETAIL_BIDS,
    MATRIX_BIDS_PER_TABLE,
    TABLE_BIDS,
    _side_by_side,
)
from annexes.models import AnnexJobStatus, AnnexKind
from bids.services import bid_submit
from evaluation.services import request_score
from tests.annexes.test_annex_render import _generate, _text
from tests.factories import BidFactory, InvitationFactory, OrganizationFactory, UserFactory

pytestmark = pytest.mark.django_db


def _summary_text(request, user, capture) -> str:
    request_score(capacity_request=request)
    job = _generate(request, user, AnnexKind.COMPARISON, capture=capture)
    assert job.status == AnnexJobStatus.DONE, job.error
    return " ".join(_text(job.annex).split())


def test_two_bids_print_what_they_share_once_and_where_they_differ_side_by_side(
    awarded, buyer, django_capture_on_commit_callbacks
):
    text = _summary_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    names = [awarded.bid.provider.name, awarded.rival_bid.provider.name]
    matrix = text.split("Side-by-side matrix")[-1]
    assert "The same in every bid" in matrix and "Where the bids differ" in matrix
    assert all(name in matrix for name in names)
    # Scores are printed by the ranking and the rationale, not a third time in the matrix.
    assert "Wins in random weight draws" not in text
    rationale = text.split("Why each bid scored as it did")[-1].split("Side-by-side matrix")[0]
    assert f"{names[0]}, revision 1: rank" in rationale or f"{names[1]}, revision 1: rank" in (
        rationale
    )


def test_many_bids_are_all_ranked_and_the_leading_ones_detailed_without_css_warnings(
    world, buyer, django_capture_on_commit_callbacks, caplog
):
    count = TABLE_BIDS + 3
    for i in range(count - 2):  # the world holds two bids already
        org = OrganizationFactory(name=f"Bidder {i:02d}", slug=f"bidder-{i}", kind="provider")
        user = UserFactory(username=f"bidder{i}")
        org.memberships.create(user=user, role="admin")
        InvitationFactory(request=world.request, provider=org)
        bid = BidFactory(request=world.request, provider=org, price_per_gpu_hour=f"2.{i:02d}")
        bid_submit(bid=bid, user=user)
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        text = _summary_text(world.request, buyer.user, django_capture_on_commit_callbacks)
    assert not [r for r in caplog.records if r.name.startswith("weasyprint")], caplog.text
    assert f"The other {count - TABLE_BIDS} bids" in text
    assert f"detail the {DETAIL_BIDS} highest-ranked" in text
    # The detailed bids sit side by side in one table a page wide.
    assert DETAIL_BIDS <= MATRIX_BIDS_PER_TABLE
    assert "Where the bids differ" in text and "Bids 1–" not in text
    rationale = text.split("Why each bid scored as it did")[-1].split("Side-by-side matrix")[0]
    assert rationale.count(", revision 1: ") == DETAIL_BIDS


def test_more_bids_than_a_page_holds_side_by_side_go_in_tables_of_six():
    names = [f"Bid {c}" for c in "ABCDEFGHI"]
    groups = [
        {
            "title": "Price",
            "rows": [
                {"label": "List price", "cells": [{"display": str(i)} for i in range(9)]},
                {"label": "Fees", "cells": [{"display": "0"}] * 9},
            ],
        }
    ]
    blocks = _side_by_side(groups, names)
    assert blocks[0]["heading"] == "The same in every bid"
    assert [b["heading"] for b in blocks[1:]] == [
        f"Bids 1–{MATRIX_BIDS_PER_TABLE} of 9",
        f"Bids {MATRIX_BIDS_PER_TABLE + 1}–9 of 9",
    ]
    assert blocks[2]["head"] == ["", *names[MATRIX_BIDS_PER_TABLE:]]
