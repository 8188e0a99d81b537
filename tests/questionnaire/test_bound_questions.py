"""One fact, one field: the questions the bid form already asks are answered by its fields."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from bids.models import BidTerms
from bids.services import bid_save_draft, bid_submit
from questionnaire import selectors, services
from questionnaire.defaults import default_questions
from questionnaire.facts import BINDINGS, DEFAULT_BOUND, bound_answers
from questionnaire.models import BidQuestionnaire
from tests.questionnaire.conftest import full_answers
from tests.questionnaire.test_pages import _post_data


def test_every_overlapping_default_question_is_bound_to_its_bid_field():
    bound = {s.key: s.bound_to for s in default_questions() if s.bound_to}
    assert (
        bound
        == DEFAULT_BOUND
        == {
            "spares.count": "spares_count",
            "replacement.time": "node_replacement_hours",
            "coverage.hours": "coverage",
            "spares.domain": "spares_location",
            "health.auto_drain": "health_checks_auto_drain",
        }
    )
    for binding in BINDINGS.values():  # the label the form links to is the bid form's own
        assert (
            binding.label
            == BidTerms._meta.get_field(binding.field).verbose_name[:1].upper()
            + (BidTerms._meta.get_field(binding.field).verbose_name[1:])
        )


def test_the_bid_fields_convert_to_the_questions_answer_types():
    specs = [s for s in default_questions() if s.bound_to]
    terms = {
        "spares_count": 2,
        "node_replacement_hours": "1.5",
        "coverage": "24x7",
        "spares_location": "remote",
        "health_checks_auto_drain": False,
    }
    assert bound_answers(specs, terms) == {
        "coverage.hours": "24x7",
        "spares.count": 2,
        "spares.domain": "other_site",
        "replacement.time": 90,
        "health.auto_drain": {"value": "no", "comment": ""},
    }


def test_the_form_shows_the_bid_value_read_only_with_a_link_to_the_bid_field(draft, provider):
    bid_save_draft(
        bid=draft, user=provider.user, data={"spares_count": 2, "spares_location": "same_site"}
    )
    html = provider.client().get(reverse("questionnaire:answers-edit", args=[draft.pk]))
    page = html.content.decode()
    edit = reverse("bids:bid-edit", args=[draft.pk])
    assert "Set on the bid: <strong>Spare nodes = 2</strong>" in page
    assert f'<a href="{edit}#id_spares_count">edit on the bid</a>' in page
    assert 'name="q-spares.count"' not in page  # nothing to type, so nothing to disagree
    assert 'id="id_spares_count"' in provider.client().get(edit).content.decode()  # the anchor


def test_submit_freezes_the_bid_fields_value_and_ignores_an_older_stored_answer(draft, provider):
    """GIVEN answers stored before the question was bound (spares.count = 5) and a bid that
    says 1 THEN the submit needs no questionnaire answer for it and freezes 1."""
    bid_save_draft(
        bid=draft,
        user=provider.user,
        data={"spares_count": 1, "spares_location": "same_site", "node_replacement_hours": 4},
    )
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs, spares=1))
    BidQuestionnaire.objects.filter(bid=draft).update(
        answers={**BidQuestionnaire.objects.get(bid=draft).answers, "spares.count": 5}
    )
    revision = bid_submit(bid=draft, user=provider.user)
    answers = revision.questionnaire["answers"]
    assert answers["spares.count"] == 1 and answers["replacement.time"] == 240
    assert answers["spares.domain"] == "same_site"
    questions = {q["key"]: q for q in revision.questionnaire["questions"]}
    assert questions["spares.count"]["bound_to"] == "spares_count"
    assert "bound_to" not in questions["coverage.time_zone"]  # unbound rows keep their shape
    assert "spares.count" not in revision.questionnaire["missing_required"]


def test_an_answer_that_differs_from_the_bid_field_is_refused_naming_it(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs) | {"spares.count": "3", "coverage.hours": draft.coverage}
    with pytest.raises(ValidationError) as exc:
        services.answers_save(bid=draft, user=provider.user, raw=raw)
    assert exc.value.message_dict == {
        "spares.count": [
            f"This answer is set on the bid (Spare nodes = {draft.spares_count}); "
            "change it on the bid."
        ]
    }
    # The same value as the field is no disagreement: an old export still imports.
    services.answers_save(bid=draft, user=provider.user, raw=raw | {"spares.count": "0"})
    assert "spares.count" not in BidQuestionnaire.objects.get(bid=draft).answers


def test_a_deal_breaker_on_a_bound_question_reads_the_bid_field(draft, buyer, provider):
    services.question_set_update(
        capacity_request=draft.request,
        user=buyer.user,
        flags={"spares.count": {"required": True, "rule": "min", "rule_value": "2"}},
        target_response={},
        target_restore={},
        required_transport="",
    )
    state = selectors.draft_state(bid=draft)
    assert state.failures == ["Spares and partial capacity › Spare nodes for this cluster: "
                              "answered 0 (must be ≥ 2)"]  # fmt: skip
    bid_save_draft(
        bid=draft, user=provider.user, data={"spares_count": 2, "spares_location": "same_site"}
    )
    assert selectors.draft_state(bid=draft).failures == []


def test_the_bid_page_flags_a_conflict_before_submit(draft, provider):
    """GIVEN a bid of 1 spare node whose notes promise '2 spare nodes' THEN the provider's bid
    page flags it, with both values and where each is stated, before anything is submitted."""
    bid_save_draft(
        bid=draft,
        user=provider.user,
        data={
            "spares_count": 1,
            "spares_location": "same_site",
            "notes": "Two hot spares on site; 2 spare nodes reserved for this cluster.",
        },
    )
    page = provider.client().get(reverse("bids:bid-detail", args=[draft.pk])).content.decode()
    assert draft.latest_revision_number == 0
    assert 'id="fact-conflicts"' in page and "resolve before you submit" in page
    assert (
        "Spare nodes: 1 in the bid field &#x27;Spare nodes&#x27;, but 2 in the bid&#x27;s notes"
        in page
    )


def test_the_import_size_limit_reads_in_kib(draft, provider):
    with pytest.raises(ValidationError) as exc:
        services.answers_import_json(bid=draft, user=provider.user, text="x" * (600 * 1024))
    assert exc.value.messages == ["The file is larger than 512 KiB."]


def test_posting_the_page_with_bound_questions_saves_and_submits(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    response = provider.client().post(url, _post_data(full_answers(qs)) | {"submit": "1"})
    assert response.status_code == 302
    assert draft.revisions.get().questionnaire["answers"]["coverage.hours"] == draft.coverage


def test_the_api_takes_the_field_and_its_answer_together_and_names_a_disagreement(draft, provider):
    from tests.api.v1.conftest import token_client

    client = token_client(provider.user)
    url = f"/api/v1/bids/{draft.pk}/"
    terms = {"spares_count": 3, "spares_location": "same_site"}
    agreed = client.patch(url, {**terms, "answers": {"spares.count": 3}}, format="json")
    assert agreed.status_code == 200, agreed.json()
    refused = client.patch(url, {**terms, "answers": {"spares.count": 5}}, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {
        "answers.spares.count": [
            "This answer is set on the bid (Spare nodes = 3); change it on the bid."
        ]
    }


def test_the_buyers_editor_says_which_questions_the_bid_answers(draft, buyer):
    page = buyer.client().get(reverse("questionnaire:set-edit", args=[draft.request.pk]))
    html = page.content.decode()
    row = html[html.index('id="q-spares.count"') :]
    row = row[: row.index("</tr>")]
    assert "Answered by the bid's “Spare nodes” field" in row
    unbound = html[html.index('id="q-spares.reservation"') :]
    assert "Answered by the bid" not in unbound[: unbound.index("</tr>")]


def test_the_buyer_sees_the_submitted_revisions_conflicts_on_the_bid_page(world, buyer, provider):
    bid_save_draft(
        bid=world.bid,
        user=provider.user,
        data={"spares_count": 1, "spares_location": "same_site", "notes": "3 spare nodes."},
    )
    services.conflicts_keep(
        bid=world.bid, user=provider.user, reason="Three sit on site; one is this cluster's own."
    )
    bid_submit(bid=world.bid, user=provider.user)
    html = buyer.client().get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    box = html[html.index('id="fact-conflicts"') :]
    box = box[: box.index("</div>")]
    assert "This bid states a fact twice, with two values" in box
    assert "but 3 in the bid&#x27;s notes" in box and "resolve before you submit" not in box
