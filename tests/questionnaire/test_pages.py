"""The pages: the provider's form shows errors in place, the buyer's matrix highlights misses."""

from __future__ import annotations

import io

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.services import bid_submit
from questionnaire import selectors, services
from questionnaire.forms import input_name
from questionnaire.models import BidQuestionnaire
from tests.factories import BidFactory, InvitationFactory, MembershipFactory, OrganizationFactory
from tests.questionnaire.conftest import full_answers


def _post_data(raw):
    data = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            data[input_name(key)] = value["value"]
            data[f"{input_name(key)}-comment"] = value["comment"]
        else:
            data[input_name(key)] = value
    return data


def test_the_form_shows_a_bad_cell_in_place_then_saves_and_submits(draft, provider):
    client = provider.client()
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    raw = full_answers(selectors.current_question_set(capacity_request=draft.request))
    bad = _post_data(raw | {"detect.S1.response": "15 parsecs"}) | {"save": "1"}
    response = client.post(url, bad)
    html = response.content.decode()
    assert response.status_code == 200
    assert "&#x27;15 parsecs&#x27; is not a duration" in html
    assert 'value="15 parsecs"' in html  # what was typed stays in the cell
    assert not BidQuestionnaire.objects.filter(bid=draft).exists()

    response = client.post(url, _post_data(raw) | {"submit": "1"})
    assert response.status_code == 302
    assert draft.revisions.get().questionnaire["answers"]["coverage.time_zone"]


def test_a_refused_submit_lists_the_missing_answers_on_the_bid_page(draft, provider):
    client = provider.client()
    response = client.post(reverse("bids:bid-submit", args=[draft.pk]), follow=True)
    html = response.content.decode()
    assert "Required answer missing: Responsibility matrix › Detect: owner" in html
    assert 'id="missing-answers"' in html


def test_a_malformed_upload_is_reported_and_changes_nothing(draft, provider):
    client = provider.client()
    upload = io.BytesIO(b'{\n "answers": {\n  "detect.S1.response": "15 parsecs"\n }\n}')
    upload.name = "answers.json"
    response = client.post(
        reverse("questionnaire:answers-import", args=[draft.pk]), {"file": upload}, follow=True
    )
    html = response.content.decode()
    assert "answers.json was not imported" in html
    assert "line 3: answer &#x27;detect.S1.response&#x27;: &#x27;15 parsecs&#x27;" in html
    assert not BidQuestionnaire.objects.filter(bid=draft).exists()


def test_the_buyer_edits_flags_and_targets_from_the_set_page(asked_request, buyer):
    client = buyer.client()
    url = reverse("questionnaire:set-edit", args=[asked_request.pk])
    response = client.post(
        url,
        {
            "action": "flags",
            "keys": ["byos.offered"],
            "required-byos.offered": "on",
            "rule-byos.offered": "yes",
            "target_response_S1": "20 min",
            "required_transport": "IB",
        },
    )
    assert response.status_code == 302
    qs = selectors.current_question_set(capacity_request=asked_request)
    q = qs.questions.get(key="byos.offered")
    assert (q.required, q.rule) == (True, "yes")
    assert qs.target_response_minutes == {"S1": 20} and qs.required_transport == "IB"


def _submit_answered(req, provider_org, clocks):
    bid = BidFactory(request=req, provider=provider_org)
    raw = full_answers(selectors.current_question_set(capacity_request=req)) | clocks
    services.answers_save(bid=bid, user=None, raw=raw)
    bid_submit(bid=bid, user=MembershipFactory(organization=provider_org).user)
    return bid


def _matrix_queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries), response.content.decode()


def test_the_matrix_highlights_slow_clocks_and_costs_the_same_for_more_bids(
    asked_request, buyer, provider
):
    client = buyer.client()
    url = reverse("questionnaire:matrix", args=[asked_request.pk])
    slow = {"detect.S1.response": "8 h"}
    _submit_answered(asked_request, OrganizationFactory(kind="provider", name="Slowpoke"), slow)
    few, html = _matrix_queries(client, url)
    assert "Slowpoke" in html and '<td class="miss">8 h</td>' in html
    for n in range(3):
        org = OrganizationFactory(kind="provider", name=f"Extra {n}")
        InvitationFactory(request=asked_request, provider=org)
        _submit_answered(asked_request, org, {})
    many, html = _matrix_queries(client, url)
    assert "Extra 2" in html
    assert many == few


def test_answers_that_can_no_longer_change_offer_no_form(draft, buyer, provider):
    """A closed request's (or an awarded bid's) answers are frozen: no form that cannot save."""
    from bids.services import request_close

    request_close(capacity_request=draft.request, user=buyer.user, confirmed=True)
    client = provider.client()
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    response = client.get(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse("bids:bid-detail", args=[draft.pk])
    html = response.content.decode()
    assert "no longer takes bids" in html and 'id="questionnaire-form"' not in html
    posted = client.post(url, {"save": "1"})
    assert posted.status_code == 302 and not BidQuestionnaire.objects.filter(bid=draft).exists()


def test_the_matrix_of_a_request_without_a_questionnaire_says_so(world, buyer):
    html = buyer.client().get(reverse("questionnaire:matrix", args=[world.request.pk]))
    text = html.content.decode()
    assert 'id="no-questionnaire"' in text and 'id="answers-matrix"' not in text


def test_a_refused_new_question_points_to_the_form_that_holds_it(asked_request, buyer):
    url = reverse("questionnaire:set-edit", args=[asked_request.pk])
    data = {"action": "add", "key": "Bad Key", "text": "Do you page us?", "answer_type": "text"}
    html = buyer.client().post(url, data).content.decode()
    assert 'The question was not added: <a href="#add-question">' in html
    assert "fix the marked rows" not in html and 'value="Do you page us?"' in html


def test_a_refused_submit_keeps_the_saved_answers_and_marks_the_missing_cell(draft, provider):
    client = provider.client()
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    raw = full_answers(selectors.current_question_set(capacity_request=draft.request))
    del raw["detect.owner"]
    response = client.post(url, _post_data(raw) | {"submit": "1"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Not submitted." in html and "Nothing was saved" not in html
    assert "Required answer missing: Responsibility matrix › Detect: owner" in html
    assert BidQuestionnaire.objects.get(bid=draft).answers["coverage.time_zone"]
    assert not draft.revisions.exists()


def test_a_refused_save_keeps_every_value_typed_on_the_page(asked_request, buyer):
    """One bad cell: the page names it and every other box still holds what was typed."""
    url = reverse("questionnaire:set-edit", args=[asked_request.pk])
    before = selectors.current_question_set(capacity_request=asked_request).version
    data = {
        "action": "flags",
        "keys": ["byos.offered"],
        "required-byos.offered": "on",
        "rule-byos.offered": "yes",
        "target_response_S1": "20 min",
        "target_restore_S2": "soon",
        "required_transport": "RoCE",
    }
    html = buyer.client().post(url, data).content.decode()
    assert selectors.current_question_set(capacity_request=asked_request).version == before
    assert 'name="target_response_S1" value="20 min"' in html
    assert 'name="target_restore_S2" value="soon"' in html
    assert 'name="required_transport" value="RoCE"' in html
    row = html.split('id="q-byos.offered"', 1)[1].split("</tr>", 1)[0]
    assert 'name="required-byos.offered" aria-label' in row and " checked" in row
    assert '<option value="yes" selected>' in row
    assert "cell-error" in html.split('name="target_restore_S2"', 1)[1].split("</td>", 1)[0]


def test_a_refused_submit_lists_every_refusal_and_marks_the_answers_cell(buyer, provider):
    from tests.bids.submit_helpers import (
        LOT_UNACKNOWLEDGED,
        MISSING_ANSWER,
        OWNER_MISSING,
        REGION_MISSING,
        three_problem_draft,
    )

    draft = three_problem_draft(buyer, provider)
    raw = full_answers(selectors.current_question_set(capacity_request=draft.request))
    del raw[MISSING_ANSWER]
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    response = provider.client().post(url, _post_data(raw) | {"submit": "1"})
    assert response.status_code == 200
    assert set(response.context["page_errors"]) == {
        REGION_MISSING,
        LOT_UNACKNOWLEDGED,
        OWNER_MISSING,
    }
    html = response.content.decode()
    assert f'<p class="cell-error" role="alert">{OWNER_MISSING}</p>' in html
    # The region is a term of the bid: the page says where it is changed.
    bid_form = reverse("bids:bid-edit", args=[draft.pk])
    assert f'changed on <a href="{bid_form}">the bid form</a>' in html
    assert not draft.revisions.exists()


def test_a_refused_submit_of_answers_alone_points_at_no_other_form(draft, provider):
    raw = full_answers(selectors.current_question_set(capacity_request=draft.request))
    del raw["detect.owner"]
    url = reverse("questionnaire:answers-edit", args=[draft.pk])
    response = provider.client().post(url, _post_data(raw) | {"submit": "1"})
    assert "Not submitted." in response.content.decode()
    assert 'id="terms-refused"' not in response.content.decode()
