"""Pages as a person meets them: empty states, the demo, and query counts that do not grow."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import HttpRequest
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.models import BidRevision, CapacityRequest
from demo.seed import DEMO_PASSWORD, seed_demo
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory, MembershipFactory
from tests.text import shows_number


def test_a_new_buyer_sees_how_to_start(buyer):
    html = buyer.client().get(reverse("bids:request-list")).content.decode()
    assert "No capacity requests yet" in html


def test_a_new_provider_sees_an_empty_inbox(provider):
    html = provider.client().get(reverse("bids:inbox")).content.decode()
    assert "No buyer has invited your organisation" in html


def test_home_sends_each_kind_to_its_start_page(buyer, provider):
    assert buyer.client().get("/")["Location"] == reverse("bids:request-list")
    assert provider.client().get("/")["Location"] == reverse("bids:inbox")


def test_switching_organisation_changes_what_the_user_sees(buyer, provider):
    from orgs.models import Membership

    Membership.objects.create(user=buyer.user, organization=provider.org)
    client = buyer.client()
    assert client.get("/")["Location"] == reverse("bids:request-list")
    client.post(reverse("orgs:switch-org"), {"organization": provider.org.pk})
    assert client.get("/")["Location"] == reverse("bids:inbox")
    assert client.get(reverse("bids:request-list")).status_code == 404


def test_switching_to_a_foreign_organisation_is_ignored(buyer, outsider):
    client = buyer.client()
    client.post(reverse("orgs:switch-org"), {"organization": outsider.org.pk})
    assert client.get("/")["Location"] == reverse("bids:request-list")


def _count_queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_the_request_list_costs_the_same_for_2_and_30_requests(buyer):
    client = buyer.client()
    CapacityRequestFactory.create_batch(2, buyer=buyer.org)
    few = _count_queries(client, reverse("bids:request-list"))
    CapacityRequestFactory.create_batch(28, buyer=buyer.org)
    assert _count_queries(client, reverse("bids:request-list")) == few


def test_the_request_list_counts_invitations_and_submitted_bids_per_request(buyer):
    """Counted per request (each its own subquery): invitations × bids never multiply."""
    from bids.choices import BidStatus, RequestStatus

    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.OPEN)
    for status in (BidStatus.SUBMITTED, BidStatus.SUBMITTED, BidStatus.DRAFT):
        BidFactory(request=req, provider=InvitationFactory(request=req).provider, status=status)
    CapacityRequestFactory(buyer=buyer.org, title="Nobody invited yet")
    html = buyer.client().get(reverse("bids:request-list")).content.decode()
    row = html.split(req.title, 1)[1].split("</tr>", 1)[0]
    cells = [c.split("</td>")[0].strip() for c in row.split("<td>")[1:]]
    assert cells[-2:] == ["3", "2"], row  # 3 invited; 2 submitted (the draft is not counted)
    empty = html.split("Nobody invited yet", 1)[1].split("</tr>", 1)[0]
    assert [c.split("</td>")[0].strip() for c in empty.split("<td>")[1:]][-2:] == ["0", "0"]


def test_the_inbox_costs_the_same_for_2_and_30_invitations(provider):
    client = provider.client()

    def invite(n):
        for req in CapacityRequestFactory.create_batch(n):
            InvitationFactory(request=req, provider=provider.org)
            BidFactory(request=req, provider=provider.org)

    invite(2)
    few = _count_queries(client, reverse("bids:inbox"))
    invite(28)
    assert _count_queries(client, reverse("bids:inbox")) == few


def test_the_request_page_costs_the_same_for_2_and_20_bids(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    client = buyer.client()

    def bids(n):
        from bids.services import bid_submit

        for _ in range(n):
            bid = BidFactory(request=req)
            bid_submit(bid=bid, user=MembershipFactory(organization=bid.provider).user)

    bids(2)
    url = reverse("bids:request-detail", args=[req.pk])
    few = _count_queries(client, url)
    bids(18)
    assert _count_queries(client, url) == few


@pytest.mark.django_db
def test_seed_demo_builds_a_comparison_once_and_prints_the_logins(
    capsys, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo")
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "alice" in out and DEMO_PASSWORD in out and "nora" in out
    req = CapacityRequest.objects.get(title="16 × H200, two 8-GPU servers")
    assert req.invitations.count() == 3
    revisions = BidRevision.objects.filter(bid__request=req)
    assert set(revisions.values_list("bid__provider__name", flat=True)) == {
        "Northwind Compute",
        "Aurora GPU Cloud",
        "Pacifica Neocloud",
    }
    count = revisions.count()
    call_command("seed_demo")
    assert revisions.count() == count  # the second run added nothing
    assert not req.bids_hidden_from_buyer
    assert req.scoring_runs.filter(status="done", stale=False).exists()


@pytest.mark.django_db
def test_the_demo_buyer_can_sign_in_and_see_three_bids(client):
    seed_demo()
    assert client.login(request=HttpRequest(), username="alice", password=DEMO_PASSWORD)
    req = CapacityRequest.objects.get(title="16 × H200, two 8-GPU servers")
    html = client.get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    for name in ("Northwind Compute", "Aurora GPU Cloud", "Pacifica Neocloud"):
        assert name in html


def test_no_region_gives_one_message_on_the_field(buyer):
    from django.urls import reverse

    response = buyer.client().post(reverse("bids:request-create"), {"title": "No regions"})
    errors = response.context["form"].errors["acceptable_regions"]
    assert errors == ["Choose at least one acceptable region."]
    assert 'class="req"' in response.content.decode()


def test_the_buyers_bid_list_shows_the_submitted_revision_not_the_draft(world, buyer, provider):
    from decimal import Decimal

    from bids.services import bid_save_draft

    bid_save_draft(bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("9.99")})
    page = buyer.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    rows = page.content.decode()
    assert "$2.400" in rows and not shows_number(rows, "9.99")


@pytest.mark.django_db
def test_the_demo_has_someone_in_two_organisations_who_can_switch(client):
    seed_demo()
    assert client.login(request=HttpRequest(), username="sam", password=DEMO_PASSWORD)
    orgs = {m.organization.name: m.organization for m in _memberships("sam")}
    assert set(orgs) == {"Northwind Compute", "Aurora GPU Cloud"}
    req = CapacityRequest.objects.get(title="16 × H200, two 8-GPU servers")
    links = {b.provider.name: f'href="/bids/{b.pk}/"' for b in req.bids.select_related("provider")}
    for name, org in orgs.items():
        client.post(reverse("orgs:switch-org"), {"organization": org.pk})
        page = client.get(reverse("bids:request-detail", args=[req.pk])).content.decode()
        others = [link for n, link in links.items() if n != name]
        assert links[name] in page and not any(link in page for link in others)


def _memberships(username):
    from orgs.models import Membership

    return Membership.objects.filter(user__username=username).select_related("organization")


def test_bid_terms_keep_their_capitals(world, buyer):
    html = buyer.client().get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert "Price per GPU-hour (USD)" in html and "NIC rate (Gb/s)" in html
    assert "Price per gpu-hour" not in html and "Gpu model" not in html
    start = world.bid.revisions.get().available_start
    assert f"{start:%-d %b %Y}" in html and start.isoformat() not in html


def test_an_open_request_past_its_deadline_says_so(buyer, provider):
    from datetime import timedelta

    from django.utils import timezone

    req = CapacityRequestFactory(buyer=buyer.org, bid_deadline=timezone.now() - timedelta(hours=1))
    InvitationFactory(request=req, provider=provider.org)
    for client, url in [
        (buyer.client(), reverse("bids:request-list")),
        (provider.client(), reverse("bids:inbox")),
        (buyer.client(), reverse("bids:request-detail", args=[req.pk])),
    ]:
        html = client.get(url).content.decode()
        assert "Deadline passed" in html and "Open for bids" not in html


def test_the_edit_form_shows_what_publishing_fixed(world, buyer):
    url = reverse("bids:request-edit", args=[world.request.pk])
    html = buyer.client().get(url).content.decode()
    assert 'name="gpu_model"' in html and "Fixed once the request is published." in html
    assert "bids were submitted" not in html.lower()  # a sealed request's buyer learns nothing
    # A posted change to a fixed field is ignored; the free ones still save.
    form = buyer.client().get(url).context["form"]
    data = {name: form[name].value() for name in form.fields}
    data = {k: v for k, v in data.items() if v not in (None, False)}
    data |= {"gpu_model": "A100", "description": "Same cluster, clearer words."}
    response = buyer.client().post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    world.request.refresh_from_db()
    assert world.request.gpu_model == "H200"
    assert world.request.description == "Same cluster, clearer words."


def test_a_field_error_is_announced_by_its_input(buyer):
    """Django points aria-describedby at '<id>_error'; the message must carry that id."""
    import re

    html = buyer.client().post(reverse("bids:request-create"), {"title": ""}).content.decode()
    described = re.search(r'<input[^>]*name="title"[^>]*aria-describedby="([^"]+)"', html)
    assert described is not None
    for target in described.group(1).split():
        assert f'id="{target}"' in html
