"""A notice is addressed by a random public id, never by its row id: row ids come from one
counter for everyone, so the gap between a buyer's two notices would count the notices other
organisations got in between (while bids are sealed, a measure of the providers' activity)."""

from __future__ import annotations

import importlib
import re
import uuid
from typing import Any

import pytest
from django.urls import reverse

from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members
from tests.api.v1.conftest import token_client

pytestmark = pytest.mark.django_db

NUMBERED_LINK = re.compile(r"/notices/\d+/")


def _notify(org: Any, key: str) -> Notice:
    notify_members(
        event=Event.QUESTION_ASKED,
        organization=org,
        subject=f"About {key}",
        body="Body.",
        path="/",
        key=key,
    )
    return Notice.objects.filter(key=key).order_by("pk").first()


@pytest.fixture
def around_others(buyer, provider, rival_provider) -> tuple[Notice, Notice]:
    """The buyer's two notices, with one for each of two other organisations in between."""
    first = _notify(buyer.org, "mine-1")
    others = [_notify(provider.org, "theirs-1"), _notify(rival_provider.org, "theirs-2")]
    second = _notify(buyer.org, "mine-2")
    assert first.pk < others[0].pk < others[1].pk < second.pk  # one counter for all
    return first, second


def test_what_the_buyer_sees_carries_no_counter_and_no_gap(buyer, around_others):
    first, second = around_others
    html = buyer.client().get(reverse("notices:list")).content.decode()
    assert f"/notices/{first.public_id}/" in html and f"/notices/{second.public_id}/" in html
    assert not NUMBERED_LINK.search(html)

    listed = token_client(buyer.user).get("/api/v1/notices/").json()["results"]
    assert [item["id"] for item in listed] == [str(second.public_id), str(first.public_id)]
    for item in listed:
        uuid.UUID(item["id"])
        numbers = {k: v for k, v in item.items() if isinstance(v, int) and not isinstance(v, bool)}
        assert numbers == {}, numbers
        assert not NUMBERED_LINK.search(str(item))
    # Two fresh ids tell nothing of what came between them.
    assert first.public_id != second.public_id


def test_the_old_numbered_addresses_answer_404(buyer, around_others):
    first, _ = around_others
    assert buyer.client().get(f"/notices/{first.pk}/").status_code == 404
    answer = token_client(buyer.user).post(f"/api/v1/notices/{first.pk}/read/")
    assert answer.status_code == 404
    first.refresh_from_db()
    assert first.read_at is None


@pytest.mark.parametrize("role", ["provider", "rival_provider", "outsider"])
def test_others_cannot_open_or_mark_the_buyers_notice(role, request, around_others):
    first, _ = around_others
    other = request.getfixturevalue(role)
    assert other.client().get(reverse("notices:open", args=[first.public_id])).status_code == 404
    answer = token_client(other.user).post(f"/api/v1/notices/{first.public_id}/read/")
    assert answer.status_code == 404
    first.refresh_from_db()
    assert first.read_at is None


def test_the_buyer_opens_and_marks_its_notice_by_its_public_id(buyer, around_others):
    first, second = around_others
    response = buyer.client().get(reverse("notices:open", args=[first.public_id]))
    assert response.status_code == 302 and response["Location"] == "/"
    answer = token_client(buyer.user).post(f"/api/v1/notices/{second.public_id}/read/")
    assert answer.status_code == 200 and answer.json()["id"] == str(second.public_id)
    assert not Notice.objects.filter(pk__in=[first.pk, second.pk], read_at__isnull=True).exists()


def test_the_migration_gives_every_stored_notice_its_own_public_id(around_others):
    from django.apps import apps

    migration = importlib.import_module("notices.migrations.0003_notice_public_id")
    before = dict(Notice.objects.values_list("pk", "public_id"))
    migration.fill_public_ids(apps, None)
    after = dict(Notice.objects.values_list("pk", "public_id"))
    assert after.keys() == before.keys() and len(set(after.values())) == len(after)
    assert all(after[pk] != before[pk] for pk in after)  # filled afresh, row by row
