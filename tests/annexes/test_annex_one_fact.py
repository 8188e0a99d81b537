"""The annex never prints two values for one fact: spares, replacement, notice."""

from __future__ import annotations

import copy
import re
from html import unescape
from typing import Any

import pytest

from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from annexes.document.present import document_for
from annexes.document.render import render_html, snapshot_sha256
from annexes.document.snapshot import contract_snapshot
from bids.services import bid_save_draft, bid_submit, request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from questionnaire import selectors, services
from questionnaire.services import conflicts_keep
from tests.questionnaire.conftest import full_answers

KEPT_REASON = "Two spares are on site; one is reserved for this cluster alone."


def _text(html: str) -> str:
    body = re.sub(r"<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body)))


def _row(text: str, label: str) -> str:
    """What follows a row's label, up to the next 60 characters."""
    at = text.index(label) + len(label)
    return text[at : at + 60].strip()


@pytest.fixture
def conflicting(world: Any, buyer: Any, provider: Any) -> Any:
    """GIVEN the issue's bid: 1 spare node on the bid, '2 spare nodes' in its notes, 72 h of
    maintenance notice in the handoff terms and '7 days' in the questionnaire; awarded."""
    services.question_set_attach_default(capacity_request=world.request, user=buyer.user)
    bid_save_draft(
        bid=world.bid,
        user=provider.user,
        data={
            "spares_count": 1,
            "spares_location": "same_site",
            "notes": "We hold 2 spare nodes on site for this cluster.",
        },
    )
    qs = selectors.current_question_set(capacity_request=world.request)
    answers = full_answers(qs, spares=1) | {"maintenance.notice": "7 days"}
    services.answers_save(bid=world.bid, user=provider.user, raw=answers)
    conflicts_keep(bid=world.bid, user=provider.user, reason=KEPT_REASON)
    bid_submit(bid=world.bid, user=provider.user)
    fixture_from_template(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TEMPLATE
    )
    terms_create(capacity_request=world.request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted", exceptions=[])
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    return world


def _document(snap: dict[str, Any]) -> dict[str, Any]:
    return document_for(snap, sha256=snapshot_sha256(snap), version=1)


def _printed(snap: dict[str, Any]) -> str:
    """The annex as the PDF prints it (the template without the preview's bar)."""
    return _text(render_html(_document(snap)))


def _flagged(snap: dict[str, Any]) -> str:
    """What the preview's conflict box says."""
    html = render_html(_document(snap), preview=True)
    box = re.search(r'id="fact-conflicts".*?</div>', html, flags=re.S)
    return _text(box.group(0)) if box else ""


def test_the_annex_prints_one_value_per_fact_and_the_preview_flags_the_rest(conflicting):
    """WHEN the contract annex is drawn THEN the questionnaire's rows repeat the bid's spare
    count and the agreed notice as their sections print them, naming the section, and never
    print 2 spares or 7 days; the preview (never the PDF) lists both conflicts."""
    snap = contract_snapshot(capacity_request=conflicting.request)
    printed = _printed(snap)

    answers = printed[printed.rindex("Incident responsibilities (questionnaire)") :]
    assert _row(printed, "Spare nodes ").startswith("1 ")  # the bid's own row, section 2
    assert _row(answers, "Spare nodes for this cluster").startswith(
        "1 (see section 2, Spare nodes)"
    )
    assert _row(printed, "Planned-maintenance notice (h)").startswith("72 ")  # section 4
    assert _row(answers, "Notice before planned maintenance").startswith(
        "72 (see section 4, Planned-maintenance notice (h))"
    )
    assert _row(printed, "Node replacement time (h)").startswith("24.0 ")
    assert _row(answers, "Node replacement time").startswith(
        "24.0 (see section 2, Node replacement time (h))"
    )
    for other in ("7 d", "7 days", "One fact, two values"):
        assert other not in printed
    flagged = _flagged(snap)
    assert "Spare nodes: 1 in the bid field 'Spare nodes', but 2 in the bid's notes" in flagged
    assert "Maintenance notice: 72 h in the handoff terms" in flagged and "7 d" in flagged


def test_an_answer_frozen_before_the_binding_is_printed_as_the_bid_states_it(conflicting):
    """GIVEN a revision frozen before its questions were bound (no `bound_to`, 'Spare nodes for
    this cluster' answered 2 beside the bid's 1) THEN the annex still prints 1, once."""
    snap = copy.deepcopy(contract_snapshot(capacity_request=conflicting.request))
    questionnaire = snap["questionnaire"]
    for question in questionnaire["questions"]:
        question.pop("bound_to", None)
    questionnaire["answers"]["spares.count"] = 2
    snap["bid_revision"]["terms"]["notes"] = ""
    assert _row(_printed(snap), "Spare nodes for this cluster").startswith("1 (see section 2")
    assert "but 2 in the questionnaire answer 'Spare nodes for this cluster'" in _flagged(snap)


def test_rendering_never_changes_the_snapshot_an_annex_hashes(conflicting):
    """Issued annexes keep their checksum: the document is drawn from the snapshot, which
    drawing does not rewrite."""
    snap = contract_snapshot(capacity_request=conflicting.request)
    before = snapshot_sha256(snap)
    _printed(snap)
    _flagged(snap)
    assert snapshot_sha256(snap) == before


def test_the_annex_page_flags_the_conflicts_before_the_annex_is_generated(
    conflicting, buyer, provider
):
    from django.urls import reverse

    url = reverse("annexes:list", args=[conflicting.request.pk])
    for role in (buyer, provider):
        html = role.client().get(url).content.decode()
        box = html[html.index('id="annex-contract-conflicts"') :]
        box = _text(box[: box.index("</div>")])
        assert "Spare nodes: 1 in the bid field 'Spare nodes', but 2 in the bid's notes" in box
        assert "Maintenance notice: 72 h in the handoff terms" in box
