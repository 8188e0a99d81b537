"""Answers: validated on save, required before submit, frozen with the revision, diffable."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from bids.models import BidRevision
from bids.services import bid_submit
from questionnaire import selectors, services
from questionnaire.models import BidQuestionnaire
from tests.factories import BidFactory, CapacityRequestFactory
from tests.questionnaire.conftest import full_answers


def _answers(bid):
    return BidQuestionnaire.objects.get(bid=bid).answers


def test_saving_validates_every_answer_and_keeps_nothing_on_error(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs) | {"detect.S1.response": "15 parsecs", "spares.count": "two"}
    with pytest.raises(ValidationError) as exc:
        services.answers_save(bid=draft, user=provider.user, raw=raw)
    errors = exc.value.message_dict
    assert set(errors) == {"detect.S1.response", "spares.count"}
    assert "'15 parsecs' is not a duration" in errors["detect.S1.response"][0]
    assert not BidQuestionnaire.objects.filter(bid=draft).exists()


def test_a_submit_with_required_answers_missing_is_refused_and_lists_them(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs)
    del raw["detect.owner"], raw["coverage.time_zone"]
    services.answers_save(bid=draft, user=provider.user, raw=raw)
    with pytest.raises(ValidationError) as exc:
        bid_submit(bid=draft, user=provider.user)
    assert exc.value.messages == [
        "Required answer missing: Responsibility matrix › Detect: owner",
        "Required answer missing: Coverage and escalation › Time zone of the support team",
    ]
    assert not BidRevision.objects.filter(bid=draft).exists()


def test_a_request_without_a_questionnaire_asks_nothing(world):
    assert world.bid.revisions.get().questionnaire == {}


def test_submit_freezes_answers_and_later_edits_leave_the_revision_alone(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs)
    services.answers_save(bid=draft, user=provider.user, raw=raw)
    first = bid_submit(bid=draft, user=provider.user)
    assert first.questionnaire["answers"]["detect.S1.response"] == 30
    assert first.questionnaire["question_set"]["version"] == 1
    assert first.questionnaire["missing_required"] == []

    services.answers_save(bid=draft, user=provider.user, raw=raw | {"detect.S1.response": "2 h"})
    draft.refresh_from_db()
    assert draft.has_unsubmitted_changes  # changed answers make a new revision possible
    second = bid_submit(bid=draft, user=provider.user)
    first.refresh_from_db()
    assert first.questionnaire["answers"]["detect.S1.response"] == 30
    assert second.questionnaire["answers"]["detect.S1.response"] == 120

    changes = selectors.revision_diff(older=first, newer=second)
    assert [(c.key, c.old, c.new, c.kind) for c in changes] == [
        ("detect.S1.response", "30 min", "2 h", "changed")
    ]


def test_a_deal_breaker_answered_the_wrong_way_reaches_scoring(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs) | {
        "diagnostics.baseline_rerun": {"value": "no", "comment": "we trust the node"},
        "diagnostics.shared": {"value": "yes", "comment": ""},
        "path.transport": "Socket",
    }
    qs.required_transport = "IB"
    qs.save()
    services.answers_save(bid=draft, user=provider.user, raw=raw)
    revision = bid_submit(bid=draft, user=provider.user)
    facts = selectors.scoring_inputs_for_revisions([revision])[revision.pk]
    assert facts.deal_breaker_failures == (
        "Health checks and diagnostics › Before declaring a node ready, do you rerun NCCL "
        "against the hand-over baseline?: answered No — we trust the node (must be yes)",
    )
    assert facts.missing_required_answers == ()
    assert facts.evidence_shared is True
    assert facts.response_minutes == {"S1": 30.0, "S2": 30.0, "S3": 30.0}
    assert "needs IB" in (facts.execution_path_mismatch or "")


def test_scoring_reads_each_clock_with_the_matrix_row_that_gave_it(draft, provider):
    """First response: the earliest step that answers it; restore: the slowest step."""
    qs = selectors.current_question_set(capacity_request=draft.request)
    raw = full_answers(qs) | {
        "detect.S1.response": "40 min",
        "isolate.S1.response": "20 min",
        "revalidate.S1.restore": "6 h",
    }
    services.answers_save(bid=draft, user=provider.user, raw=raw)
    revision = bid_submit(bid=draft, user=provider.user)
    facts = selectors.scoring_inputs_for_revisions([revision])[revision.pk]
    assert facts.response_minutes == {"S1": 40.0, "S2": 30.0, "S3": 30.0}
    assert facts.restore_minutes == {"S1": 360.0, "S2": 30.0, "S3": 30.0}
    assert facts.clock_rows is not None
    assert facts.clock_rows["S1.response"] == "Detect"
    assert facts.clock_rows["S1.restore"] == "Revalidate the fabric"


def test_scoring_inputs_cost_one_query_for_any_number_of_revisions(
    draft, world, provider, django_assert_num_queries
):
    services.answers_save(
        bid=draft,
        user=provider.user,
        raw=full_answers(selectors.current_question_set(capacity_request=draft.request)),
    )
    revisions = [bid_submit(bid=draft, user=provider.user), *BidRevision.objects.all()]
    with django_assert_num_queries(1):
        facts = selectors.scoring_inputs_for_revisions(revisions)
    assert len(facts) == len({r.pk for r in revisions})
    assert facts[world.bid.revisions.get().pk].response_minutes is None


def test_json_export_round_trips(draft, provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs))
    exported = json.dumps(services.answers_export(bid=draft))
    other = BidFactory(request=CapacityRequestFactory(), provider=provider.org)
    services.question_set_attach_default(capacity_request=other.request, user=None)
    services.answers_import_json(bid=other, user=provider.user, text=exported)
    assert _answers(other) == _answers(draft)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "answers": {\n    "detect.owner": provider\n  }\n}', "line 3: not valid JSON"),
        ("[1, 2]", "line 1: expected an object"),
        ('{\n  "schema": "clusterbid.questionnaire-answers/1",\n  "answers": []\n}',
         'line 3: "answers": expected an object'),
        ('{"schema": "something/9", "answers": {}}', "unknown schema 'something/9'"),
        ('{\n "answers": {\n  "detect.owner": "provider",\n'
         '  "detect.S1.response": "15 parsecs"\n }\n}',
         "line 4: answer 'detect.S1.response': '15 parsecs' is not a duration"),
        ('{"answers": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
        ('{"answers": ' + "[" * 800 + "]" * 800 + "}", "nested 801 levels deep"),
        ('{"answers": {"detect.owner": ' + "9" * 5000 + "}}", "a number is too long to read"),
    ],
)  # fmt: skip
def test_a_malformed_import_names_the_problem_and_changes_nothing(draft, provider, text, message):
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs))
    before = _answers(draft)
    with pytest.raises(ValidationError) as exc:
        services.answers_import_json(bid=draft, user=provider.user, text=text)
    assert any(m.startswith(message) for m in exc.value.messages), exc.value.messages
    assert _answers(draft) == before


def test_import_skips_questions_this_request_does_not_ask(draft, provider):
    text = json.dumps({"answers": {"detect.owner": "shared", "old.question": "x"}})
    row, skipped = services.answers_import_json(bid=draft, user=provider.user, text=text)
    assert row.answers == {"detect.owner": "shared"} and skipped == ["old.question"]


def test_a_provider_starts_from_its_own_previous_bid_only(draft, provider, rival_provider):
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs))
    req = CapacityRequestFactory()
    services.question_set_attach_default(capacity_request=req, user=None)
    fresh = BidFactory(request=req, provider=provider.org)
    count = services.answers_copy_from_bid(bid=fresh, source=draft, user=provider.user)
    assert count == len(_answers(draft)) and _answers(fresh) == _answers(draft)
    rivals = BidFactory(request=req, provider=rival_provider.org)
    with pytest.raises(ValidationError, match="your own bids"):
        services.answers_copy_from_bid(bid=rivals, source=draft, user=rival_provider.user)


def test_targets_come_from_the_handoff_terms_when_the_request_has_them(draft):
    from contracts.models import HandoffTerms

    qs = selectors.current_question_set(capacity_request=draft.request)
    assert selectors.targets_for(capacity_request=draft.request, question_set=qs)["source"] == (
        "questionnaire targets"
    )
    terms = HandoffTerms.objects.create(request=draft.request)
    targets = selectors.targets_for(capacity_request=draft.request, question_set=qs)
    assert targets["source"] == "handoff terms v1"
    assert targets["response"]["S1"] == terms.s1_response_minutes


def test_the_acceptance_fixture_names_the_transport_bids_must_offer(draft, buyer):
    from acceptance.models import Fixture, FixtureVersion

    qs = selectors.current_question_set(capacity_request=draft.request)
    qs.required_transport = "RoCE"
    qs.save()
    assert selectors.required_transport(capacity_request=draft.request, question_set=qs) == (
        "RoCE",
        "buyer's questionnaire",
    )
    fixture = Fixture.objects.create(request=draft.request, created_by=buyer.user)
    FixtureVersion.objects.create(
        fixture=fixture,
        number=2,
        template="t",
        spec={"runtime": {"transport": "IB"}},
        spec_sha256="0" * 64,
        manifest={},
    )
    assert selectors.required_transport(capacity_request=draft.request, question_set=qs) == (
        "IB",
        "acceptance fixture v2",
    )
