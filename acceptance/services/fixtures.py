"""Authoring fixture versions: from a template, then edited; published versions freeze."""

from __future__ import annotations

import copy
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from acceptance.bundle import build_bundle
from acceptance.models import Fixture, FixtureVersion
from bids.audit import record_request
from bids.lifecycle import request_move, require_preparing
from bids.models import CapacityRequest, Lot
from core.errors import ServiceError
from engine.evidence.fixtures import (
    ADDED_DEFAULTS,
    DEFAULT_TEMPLATE,
    InvalidSpecError,
    SpecError,
    apply_override,
    default_spec,
    locate,
    spec_sha256,
    validate_spec,
)
from engine.evidence.fixtures.thresholds import sku_profile
from engine.evidence.fixtures.validation import container_image_problem

REASON_REQUIRED = "Give a reason for changing this threshold; it is recorded with the override."


def _request_fabric(capacity_request: CapacityRequest) -> str | None:
    if capacity_request.fabric == "infiniband":
        return "hdr200-ib" if capacity_request.per_gpu_bandwidth_gbps <= 200 else "ndr400-ib"
    if capacity_request.fabric == "roce":
        return "roce400"
    return None  # the SKU's usual fabric


def request_shape(capacity_request: CapacityRequest) -> dict[str, Any]:
    """The arguments `default_spec` gets for this request."""
    return {
        "gpu_model": capacity_request.gpu_model,
        "nodes": capacity_request.nodes,
        "gpus_per_node": capacity_request.gpus_per_node,
        "fabric": _request_fabric(capacity_request),
        "max_leaf_switches": capacity_request.max_leaf_switches,
    }


def spec_errors_to_dict(errors: list[SpecError]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for error in errors:
        out.setdefault(error.field or "__all__", []).append(error.message)
    return out


def authoring_errors(
    *, spec: dict[str, Any], capacity_request: CapacityRequest, lot: Lot | None = None
) -> list[SpecError]:
    """Rules for what a buyer saves now, beyond the schema: versions stored before them stay
    readable (and their bundles downloadable), but an edit must meet them. A lot's own fixture
    is held to the lot's size, not the request's."""
    errors: list[SpecError] = []
    runtime = spec.get("runtime")
    image = runtime.get("container_image") if isinstance(runtime, dict) else None
    if problem := container_image_problem(image):
        errors.append(SpecError("runtime.container_image", problem))
    shape: CapacityRequest | Lot = lot if lot is not None else capacity_request
    whose = f"Lot {lot.number}" if lot is not None else "The request"
    alloc = spec.get("allocation")
    alloc = alloc if isinstance(alloc, dict) else {}
    # Fewer nodes is a subset test (the "two-node" template on a larger request); more nodes
    # or GPUs than requested is a cluster the provider was never asked for.
    for key, asked, what in (
        ("nodes", shape.nodes, "node" if shape.nodes == 1 else "nodes"),
        (
            "gpus_per_node",
            shape.gpus_per_node,
            "GPU per node" if shape.gpus_per_node == 1 else "GPUs per node",
        ),
    ):
        value = alloc.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > asked:
            errors.append(
                SpecError(
                    f"allocation.{key}",
                    f"{whose} asks for {asked} {what}; the fixture cannot test {value}. "
                    f"Use {asked}, or fewer to test a subset.",
                )
            )
    return errors


def _store(*, fixture: Fixture, spec: dict[str, Any], user: User) -> FixtureVersion:
    """Replace the current version while the request is a draft; otherwise add the next one.

    Providers see the fixture from publishing on, so from then every edit is a new version for
    every request alike: hanging it on acknowledgements would tell a sealed request's buyer
    that a provider had acknowledged."""
    errors = validate_spec(spec)
    current = FixtureVersion.objects.filter(fixture=fixture, number=fixture.current_number).first()
    if not errors and current is not None and current.spec_sha256 == spec_sha256(spec):
        return current  # nothing changed: no new version, nobody asked to acknowledge again
    errors += authoring_errors(
        spec=spec, capacity_request=fixture.capacity_request, lot=fixture.lot
    )
    if errors:
        raise ValidationError(spec_errors_to_dict(errors))
    sha = spec_sha256(spec)
    before = current.spec_sha256 if current is not None else None
    _archive, manifest = build_bundle(spec)
    if current is not None and not fixture.capacity_request.published_to_providers:
        current.spec, current.spec_sha256, current.manifest = spec, sha, manifest
        current.template, current.created_by = spec["template"], user
        current.save()
        _record(fixture, current, user=user, before=before)
        return current
    number = fixture.current_number + 1 if current is not None else fixture.current_number
    version = FixtureVersion.objects.create(
        fixture=fixture,
        number=number,
        template=spec["template"],
        spec=spec,
        spec_sha256=sha,
        manifest=manifest,
        created_by=user,
    )
    fixture.current_number = number
    fixture.save(update_fields=["current_number", "updated_at"])
    _record(fixture, version, user=user, before=before)
    return version


def _record(fixture: Fixture, version: FixtureVersion, *, user: User, before: str | None) -> None:
    """On the request's record: the version and its spec's SHA-256, before and after (the
    spec itself, with every threshold override's reason, is the version's); a lot's own
    fixture names its lot."""
    lot = {"lot": fixture.lot.number} if fixture.lot is not None else {}
    record_request(
        capacity_request=fixture.capacity_request,
        action="fixture.version",
        user=user,
        before={"spec_sha256": before} if before else None,
        after={
            **lot,
            "version": version.number,
            "template": version.template,
            "spec_sha256": version.spec_sha256,
        },
    )


@transaction.atomic
def fixture_from_template(
    *, capacity_request: CapacityRequest, user: User, template: str, name: str | None = None
) -> FixtureVersion:
    """The template's spec for the request's shape; a fixture that exists starts over from it."""
    require_preparing(capacity_request, user=user, what="fixture")
    shape = request_shape(capacity_request)
    try:
        sku_profile(shape["gpu_model"])
    except KeyError:
        raise ServiceError(
            f"There is no threshold library for {capacity_request.get_gpu_model_display()} yet; "
            "templates cover H100, H200, A100, B200 and GB200."
        ) from None
    try:
        spec = default_spec(**shape, template=template, name=name or None)
    except KeyError:
        raise ValidationError({"template": ["Choose one of the templates."]}) from None
    fixture, _created = Fixture.objects.select_for_update().get_or_create(
        request=capacity_request, defaults={"created_by": user}
    )
    return _store(fixture=fixture, spec=spec, user=user)


def _busbw_changes(
    spec: dict[str, Any], changes: dict[str, Any], reasons: dict[str, str]
) -> tuple[list[tuple[str, Any, str]], dict[str, list[str]]]:
    """Overrides for the busbw map: drops (whole map) first, then one per changed floor."""
    prefix = "thresholds.busbw_gbps"
    old: dict[str, Any] = dict(spec["thresholds"]["busbw_gbps"])
    run = set(spec["tests"]["nccl_tests"]["collectives"])
    wanted = dict(old)
    steps: list[tuple[str, Any, str]] = []
    errors: dict[str, list[str]] = {}
    for name in sorted(set(old) - run):
        wanted.pop(name)
        steps.append((prefix, dict(wanted), f"{name} is no longer run by nccl-tests"))
    for path, value in changes.items():
        if not path.startswith(prefix + "."):
            continue
        name = path[len(prefix) + 1 :]
        if name not in run or wanted.get(name) == value:
            continue
        reason = reasons.get(path, "").strip()
        if not reason:
            errors[path] = [REASON_REQUIRED]
            continue
        if value is None:
            wanted.pop(name, None)
            steps.append((prefix, dict(wanted), reason))
        else:
            wanted[name] = value
            steps.append((path, value, reason))
    return steps, errors


COUNTER_LIMITS = "thresholds.ib_counter_max"


def _counter_changes(
    spec: dict[str, Any], changes: dict[str, Any], reasons: dict[str, str]
) -> tuple[list[tuple[str, Any, str]], dict[str, list[str]]]:
    """Overrides for the IB error counter limits, one per changed counter. An emptied limit
    (not judged) and any limit of a spec stored before the map existed set the whole map."""
    current = spec["thresholds"].get("ib_counter_max")
    stored = isinstance(current, dict)
    wanted: dict[str, Any] = dict(current if stored else ADDED_DEFAULTS[COUNTER_LIMITS])
    steps: list[tuple[str, Any, str]] = []
    errors: dict[str, list[str]] = {}
    for path, value in changes.items():
        name = path.removeprefix(COUNTER_LIMITS + ".")
        if name == path or wanted.get(name) == value:
            continue
        reason = reasons.get(path, "").strip()
        if not reason:
            errors[path] = [REASON_REQUIRED]
            continue
        if value is None:
            wanted.pop(name, None)
        else:
            wanted[name] = value
        whole = value is None or not stored
        steps.append((COUNTER_LIMITS, dict(wanted), reason) if whole else (path, value, reason))
        stored = True
    return steps, errors


@transaction.atomic
def fixture_save(
    *,
    fixture: Fixture,
    user: User,
    changes: dict[str, Any],
    reasons: dict[str, str] | None = None,
) -> FixtureVersion:
    """Apply edits given as {dotted spec path: value}; threshold changes need a reason each.

    Every threshold change goes through `apply_override`, so the spec records the value before,
    the new value, who, when and why. Errors come back keyed by dotted spec path.
    """
    require_preparing(fixture.capacity_request, user=user, what="fixture")
    fixture = (
        Fixture.objects.select_for_update(of=("self",))
        .select_related("request", "lot")
        .get(pk=fixture.pk)
    )
    reasons = reasons or {}
    current = fixture.versions.get(number=fixture.current_number)
    spec = copy.deepcopy(current.spec)
    errors: dict[str, list[str]] = {}
    overrides: list[tuple[str, Any, str]] = []
    for path, value in changes.items():
        if path.startswith(("thresholds.busbw_gbps.", COUNTER_LIMITS + ".")):
            continue  # maps that may gain keys: _busbw_changes and _counter_changes below
        found = locate(spec, path)
        added = path in ADDED_DEFAULTS  # a spec stored before the field reads its default
        if found is None or (found[1] not in found[0] and not added):
            raise ServiceError(f"{path} is not a field of the fixture spec.")
        parent, key = found
        if parent.get(key, ADDED_DEFAULTS.get(path)) == value or (
            key not in parent and value is None
        ):
            continue
        if path == "allocation.gpus":
            # Derived below from nodes × GPUs per node; a different number would be dropped.
            errors[path] = ["Set allocation.nodes and allocation.gpus_per_node; gpus follows."]
            continue
        if path.startswith("thresholds."):
            reason = reasons.get(path, "").strip()
            if reason:
                overrides.append((path, value, reason))
            else:
                errors[path] = [REASON_REQUIRED]
        else:
            parent[key] = copy.deepcopy(value)
    alloc = spec["allocation"]
    if isinstance(alloc.get("nodes"), int) and isinstance(alloc.get("gpus_per_node"), int):
        alloc["gpus"] = alloc["nodes"] * alloc["gpus_per_node"]
    busbw_steps, busbw_errors = _busbw_changes(spec, changes, reasons)
    counter_steps, counter_errors = _counter_changes(spec, changes, reasons)
    errors.update(busbw_errors)
    errors.update(counter_errors)
    if errors:
        raise ValidationError(errors)
    spec = _apply_overrides(spec, [*busbw_steps, *counter_steps, *overrides], user=user)
    return _store(fixture=fixture, spec=spec, user=user)


def _apply_overrides(
    spec: dict[str, Any], steps: list[tuple[str, Any, str]], *, user: User
) -> dict[str, Any]:
    """Each threshold change recorded in turn; every refusal comes back keyed by its path."""
    errors: dict[str, list[str]] = {}
    at = timezone.now()
    for path, value, reason in steps:
        try:
            spec = apply_override(
                spec, field=path, value=value, reason=reason, by=user.get_username(), at=at
            )
        except InvalidSpecError as exc:
            for key, messages in spec_errors_to_dict(exc.errors).items():
                errors.setdefault(key, []).extend(messages)
        except ValueError as exc:
            errors.setdefault(path, []).append(str(exc))
    if errors:
        raise ValidationError(errors)
    return spec


def lot_shape(lot: Lot) -> dict[str, Any]:
    """The arguments `default_spec` gets for a lot's own fixture: the request's GPU, fabric and
    placement, the lot's size."""
    return request_shape(lot.request) | {"nodes": lot.nodes, "gpus_per_node": lot.gpus_per_node}


def _lot_choice_refusal(lot: Lot, *, user: User, what: str) -> None:
    """Whether a lot has its own fixture or terms is part of the lot: chosen while the request
    is a draft (the `lots` move), like the lot's size; providers price what was published."""
    request_move(lot.request, "lots", user=user)
    require_preparing(lot.request, user=user, what=what)


@transaction.atomic
def lot_fixture_own(*, lot: Lot, user: User, template: str | None = None) -> FixtureVersion:
    """Give the lot its own fixture, from a template for the lot's size (by default the
    request's fixture's template). A lot that has one starts over from the template; edits then
    go through `fixture_save` like the request's."""
    lot = Lot.objects.select_related("request").get(pk=lot.pk)
    _lot_choice_refusal(lot, user=user, what="fixture")
    own = Fixture.objects.filter(request=lot.request).first()
    if template is None and own is not None:
        template = own.versions.get(number=own.current_number).template
    shape = lot_shape(lot)
    try:
        sku_profile(shape["gpu_model"])
    except KeyError:
        raise ServiceError(
            f"There is no threshold library for {lot.request.get_gpu_model_display()} yet; "
            "templates cover H100, H200, A100, B200 and GB200."
        ) from None
    try:
        spec = default_spec(**shape, template=template or DEFAULT_TEMPLATE)
    except KeyError:
        raise ValidationError({"template": ["Choose one of the templates."]}) from None
    fixture, _created = Fixture.objects.select_for_update().get_or_create(
        lot=lot, defaults={"created_by": user}
    )
    return _store(fixture=fixture, spec=spec, user=user)


@transaction.atomic
def lot_fixture_share(*, lot: Lot, user: User) -> None:
    """The lot goes back to the request's fixture (its own is dropped), while a draft."""
    lot = Lot.objects.select_related("request").get(pk=lot.pk)
    _lot_choice_refusal(lot, user=user, what="fixture")
    fixture = Fixture.objects.select_for_update().filter(lot=lot).first()
    if fixture is None:
        return
    fixture.delete()  # a draft's: no provider has acknowledged it, so its versions go with it
    record_request(
        capacity_request=lot.request,
        action="fixture.lot_share",
        user=user,
        after={"lot": lot.number},
    )
