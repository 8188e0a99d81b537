"""Sealed means silent: before the bids open, nothing its buyer can see, read or try on a sealed
request answers differently because a provider acknowledged, drafted or submitted.

One request is rendered to its buyer (pages, downloads, API answers, the audit trail, and the
answers to edits the buyer may try) before any provider acts, and again after a provider
acknowledged the fixture and the buyer's addendum, saved questionnaire answers and submitted a
bid; the two must match once volatile bits (CSRF tokens, times) are normalised. A question
does reach the buyer, who answers it; but the buyer reads the same whichever invitee asked.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core import mail
from django.db import connection, transaction
from django.db.models import Max
from django.urls import reverse
from rest_framework.test import APIClient

from acceptance.services import acknowledgement_submit, fixture_from_template
from bids.choices import RequestStatus
from bids.models import Bid, CapacityRequest
from bids.services import (
    addendum_acknowledge,
    addendum_publish,
    bid_save_draft,
    bid_start,
    question_ask,
    request_close,
    request_invite,
    request_publish,
)
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services import terms_create
from questionnaire.demo import PROFILES, demo_answers, demo_submit
from questionnaire.services import answers_save, question_set_attach_default
from questionnaire.services.question_sets import question_set_update
from tests.factories import CapacityRequestFactory

# Buyer-side pages of one request: tests/bids/test_tenancy.py ROUTES and the apps' tables.
PAGES = [
    ("bids:request-list", False),
    ("bids:request-detail", True),
    ("bids:request-edit", True),
    ("bids:request-close", True),
    ("bids:request-cancel", True),
    ("acceptance:fixture-detail", True),
    ("acceptance:fixture-edit", True),
    ("acceptance:fixture-create", True),
    ("contracts:terms-detail", True),
    ("contracts:terms-edit", True),
    ("questionnaire:set-edit", True),
    ("questionnaire:matrix", True),
    ("evaluation:request-compare", True),
    ("evaluation:request-compare-status", True),
    ("evaluation:request-compare-csv", True),
    ("evaluation:request-compare-xlsx", True),
    ("evaluation:request-weights", True),
    ("annexes:list", True),
    ("annexes:status", True),
    ("notices:list", False),
    ("audit:verify", False),
]
# The buyer's API reads: tests/api/v1/test_tenancy.py OPERATIONS.
API = [
    "/api/v1/requests/",
    "/api/v1/requests/{pk}/",
    "/api/v1/requests/{pk}/bids/",
    "/api/v1/requests/{pk}/comparison/",
    "/api/v1/requests/{pk}/fixture/",
    "/api/v1/requests/{pk}/terms/",
    "/api/v1/requests/{pk}/questionnaire/",
    "/api/v1/requests/{pk}/weights/",
    "/api/v1/requests/{pk}/invitations/",
    "/api/v1/requests/{pk}/annexes/",
    "/api/v1/audit/?object=request:{pk}",
    "/api/v1/notices/",
    "/api/v1/reservations/",
]

VOLATILE = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'), 'name="csrfmiddlewaretoken"'),
    (re.compile(r'"csrfToken": "[^"]+"|data-csrf="[^"]+"'), "csrf"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d{1,2} [A-Z][a-z]{2} \d{4},? (at )?\d\d:\d\d( [A-Z]{3,4})?"), "<time>"),
    (re.compile(r"\b\d+ (second|minute|hour)s?\b"), "<ago>"),
]


ROW_ID = re.compile(r'"(id|pk)":\s*(\d+|"[0-9a-f-]{36}")')
NOTICE_LINK = re.compile(r"/notices/[0-9a-f-]{36}/")


def next_id(model: Any) -> int:
    """The id the next row of `model` will get: PostgreSQL's sequence (which rolled-back rows
    have moved on), else the largest id plus one."""
    table = model._meta.db_table
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            (sequence,) = cursor.fetchone()
            cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
            last, called = cursor.fetchone()
        return int(last) + 1 if called else int(last)
    return (model.objects.aggregate(Max("pk"))["pk__max"] or 0) + 1


def normalised(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _body(response: Any) -> str:
    if getattr(response, "streaming", False):
        content = b"".join(response.streaming_content)
    else:
        content = response.content
    try:
        text = content.decode()
    except UnicodeDecodeError:
        text = f"<{len(content)} bytes>"
    return f"{response.status_code}\n{normalised(text)}"


def _probes(req: CapacityRequest, buyer: Any, next_bid: int) -> dict[str, str]:
    """What the buyer may try: each answer, with the database rolled back after it."""
    client = buyer.client()
    api = APIClient()
    api.force_login(buyer.user)
    out: dict[str, str] = {}
    tries: dict[str, Callable[[], Any]] = {
        "PATCH request allocation": lambda: api.patch(
            f"/api/v1/requests/{req.pk}/", {"max_leaf_switches": 2}, format="json"
        ),
        "PATCH request term": lambda: api.patch(
            f"/api/v1/requests/{req.pk}/",
            {"reservation_end": (req.reservation_end - timedelta(days=1)).isoformat()},
            format="json",
        ),
        "PATCH request title": lambda: api.patch(
            f"/api/v1/requests/{req.pk}/", {"title": "Renamed"}, format="json"
        ),
        "PATCH fixture": lambda: api.patch(
            f"/api/v1/requests/{req.pk}/fixture/",
            {"changes": {"name": "Renamed fixture"}},
            format="json",
        ),
        "fixture from template again": lambda: api.post(
            f"/api/v1/requests/{req.pk}/fixture/",
            {"template": "rank-sum-allreduce"},
            format="json",
        ),
        "PATCH terms": lambda: api.patch(
            f"/api/v1/requests/{req.pk}/terms/", {"s1_response_minutes": 20}, format="json"
        ),
        "questionnaire edit": lambda: question_set_update(
            capacity_request=req,
            user=buyer.user,
            flags={},
            target_response={"S1": "20 min"},
            target_restore={},
            required_transport="",
        ),
        "withdraw the invitation": lambda: api.delete(
            f"/api/v1/requests/{req.pk}/invitations/northwind/"
        ),
        # The id the provider's bid gets (or got): guessing it must tell the buyer nothing.
        "award a guessed bid": lambda: api.post(
            f"/api/v1/requests/{req.pk}/award/",
            {"bid": next_bid, "justification": "It is the cheapest bid we received."},
            format="json",
        ),
        "award a guessed bid (page)": lambda: client.post(
            reverse("evaluation:bid-award", args=[next_bid]),
            {"justification": "It is the cheapest bid we received."},
        ),
    }
    for name, attempt in tries.items():
        with transaction.atomic():
            answer = attempt()
            after = api.get(f"/api/v1/requests/{req.pk}/fixture/")
            questions = api.get(f"/api/v1/requests/{req.pk}/questionnaire/")
            text = _body(answer) if hasattr(answer, "status_code") else f"v{answer.version}"
            # Ids of rows made inside the rolled-back attempt come from sequences that
            # PostgreSQL never rolls back: they differ from one attempt to the next.
            out[name] = ROW_ID.sub(r'"\1":N', "\n".join([text, _body(after), _body(questions)]))
            transaction.set_rollback(True)
    return out


def buyer_view(req: CapacityRequest, buyer: Any, next_bid: int) -> dict[str, str]:
    client = buyer.client()
    api = APIClient()
    api.force_login(buyer.user)
    seen: dict[str, str] = {}
    for name, with_pk in PAGES:
        seen[name] = _body(client.get(reverse(name, args=[req.pk] if with_pk else [])))
    seen["acceptance:fixture-json"] = _body(
        client.get(reverse("acceptance:fixture-json", args=[req.pk, 1]))
    )
    seen["audit:export"] = _body(client.get(reverse("audit:export", args=[f"request:{req.pk}"])))
    for name in ("bids:bid-detail", "questionnaire:answers-edit"):
        seen[name] = _body(client.get(reverse(name, args=[next_bid])))
    seen["bids:revision-detail"] = _body(
        client.get(reverse("bids:revision-detail", args=[next_bid, 1]))
    )
    for path in [*API, f"/api/v1/bids/{next_bid}/", f"/api/v1/bids/{next_bid}/revisions/"]:
        seen[path] = _body(api.get(path.format(pk=req.pk)))
    return seen | _probes(req, buyer, next_bid)


@pytest.fixture
def sealed(buyer: Any, provider: Any, rival_provider: Any) -> CapacityRequest:
    req = CapacityRequestFactory(
        buyer=buyer.org, sealed=True, status=RequestStatus.DRAFT, published_at=None
    )
    request_invite(
        capacity_request=req, user=buyer.user, providers=[provider.org, rival_provider.org]
    )
    fixture_from_template(capacity_request=req, user=buyer.user, template="rank-sum-allreduce")
    terms_create(capacity_request=req, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    question_set_attach_default(capacity_request=req, user=buyer.user)
    req = request_publish(capacity_request=req, user=buyer.user)
    addendum_publish(
        capacity_request=req,
        user=buyer.user,
        title="Site visits",
        text="Site visits are on 3 March.",
        confirmed=True,
    )
    return req


def _provider_acts(req: CapacityRequest, provider: Any) -> Bid:
    addendum_acknowledge(
        addendum=req.addenda.get(number=1), provider=provider.org, user=provider.user
    )
    bid = bid_start(capacity_request=req, provider=provider.org, user=provider.user)
    bid_save_draft(
        bid=bid,
        user=provider.user,
        data={"price_per_gpu_hour": Decimal("2.40"), "region": "eu", "site": "Frankfurt FR2"},
    )
    acknowledgement_submit(
        bid=bid,
        user=provider.user,
        status="accepted",
        provider_owner_name="Nora Provider",
        provider_owner_contact="oncall@northwind.example",
    )
    answers_save(bid=bid, user=provider.user, raw=demo_answers(PROFILES["premium"], bid))
    return bid


def _assert_same(before: dict[str, str], after: dict[str, str]) -> None:
    differ = [
        f"{name}:\n"
        + "\n".join(
            difflib.unified_diff(
                before[name].splitlines(), after[name].splitlines(), lineterm="", n=1
            )
        )
        for name in before
        if before[name] != after[name]
    ]
    assert not differ, "The buyer can tell:\n\n" + "\n\n".join(differ)


def test_a_sealed_request_looks_the_same_to_its_buyer_with_and_without_bids(
    sealed, buyer, provider, django_capture_on_commit_callbacks
):
    next_bid = next_id(Bid)
    with django_capture_on_commit_callbacks(execute=True):
        before = buyer_view(sealed, buyer, next_bid)
        mail.outbox.clear()
        bid = _provider_acts(sealed, provider)
        assert bid.pk == next_bid
        drafted = buyer_view(sealed, buyer, next_bid)
        demo_submit(bid=bid, user=provider.user)  # keeps the demo answers' conflicts
        submitted = buyer_view(sealed, buyer, next_bid)
    assert not [m.subject for m in mail.outbox if buyer.user.email in m.to]
    _assert_same(before, drafted)
    _assert_same(before, submitted)
    # The probes did reach the rules, in words that never mention bids.
    for probe in ("PATCH request allocation", "PATCH request term"):
        assert (
            before[probe].startswith("400")
            and "fixed once the request is published" in (before[probe])
        )
    assert before["PATCH request title"].startswith("200")
    assert before["questionnaire edit"].startswith("v2")
    assert "1 acknowledgement" not in submitted["acceptance:fixture-detail"]


def test_the_buyer_sees_the_same_whichever_page_it_opens_first(sealed, buyer):
    """The comparison above is meaningful: reading the pages changes nothing by itself."""
    assert buyer_view(sealed, buyer, 1) == buyer_view(sealed, buyer, 1)


def test_once_the_bids_open_the_buyer_sees_them(sealed, buyer, provider):
    bid = _provider_acts(sealed, provider)
    question_ask(capacity_request=sealed, provider=provider.org, user=provider.user, text="Rails?")
    demo_submit(bid=bid, user=provider.user)
    api = APIClient()
    api.force_login(buyer.user)
    trail = f"/api/v1/audit/?object=request:{sealed.pk}"
    sealed_trail = api.get(trail).json()["results"]
    request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    html = buyer.client().get(reverse("bids:request-detail", args=[sealed.pk])).content.decode()
    assert "Northwind" in html
    assert "(Northwind)" in html  # the question's asker
    acks = html[html.index('id="addendum-1"') :]
    assert "Who acknowledged is shown when the bids open" not in acks
    assert "not yet" in acks  # the rival has not acknowledged; Northwind has
    page = buyer.client().get(reverse("acceptance:fixture-detail", args=[sealed.pk]))
    assert "1 acknowledgement" in page.content.decode()
    # The provider's entries take their places in the buyer's history, numbered without gaps.
    opened = api.get(trail).json()["results"]
    actions = [(e["action"], e["organization"]) for e in opened]
    assert ("addendum.acknowledge", "northwind") in actions
    assert ("question.ask", "northwind") in actions
    assert not {"addendum.acknowledge", "question.ask"} & {e["action"] for e in sealed_trail}
    assert [e["number"] for e in opened] == list(range(1, len(opened) + 1))
    assert len(opened) > len(sealed_trail)


def test_the_audit_views_show_the_buyer_its_own_numbers_and_no_chain_fields(sealed, buyer):
    """The chain's global sequence and hashes count every party's entries: staff's only."""
    api = APIClient()
    api.force_login(buyer.user)
    entries = api.get(f"/api/v1/audit/?object=request:{sealed.pk}").json()["results"]
    assert entries and [e["number"] for e in entries] == list(range(1, len(entries) + 1))
    assert not {"seq", "prev_sha256", "sha256"} & set(entries[0])
    csv = buyer.client().get(reverse("audit:export", args=[f"request:{sealed.pk}"]))
    header = csv.content.decode().splitlines()[0]
    assert header.startswith("number,") and "sha256" not in header and "seq" not in header


def _buyer_after_question(req: CapacityRequest, buyer: Any, asker: Any) -> dict[str, str]:
    """What the buyer reads (its notices included) after `asker` asked, rolled back after."""
    with transaction.atomic():
        question_ask(capacity_request=req, provider=asker.org, user=asker.user, text="Rails?")
        seen = buyer_view(req, buyer, 1)
        transaction.set_rollback(True)
    # Row ids (a question's, a notice's) come from sequences that rollbacks leave moved on.
    return {
        name: NOTICE_LINK.sub("/notices/N/", ROW_ID.sub(r'"\1":N', text))
        for name, text in seen.items()
    }


def test_a_question_reads_the_same_to_the_buyer_whoever_asked(
    sealed, buyer, provider, rival_provider
):
    by_provider = _buyer_after_question(sealed, buyer, provider)
    by_rival = _buyer_after_question(sealed, buyer, rival_provider)
    _assert_same(by_provider, by_rival)
    # The question did reach the buyer, who must answer it: only not who asked.
    assert "Rails?" in by_provider["bids:request-detail"]
    assert "An invited provider asked question 1" in by_provider["notices:list"]
    assert "asked by" not in by_provider["bids:request-detail"]
