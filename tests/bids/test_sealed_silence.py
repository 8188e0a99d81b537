"""Sealed means silent: before the bids open, nothing its buyer can see, read or try on a sealed
request answers differently because a provider acknowledged, drafted or submitted.

One request is rendered to its buyer (pages, downloads, API answers, and the answers to edits
the buyer may try) before any provider acts, and again after a provider acknowledged the
fixture, saved questionnaire answers and submitted a bid; the two must match once volatile bits
(CSRF tokens, times) are normalised.
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
    bid_save_draft,
    bid_start,
    bid_submit,
    request_invite,
    request_publish,
)
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services import terms_create
from questionnaire.demo import PROFILES, demo_answers
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


ROW_ID = re.compile(r'"(id|pk)":\s*\d+')


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
    return request_publish(capacity_request=req, user=buyer.user)


def _provider_acts(req: CapacityRequest, provider: Any) -> Bid:
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
        bid_submit(bid=bid, user=provider.user)
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
    from bids.services import request_close

    bid = _provider_acts(sealed, provider)
    bid_submit(bid=bid, user=provider.user)
    request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    html = buyer.client().get(reverse("bids:request-detail", args=[sealed.pk])).content.decode()
    assert "Northwind" in html
    page = buyer.client().get(reverse("acceptance:fixture-detail", args=[sealed.pk]))
    assert "1 acknowledgement" in page.content.decode()
