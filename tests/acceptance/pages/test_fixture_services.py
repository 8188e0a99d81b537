"""Fixture versions: built from the request's shape, replaced while the request is a draft,
frozen from publishing whether or not a bid acknowledged them."""

from __future__ import annotations

import copy

import pytest
from django.core.exceptions import ValidationError

from acceptance.bundle import build_bundle
from acceptance.forms.fixtures import FixtureForm
from acceptance.models import FixtureVersion, FrozenFixtureVersionError
from acceptance.selectors import fixtures as selectors
from acceptance.services import acknowledgement_submit, fixture_from_template, fixture_save
from acceptance.services.fixtures import _store
from bids.choices import RequestStatus
from core.errors import ServiceError
from engine.evidence.fixtures import spec_sha256
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db

ALL_REDUCE = "thresholds.busbw_gbps.all_reduce"


def test_it_builds_version_1_from_the_request_shape(world, buyer):
    version = fixture_from_template(
        capacity_request=world.request, user=buyer.user, template="rank-sum-allreduce"
    )
    spec = version.spec
    assert version.number == 1
    assert spec["gpu_model"] == "H200" and spec["fabric"] == "ndr400-ib"
    assert spec["allocation"] == {
        "nodes": 2,
        "gpus_per_node": 8,
        "gpus": 16,
        "workers_per_gpu": 1,
        "max_leaf_switches": 1,
    }
    assert version.spec_sha256 == spec_sha256(spec)
    assert version.manifest == build_bundle(spec)[1]


def test_it_refuses_a_gpu_without_a_threshold_library(buyer):
    req = CapacityRequestFactory(buyer=buyer.org, gpu_model="L40S")
    with pytest.raises(ServiceError, match="no threshold library"):
        fixture_from_template(capacity_request=req, user=buyer.user, template="rank-sum-allreduce")


def test_it_refuses_changes_once_the_request_is_closed(fx, buyer):
    fx.request.status = RequestStatus.CLOSED
    fx.request.save()
    with pytest.raises(ServiceError, match="closed"):
        fixture_save(fixture=fx.version.fixture, user=buyer.user, changes={"name": "x"})


def test_a_draft_requests_version_is_replaced_in_place(buyer):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    version = fixture_from_template(
        capacity_request=req, user=buyer.user, template="rank-sum-allreduce"
    )
    saved = fixture_save(
        fixture=version.fixture,
        user=buyer.user,
        changes={"runtime.nccl_version": "2.23.4", "tests.nccl_tests.max_bytes": 4 << 30},
    )
    assert saved.pk == version.pk and saved.number == 1
    assert saved.spec["runtime"]["nccl_version"] == "2.23.4"
    assert saved.spec_sha256 != version.spec_sha256
    assert FixtureVersion.objects.filter(fixture=saved.fixture).count() == 1


def test_a_published_version_is_kept_even_if_no_bid_acknowledged_it(fx, buyer):
    # Hanging it on acknowledgements would tell a sealed request's buyer that one arrived.
    saved = fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"runtime.nccl_version": "2.23.4"}
    )
    assert saved.number == 2 and saved.pk != fx.version.pk
    v1 = FixtureVersion.objects.get(pk=fx.version.pk)
    assert v1.spec_sha256 == fx.version.spec_sha256
    assert fx.version.fixture.versions.count() == 2


def test_saving_without_a_change_keeps_the_version(fx, buyer):
    saved = fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"name": fx.version.spec["name"]}
    )
    assert saved.pk == fx.version.pk and saved.spec_sha256 == fx.version.spec_sha256


def test_an_acknowledged_version_is_frozen_and_an_edit_makes_the_next(fx, buyer, provider):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    v1 = FixtureVersion.objects.get(pk=fx.version.pk)
    v2 = fixture_save(
        fixture=v1.fixture, user=buyer.user, changes={"tests.allreduce_fixture.iterations": 40}
    )
    assert v2.number == 2
    v1.refresh_from_db()
    assert v1.spec["tests"]["allreduce_fixture"]["iterations"] == 20
    v1.spec["name"] = "tampered"
    with pytest.raises(FrozenFixtureVersionError):
        v1.save()
    with pytest.raises(FrozenFixtureVersionError):
        v1.delete()
    with pytest.raises(FrozenFixtureVersionError):
        FixtureVersion.objects.filter(pk=v1.pk).update(spec={})
    # v2 is not acknowledged yet, but providers may have read it: the next edit is v3.
    v3 = fixture_save(
        fixture=v1.fixture, user=buyer.user, changes={"tests.allreduce_fixture.iterations": 30}
    )
    assert v3.pk != v2.pk and v3.number == 3


def test_a_threshold_change_needs_a_reason(fx, buyer):
    with pytest.raises(ValidationError) as info:
        fixture_save(fixture=fx.version.fixture, user=buyer.user, changes={ALL_REDUCE: 300.0})
    assert "reason" in info.value.message_dict[ALL_REDUCE][0]


def test_a_threshold_change_is_recorded_as_an_override(fx, buyer):
    before = fx.version.spec["thresholds"]["busbw_gbps"]["all_reduce"]
    saved = fixture_save(
        fixture=fx.version.fixture,
        user=buyer.user,
        changes={ALL_REDUCE: 300.0, "thresholds.dcgm_level": 4},
        reasons={ALL_REDUCE: "Older NDR switches in this hall", "thresholds.dcgm_level": "Long"},
    )
    overrides = {o["field"]: o for o in saved.spec["overrides"]}
    assert overrides[ALL_REDUCE]["default"] == before
    assert overrides[ALL_REDUCE]["value"] == 300.0
    assert overrides[ALL_REDUCE]["reason"] == "Older NDR switches in this hall"
    assert overrides[ALL_REDUCE]["by"] == "alice"
    assert overrides["thresholds.dcgm_level"]["value"] == 4
    assert saved.spec["thresholds"]["busbw_gbps"]["all_reduce"] == 300.0


def test_dropping_a_collective_drops_its_floor_with_a_recorded_reason(fx, buyer):
    saved = fixture_save(
        fixture=fx.version.fixture,
        user=buyer.user,
        changes={"tests.nccl_tests.collectives": ["all_reduce", "all_gather", "reduce_scatter"]},
    )
    assert "alltoall" not in saved.spec["thresholds"]["busbw_gbps"]
    assert saved.spec["overrides"][0]["reason"] == "alltoall is no longer run by nccl-tests"


def test_validation_errors_name_the_spec_path(fx, buyer):
    with pytest.raises(ValidationError) as info:
        fixture_save(
            fixture=fx.version.fixture,
            user=buyer.user,
            changes={"tests.nccl_tests.min_bytes": 1 << 31, "tests.nccl_tests.max_bytes": 1 << 30},
        )
    errors = info.value.message_dict
    assert errors["tests.nccl_tests.min_bytes"] == [
        "2 GiB is larger than the largest message size (-e), 1 GiB"
    ]


def test_the_threshold_library_gives_each_default_its_source(fx):
    library = selectors.threshold_library(fx.version.spec)
    assert library["thresholds.dcgm_level"].value == 3
    assert "NDR" in library["thresholds.ib_rate_gbps"].source
    assert library[ALL_REDUCE].value == fx.version.spec["thresholds"]["busbw_gbps"]["all_reduce"]
    rows = selectors.threshold_rows(spec=fx.version.spec)
    assert all(row["library"] is not None for row in rows)
    assert not any(row["differs"] for row in rows)


def test_starting_over_from_a_template_after_an_acknowledgement_adds_a_version(fx, buyer, provider):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    version = fixture_from_template(
        capacity_request=fx.request, user=buyer.user, template="bisection-pairs"
    )
    assert version.number == 2 and version.template == "bisection-pairs"
    assert version.spec["tests"]["bisection"] is True


PINNED = "nvcr.io/nvidia/pytorch@sha256:" + "3f" * 32


def test_an_image_by_tag_is_refused_and_one_by_digest_is_agreed(fx, buyer):
    with pytest.raises(ValidationError) as info:
        fixture_save(
            fixture=fx.version.fixture,
            user=buyer.user,
            changes={"runtime.container_image": "nvcr.io/nvidia/pytorch:latest"},
        )
    assert "Pin the image by digest" in info.value.message_dict["runtime.container_image"][0]
    saved = fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"runtime.container_image": PINNED}
    )
    assert saved.spec["runtime"]["container_image"] == PINNED


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("allocation.nodes", 3, "The request asks for 2 nodes; the fixture cannot test 3."),
        (
            "allocation.gpus_per_node",
            16,
            "The request asks for 8 GPUs per node; the fixture cannot test 16.",
        ),
    ],
)
def test_the_allocation_cannot_exceed_the_request(fx, buyer, path, value, words):
    with pytest.raises(ValidationError) as info:
        fixture_save(fixture=fx.version.fixture, user=buyer.user, changes={path: value})
    assert info.value.message_dict[path][0].startswith(words)
    fx.version.refresh_from_db()
    assert fx.version.spec["allocation"]["nodes"] == 2


def test_a_subset_of_the_requested_nodes_may_be_tested(fx, buyer):
    saved = fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"allocation.nodes": 1}
    )
    assert saved.spec["allocation"]["nodes"] == 1 and saved.spec["allocation"]["gpus"] == 8


def test_the_derived_gpu_count_says_how_to_change_it(fx, buyer):
    with pytest.raises(ValidationError) as exc:
        fixture_save(fixture=fx.version.fixture, user=buyer.user, changes={"allocation.gpus": 999})
    assert (
        "allocation.nodes and allocation.gpus_per_node"
        in exc.value.message_dict["allocation.gpus"][0]
    )


def test_a_spec_stored_before_the_burnin_depth_fields_saves_and_takes_them(fx, buyer):
    """The fields are optional: the form shows their defaults and an unchanged save keeps the
    stored spec as it was; a backend chosen later is set, a threshold needs its reason."""
    old = copy.deepcopy(fx.version.spec)
    for key in ("burnin_min_minutes", "step_time_tail_factor", "ib_counter_max"):
        old["thresholds"].pop(key, None)
    for key in ("os_image", "scheduler", "kubernetes_version", "worker_node_spec"):
        old["runtime"].pop(key, None)
    old["runtime"].pop("collective_backend", None)
    stored = _store(fixture=fx.version.fixture, spec=old, user=buyer.user)  # as stored then
    assert "burnin_min_minutes" not in stored.spec["thresholds"]
    form = FixtureForm(spec=old, library=selectors.threshold_library(old))
    assert form.initial["thresholds__burnin_min_minutes"] == 120.0
    changes = {
        "runtime.collective_backend": "gdaki",
        "thresholds.burnin_min_minutes": 120.0,
        "thresholds.step_time_tail_factor": 1.5,
    }
    version = fixture_save(
        fixture=fx.version.fixture,
        user=buyer.user,
        changes=changes,
        reasons={"thresholds.step_time_tail_factor": "MoE layers have a longer tail"},
    )
    assert version.spec["runtime"]["collective_backend"] == "gdaki"
    assert "burnin_min_minutes" not in version.spec["thresholds"]
    assert version.spec["thresholds"]["step_time_tail_factor"] == 1.5
    assert version.spec["overrides"][-1]["default"] == 1.2
