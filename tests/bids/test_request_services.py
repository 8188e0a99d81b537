from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from bids import services
from bids.choices import RequestStatus
from tests.factories import CapacityRequestFactory, OrganizationFactory


def _data(**overrides):
    start = timezone.localdate() + timedelta(days=60)
    data = {
        "title": "16 × H200",
        "gpu_model": "H200",
        "gpu_count": 16,
        "nodes": 2,
        "gpus_per_node": 8,
        "nvlink_domain_size": 8,
        "fabric": "infiniband",
        "per_gpu_bandwidth_gbps": 400,
        "accepted_offer_kinds": ["whole_device"],
        "scheduler": "slurm",
        "acceptable_regions": ["eu"],
        "reservation_start": start,
        "reservation_end": start + timedelta(days=90),
        "bid_deadline": timezone.now() + timedelta(days=7),
    }
    data.update(overrides)
    return data


def test_it_creates_a_draft(buyer):
    req = services.request_create(buyer=buyer.org, user=buyer.user, data=_data())
    assert req.status == RequestStatus.DRAFT
    # The end date is included, as scoring counts it: start + 90 days is 91 days reserved.
    assert req.term_hours == 91 * 24
    from evaluation.scoring_io import request_profile

    assert request_profile(req).term_hours == req.term_hours


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"gpu_count": 12}, "gpu_count", "2 nodes × 8 GPUs per node is 16 GPUs, not 12"),
        ({"nvlink_domain_size": 32}, "nvlink_domain_size", "larger than the 16 GPUs"),
        ({"acceptable_regions": []}, "acceptable_regions", "at least one"),
        ({"acceptable_regions": ["mars"]}, "acceptable_regions", "mars"),
        ({"max_leaf_switches": 0}, "max_leaf_switches", "at least one leaf switch"),
        ({"per_gpu_bandwidth_gbps": 0}, "per_gpu_bandwidth_gbps", "above 0 Gb/s"),
        (
            {"nodes": 1, "gpus_per_node": 8, "gpu_count": 16, "nvlink_domain_size": 8},
            "gpu_count",
            "1 node × 8 GPUs per node is 8 GPUs, not 16",
        ),
    ],
)
def test_it_refuses_inconsistent_requests_on_the_field(buyer, overrides, field, fragment):
    with pytest.raises(ValidationError) as exc:
        services.request_create(buyer=buyer.org, user=buyer.user, data=_data(**overrides))
    assert any(fragment in m for m in exc.value.message_dict[field])


def test_it_refuses_an_end_before_the_start(buyer):
    start = timezone.localdate() + timedelta(days=60)
    with pytest.raises(ValidationError) as exc:
        services.request_create(
            buyer=buyer.org,
            user=buyer.user,
            data=_data(reservation_start=start, reservation_end=start - timedelta(days=1)),
        )
    assert "end after it starts" in exc.value.message_dict["reservation_end"][0]


def test_it_refuses_a_deadline_after_the_start(buyer):
    start = timezone.localdate() + timedelta(days=5)
    with pytest.raises(ValidationError) as exc:
        services.request_create(
            buyer=buyer.org,
            user=buyer.user,
            data=_data(
                reservation_start=start,
                reservation_end=start + timedelta(days=30),
                bid_deadline=timezone.now() + timedelta(days=10),
            ),
        )
    assert "before the reservation starts" in exc.value.message_dict["bid_deadline"][0]


def test_only_buyers_post_requests(provider):
    with pytest.raises(ValidationError, match="Only a buyer"):
        services.request_create(buyer=provider.org, user=provider.user, data=_data())


def test_status_walks_draft_open_closed_and_refuses_skips(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT)
    with pytest.raises(ValidationError, match="cannot be closed"):
        services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    with pytest.raises(ValidationError, match="Invite at least one provider"):
        services.request_publish(capacity_request=req, user=buyer.user)
    services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
    services.request_publish(capacity_request=req, user=buyer.user)
    assert req.status == RequestStatus.OPEN and req.published_at is not None
    with pytest.raises(ValidationError, match="cannot be published"):
        services.request_publish(capacity_request=req, user=buyer.user)
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    assert req.status == RequestStatus.CLOSED
    services.request_cancel(capacity_request=req, user=buyer.user, confirmed=True)
    assert req.status == RequestStatus.CANCELLED
    with pytest.raises(ValidationError, match="cannot be cancelled"):
        services.request_cancel(capacity_request=req, user=buyer.user, confirmed=True)


def test_publishing_with_a_past_deadline_is_refused(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org,
        status=RequestStatus.DRAFT,
        bid_deadline=timezone.now() - timedelta(hours=1),
    )
    with pytest.raises(ValidationError, match="deadline has passed"):
        services.request_publish(capacity_request=req, user=buyer.user)
    req.refresh_from_db()
    assert req.status == RequestStatus.DRAFT


def test_invitations_are_for_providers_and_not_repeated(buyer, provider, outsider):
    req = CapacityRequestFactory(buyer=buyer.org)
    assert (
        len(
            services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
        )
        == 1
    )
    assert (
        services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
        == []
    )
    with pytest.raises(ValidationError, match="not a provider"):
        services.request_invite(capacity_request=req, user=buyer.user, providers=[outsider.org])


def test_cancelled_requests_cannot_be_edited(buyer):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.CANCELLED)
    with pytest.raises(ValidationError, match="cannot be edited"):
        services.request_update(capacity_request=req, user=buyer.user, data={"title": "new"})


def test_a_provider_with_a_bid_stays_invited(world, buyer, provider):
    with pytest.raises(ValidationError, match="stays invited"):
        services.request_uninvite(
            capacity_request=world.request, user=buyer.user, provider=provider.org
        )


def test_a_sealed_request_keeps_every_invitation_alike_until_its_deadline(buyer, provider):
    """Refusing only those who bid would tell the buyer who bid."""
    from tests.factories import BidFactory

    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    quiet = OrganizationFactory(kind="provider")
    services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org, quiet])
    BidFactory(request=req, provider=provider.org)
    messages = []
    for org in (provider.org, quiet):
        with pytest.raises(ValidationError) as exc:
            services.request_uninvite(capacity_request=req, user=buyer.user, provider=org)
        messages.append(exc.value.messages)
    assert messages[0] == messages[1] and "sealed request" in messages[0][0]
    assert req.invitations.count() == 2


def test_uninvite_removes_a_provider_without_a_bid(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    other = OrganizationFactory(kind="provider")
    services.request_invite(capacity_request=req, user=buyer.user, providers=[other])
    services.request_uninvite(capacity_request=req, user=buyer.user, provider=other)
    assert not req.invitations.exists()


@pytest.fixture
def published(buyer, provider):
    from tests.factories import InvitationFactory

    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    InvitationFactory(request=req, provider=provider.org)
    return req


def _field_errors(req, **changes):
    with pytest.raises(ValidationError) as exc:
        services.request_update(
            capacity_request=req, user=req.buyer.memberships.get().user, data=changes
        )
    return exc.value.message_dict


def test_sealing_is_fixed_once_published(published):
    errors = _field_errors(published, sealed=False)
    assert "Sealed bidding is fixed" in errors["sealed"][0]
    published.refresh_from_db()
    assert published.sealed and published.bids_hidden_from_buyer


def test_a_published_deadline_only_moves_later(published, buyer):
    # Moving it into the past would both cut providers off and open the sealed bids at once.
    errors = _field_errors(published, bid_deadline=timezone.now() - timedelta(minutes=1))
    assert "can only move later" in errors["bid_deadline"][0]
    published.refresh_from_db()
    later = published.bid_deadline + timedelta(days=2)
    services.request_update(
        capacity_request=published, user=buyer.user, data={"bid_deadline": later}
    )
    published.refresh_from_db()
    assert published.bid_deadline == later


def test_the_allocation_and_term_are_fixed_once_published_bids_or_none(published, buyer):
    # With or without bids alike: a sealed request's buyer must not learn from it that any exist.
    services.request_update(
        capacity_request=published, user=buyer.user, data={"title": "16 × H200, renamed"}
    )
    errors = _field_errors(
        published, gpu_model="A100", reservation_end=published.reservation_end - timedelta(days=1)
    )
    for field in ("gpu_model", "reservation_end"):
        assert "fixed once the request is published" in errors[field][0]
        assert "bid" not in errors[field][0].lower()
    published.refresh_from_db()
    services.request_update(
        capacity_request=published, user=buyer.user, data={"description": "Still the same cluster."}
    )
    published.refresh_from_db()
    assert (published.gpu_model, published.description) == ("H200", "Still the same cluster.")
