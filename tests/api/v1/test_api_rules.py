"""The API's own behaviour: idempotency keys, rate limits, error bodies, sealing, revisions."""

from __future__ import annotations

from datetime import UTC, timedelta
from datetime import timezone as timezone_offset_type
from decimal import Decimal

from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from bids.models import BidRevision, CapacityRequest
from tests.api.v1.conftest import answer_all, token_client

NEW_REQUEST = {
    "title": "8 × H100, one server",
    "gpu_model": "H100",
    "gpu_count": 8,
    "nodes": 1,
    "gpus_per_node": 8,
    "acceptable_regions": ["eu"],
    "reservation_start": str(timezone.localdate() + timedelta(days=60)),
    "reservation_end": str(timezone.localdate() + timedelta(days=120)),
    "bid_deadline": (timezone.now() + timedelta(days=10)).isoformat(),
}


def test_a_retried_create_with_the_same_key_creates_once(buyer):
    client = token_client(buyer.user)
    first = client.post("/api/v1/requests/", NEW_REQUEST, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = client.post("/api/v1/requests/", NEW_REQUEST, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert CapacityRequest.objects.filter(title=NEW_REQUEST["title"]).count() == 1


def test_the_same_key_with_another_body_is_refused(buyer):
    client = token_client(buyer.user)
    client.post("/api/v1/requests/", NEW_REQUEST, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    other = {**NEW_REQUEST, "title": "Something else"}
    response = client.post("/api/v1/requests/", other, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    assert response.status_code == 422
    assert "already used for a different request" in response.json()["detail"]
    assert not CapacityRequest.objects.filter(title="Something else").exists()


def test_keys_belong_to_one_user(buyer, buyer_colleague):
    token_client(buyer.user).post(
        "/api/v1/requests/", NEW_REQUEST, format="json", HTTP_IDEMPOTENCY_KEY="k3"
    )
    response = token_client(buyer_colleague.user).post(
        "/api/v1/requests/", NEW_REQUEST, format="json", HTTP_IDEMPOTENCY_KEY="k3"
    )
    assert response.status_code == 201
    assert CapacityRequest.objects.filter(title=NEW_REQUEST["title"]).count() == 2


def test_one_key_used_for_two_organisations_creates_one_bid_for_each(
    buyer, provider, rival_provider
):
    """Sam works for two providers and retries a script's key for the other one: the second
    call acts for the second organisation, so it is not a replay of the first."""
    from bids.models import Bid
    from tests.factories import CapacityRequestFactory, InvitationFactory, MembershipFactory

    request = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    for org in (provider.org, rival_provider.org):
        InvitationFactory(request=request, provider=org)
    sam = MembershipFactory(organization=provider.org).user
    MembershipFactory(user=sam, organization=rival_provider.org)
    client = token_client(sam)
    answers = []
    for org in (provider.org, rival_provider.org, provider.org):
        response = client.post(
            "/api/v1/bids/",
            {"request": request.pk},
            format="json",
            HTTP_IDEMPOTENCY_KEY="start-bid",
            HTTP_X_CLUSTERBID_ORG=org.slug,
        )
        answers.append((response.status_code, response.get("Idempotent-Replayed")))
    assert answers == [(201, None), (201, None), (201, "true")]
    assert set(Bid.objects.filter(request=request).values_list("provider__slug", flat=True)) == {
        provider.org.slug,
        rival_provider.org.slug,
    }


def test_token_writes_beyond_the_rate_get_429(buyer, settings):
    settings.API_TOKEN_WRITE_RATE = "3/min"
    client = token_client(buyer.user)
    codes = [client.post("/api/v1/requests/", {}, format="json").status_code for _ in range(4)]
    assert codes == [400, 400, 400, 429]
    assert client.get("/api/v1/requests/").status_code == 200  # reads are not limited
    session = buyer.client()
    assert session.post("/api/v1/requests/", {}, content_type="application/json").status_code in (
        400,
        403,  # the browser session needs its CSRF token; never 429
    )


def test_with_the_limiters_store_away_token_writes_get_503_and_reads_still_work(buyer):
    """The write limit counts in the cache; with the cache unreachable a write is refused in
    the API's JSON shape (never an HTML 500), while reads, which it never counts, answer."""
    dead = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on port 9 here
        }
    }
    client = token_client(buyer.user)
    with override_settings(CACHES=dead):
        response = client.post("/api/v1/requests/", NEW_REQUEST, format="json")
        assert response.status_code == 503 and response["Retry-After"]
        assert "rate limit cannot be reached" in response.json()["detail"]
        assert client.get("/api/v1/requests/").status_code == 200
    assert not CapacityRequest.objects.filter(title=NEW_REQUEST["title"]).exists()


def test_a_time_filter_beyond_year_9999_in_utc_is_a_400_naming_it(buyer):
    client = token_client(buyer.user)
    for query in (
        "deadline_after=9999-12-31T23:59:59-23:59",
        "deadline_before=0001-01-01T00:00:00%2B23:59",
    ):
        response = client.get(f"/api/v1/requests/?{query}")
        name = query.split("=")[0]
        assert response.status_code == 400, query
        assert response.json()["errors"][name] == [
            "This time falls outside the years 1 to 9999 in UTC."
        ]


def test_validation_errors_name_the_field(buyer):
    response = token_client(buyer.user).post(
        "/api/v1/requests/", {**NEW_REQUEST, "gpu_count": 16}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"detail", "errors"}
    assert "gpu_count" in body["errors"]


def test_answer_errors_name_the_question_key(api_world, provider):
    client = token_client(provider.user)
    response = client.patch(
        f"/api/v1/bids/{api_world.bid.pk}/",
        {"answers": {"detect.S1.response": "15 parsecs"}, "uptime_pct": "101"},
        format="json",
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "uptime_pct" in errors


def test_an_answer_to_a_question_not_asked_is_named_not_dropped(api_world, provider):
    client = token_client(provider.user)
    response = client.patch(
        f"/api/v1/bids/{api_world.bid.pk}/",
        {"answers": {"detect.S1.respons": "15 min"}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "answers.detect.S1.respons": [
            "This request's questionnaire asks no question 'detect.S1.respons'."
        ]
    }


def test_submit_names_missing_answers_by_key(api_world, provider):
    client = token_client(provider.user)
    client.patch(f"/api/v1/bids/{api_world.bid.pk}/", {"site": "FRA2"}, format="json")
    response = client.post(f"/api/v1/bids/{api_world.bid.pk}/submit/")
    assert response.status_code == 400
    assert "answers.detect.owner" in response.json()["errors"]


def test_revise_makes_a_new_immutable_revision(api_world, provider):
    answer_all(api_world.bid, provider.user)
    client = token_client(provider.user)
    client.patch(f"/api/v1/bids/{api_world.bid.pk}/", {"price_per_gpu_hour": "2.10"}, format="json")
    response = client.post(f"/api/v1/bids/{api_world.bid.pk}/submit/")
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 2
    assert BidRevision.objects.filter(bid=api_world.bid).count() == 2
    numbers = client.get(f"/api/v1/bids/{api_world.bid.pk}/revisions/?ordering=number").json()
    assert [r["number"] for r in numbers["results"]] == [1, 2]


def test_a_retried_submit_with_its_key_replays_the_revision(api_world, provider):
    answer_all(api_world.bid, provider.user)
    client = token_client(provider.user)
    client.patch(f"/api/v1/bids/{api_world.bid.pk}/", {"price_per_gpu_hour": "2.10"}, format="json")
    url = f"/api/v1/bids/{api_world.bid.pk}/submit/"
    first = client.post(url, HTTP_IDEMPOTENCY_KEY="submit-2")
    again = client.post(url, HTTP_IDEMPOTENCY_KEY="submit-2")
    assert first.status_code == again.status_code == 201
    assert again.json()["number"] == 2 and again["Idempotent-Replayed"] == "true"
    assert BidRevision.objects.filter(bid=api_world.bid).count() == 2


def test_unknown_api_urls_answer_json_even_with_debug(buyer, settings):
    settings.DEBUG = True  # Django's technical 404 page would otherwise answer
    client = token_client(buyer.user)
    for url in ["/api/v1/nope/", "/api/v1/requests/abc/", "/api/v2/requests/"]:
        response = client.get(url)
        assert response.status_code == 404 and response["Content-Type"] == "application/json"
        assert response.json() == {"detail": "Not found.", "errors": {}}
    session = APIClient(enforce_csrf_checks=True)
    session.force_login(buyer.user)
    negative = session.patch("/api/v1/bids/-5/", {}, format="json")  # no CSRF page either
    assert negative.status_code == 404 and negative.json()["detail"] == "Not found."
    slashless = client.post("/api/v1/requests", {}, format="json")
    assert slashless.status_code == 404
    assert slashless.json()["detail"].endswith("end with a slash: /api/v1/requests/")


def test_a_sealed_request_lists_no_bid_and_no_bidder(api_world, buyer):
    api_world.request.sealed = True
    api_world.request.save()
    client = token_client(buyer.user)
    listed = client.get(f"/api/v1/requests/{api_world.request.pk}/bids/")
    assert listed.status_code == 200 and listed.json()["results"] == []
    assert client.get(f"/api/v1/bids/{api_world.bid.pk}/").status_code == 404
    comparison = client.get(f"/api/v1/requests/{api_world.request.pk}/comparison/").json()
    assert comparison["state"] == "sealed" and comparison["columns"] == []
    assert "Northwind" not in listed.content.decode() + str(comparison)


def test_the_buyer_sees_the_frozen_revision_not_the_draft(api_world, buyer, provider):
    token_client(provider.user).patch(
        f"/api/v1/bids/{api_world.bid.pk}/", {"price_per_gpu_hour": "9.99"}, format="json"
    )
    shown = token_client(buyer.user).get(f"/api/v1/bids/{api_world.bid.pk}/").json()
    assert shown["price_per_gpu_hour"] == "2.400" and shown["shows_revision"] == 1
    # Nor does the buyer learn that the provider is editing.
    assert shown["has_unsubmitted_changes"] is None
    own = token_client(provider.user).get(f"/api/v1/bids/{api_world.bid.pk}/").json()
    assert own["has_unsubmitted_changes"] is True


def test_per_caller_fields_in_nested_rows_stay_with_their_caller(
    api_world, buyer, provider, rival_provider
):
    """Each bid row's per-caller fields are read from that call's own request: alternating
    callers in one process never see each other's values."""
    own_client, buyer_client = token_client(provider.user), token_client(buyer.user)
    rival_client = token_client(rival_provider.user)
    own_client.patch(
        f"/api/v1/bids/{api_world.bid.pk}/", {"price_per_gpu_hour": "9.99"}, format="json"
    )
    for _ in range(2):
        rows = buyer_client.get(f"/api/v1/requests/{api_world.request.pk}/bids/").json()
        seen = {row["id"]: row for row in rows["results"]}
        mine = f"/api/v1/bids/?request={api_world.request.pk}"
        own = own_client.get(mine).json()["results"]
        rival = rival_client.get(mine).json()["results"]
        assert {row["has_unsubmitted_changes"] for row in seen.values()} == {None}
        assert Decimal(seen[api_world.bid.pk]["price_per_gpu_hour"]) != Decimal("9.99")
        assert [(r["id"], r["has_unsubmitted_changes"]) for r in own] == [(api_world.bid.pk, True)]
        assert Decimal(own[0]["price_per_gpu_hour"]) == Decimal("9.99")
        assert [(r["id"], r["has_unsubmitted_changes"]) for r in rival] == [
            (api_world.rival_bid.pk, False)
        ]


def test_a_rival_never_sees_the_other_bid(api_world, rival_provider):
    client = token_client(rival_provider.user)
    listed = client.get(f"/api/v1/bids/?request={api_world.request.pk}").json()["results"]
    assert [b["id"] for b in listed] == [api_world.rival_bid.pk]
    assert "Northwind" not in str(client.get("/api/v1/bids/").json())


def test_lists_filter_and_order(api_world, buyer):
    client = token_client(buyer.user)
    closed = client.get("/api/v1/requests/?status=closed").json()
    assert closed["count"] == 0
    ordered = client.get("/api/v1/requests/?ordering=title").json()["results"]
    assert [r["title"] for r in ordered] == sorted(r["title"] for r in ordered)


def test_a_rejection_needs_a_reason(api_world, buyer):
    client = token_client(buyer.user)
    response = client.post(
        f"/api/v1/reservations/{api_world.reservation.pk}/reject/", {"reason": ""}, format="json"
    )
    assert response.status_code == 400 and "reason" in response.json()["errors"]


def timezone_offset(hours: int, minutes: int = 0) -> timezone_offset_type:
    sign = -1 if hours < 0 else 1
    return timezone_offset_type(sign * timedelta(hours=abs(hours), minutes=minutes))


def test_a_time_filter_with_a_far_offset_is_read_in_utc(api_world, buyer):
    # PostgreSQL takes offsets only to ±15:59; +16:00 is valid ISO 8601 and must not be a 500.
    client = token_client(buyer.user)
    deadline = api_world.request.bid_deadline.astimezone(UTC)
    just_before = (deadline - timedelta(minutes=1)).astimezone(timezone_offset(16, 30))
    just_after = (deadline + timedelta(minutes=1)).astimezone(timezone_offset(-16))
    found = client.get("/api/v1/requests/", {"deadline_after": just_before.isoformat()})
    assert found.status_code == 200
    assert api_world.request.pk in [r["id"] for r in found.json()["results"]]
    later = client.get("/api/v1/requests/", {"deadline_after": just_after.isoformat()})
    assert later.status_code == 200
    assert api_world.request.pk not in [r["id"] for r in later.json()["results"]]
    revisions = client.get(
        f"/api/v1/bids/{api_world.bid.pk}/revisions/",
        {"submitted_after": "2020-01-01T00:00:00+22:22"},
    )
    assert revisions.status_code == 200 and revisions.json()["count"] >= 1


def test_json_nested_too_deeply_is_a_400_naming_the_problem(api_world, provider, buyer):
    body = "[" * 20_000 + "]" * 20_000
    response = token_client(provider.user).post(
        "/api/v1/bids/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]
    # Shallow enough for the reader, too deep for what reads it next: refused the same way.
    fixture = f"/api/v1/requests/{api_world.request.pk}/fixture/"
    deep = '{"spec": ' + "[" * 800 + "]" * 800 + "}"
    response = token_client(buyer.user).patch(fixture, deep, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]
