"""The notices pages: the list with its unread marks, the header's count, opening a notice,
mark all read, and the preferences table."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from notices.choices import Event
from notices.models import Notice, NoticePreference
from notices.services import notify_members
from orgs.middleware import SESSION_KEY
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db


def _send(org, n=1, **overrides):
    for i in range(n):
        notify_members(
            **{
                "event": Event.INVITATION,
                "organization": org,
                "subject": f"Notice {i}",
                "body": f"Body {i}",
                "path": "/requests/",
                "key": f"page-test:{org.pk}:{i}",
            }
            | overrides
        )


def _badge(html: str) -> str:
    start = html.index('id="notices-link"')
    return html[start : html.index("</a>", start)]


def test_the_header_counts_unread_notices(buyer):
    client = buyer.client()
    assert 'class="badge"' not in _badge(client.get(reverse("notices:list")).content.decode())
    _send(buyer.org, 3)
    html = client.get(reverse("bids:request-list")).content.decode()
    assert ">3<" in _badge(html)


def test_the_list_is_newest_first_with_unread_marked(buyer):
    _send(buyer.org, 2)
    Notice.objects.filter(subject="Notice 0").update(read_at="2026-01-01T00:00Z")
    html = buyer.client().get(reverse("notices:list")).content.decode()
    assert html.index("Notice 1") < html.index("Notice 0")
    assert html.count("notice card unread") == 1
    assert "for Helix Labs" in html


def test_the_empty_list_says_what_will_arrive(buyer):
    html = buyer.client().get(reverse("notices:list")).content.decode()
    assert "No notices yet" in html and "Mark all read" not in html


def test_mark_all_read_clears_the_count(buyer):
    _send(buyer.org, 2)
    client = buyer.client()
    response = client.post(reverse("notices:read-all"), follow=True)
    html = response.content.decode()
    assert "Marked 2 notices read." in html
    assert 'class="badge"' not in _badge(html)


def test_opening_a_notice_marks_it_read_and_acts_for_its_organisation(buyer, outsider):
    # Alice also works for the outsider's organisation and acts for it now.
    MembershipFactory(user=buyer.user, organization=outsider.org)
    _send(buyer.org)
    notice = Notice.objects.get(recipient=buyer.user)
    client = buyer.client()
    session = client.session
    session[SESSION_KEY] = outsider.org.pk
    session.save()
    response = client.get(reverse("notices:open", args=[notice.public_id]))
    assert response.status_code == 302 and response["Location"] == "/requests/"
    assert client.session[SESSION_KEY] == buyer.org.pk
    notice.refresh_from_db()
    assert notice.read_at is not None


def test_a_notice_path_never_leaves_the_site(buyer):
    _send(buyer.org, path="//evil.example/phish")
    notice = Notice.objects.get(recipient=buyer.user)
    response = buyer.client().get(reverse("notices:open", args=[notice.public_id]))
    assert response["Location"] == reverse("notices:list")


def test_the_list_is_paginated_and_costs_the_same_for_3_and_60(buyer):
    client = buyer.client()
    _send(buyer.org, 3)

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("notices:list")).status_code == 200
        return len(ctx.captured_queries)

    few = queries()
    _send(buyer.org, 60)
    assert queries() == few
    page2 = client.get(reverse("notices:list"), {"page": 2}).content.decode()
    assert "Page 2 of 3" in page2


def test_preferences_table_saves_and_shows_the_choice(buyer):
    client = buyer.client()
    html = client.get(reverse("notices:preferences")).content.decode()
    assert html.count('type="checkbox"') == 2 * len(Event)
    assert "Incident clock at 75 % of its target" in html
    # Everything on but the loss e-mail (a cleared box is absent from the POST).
    data = {f"{e.value}__{c}": "on" for e in Event for c in ("email", "in_app")}
    del data["loss__email"]
    response = client.post(reverse("notices:preferences"), data, follow=True)
    assert "Notice preferences saved." in response.content.decode()
    assert list(NoticePreference.objects.values_list("event", "email", "in_app")) == [
        ("loss", False, True)
    ]
    html = client.get(reverse("notices:preferences")).content.decode()
    assert (
        'name="loss__email"' in html
        and 'name="loss__email" id="id_loss__email" checked' not in html
    )
