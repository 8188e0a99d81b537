"""Reads for fixtures and acknowledgements; tenancy comes from the request and bid selectors."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, QuerySet
from django.http import Http404

from acceptance.models import Acknowledgement, Fixture, FixtureReference, FixtureVersion
from bids import selectors as bid_selectors
from bids.models import Bid, CapacityRequest
from bids.request_facts import FixtureTransport
from contracts.models import HandoffTerms, TermsFields
from engine.domain import EVIDENCE_KIND_LABELS, MONITOR_KIND_LABELS, PROBE_KIND_LABELS
from engine.evidence.fixtures import Threshold
from engine.evidence.fixtures.thresholds import (
    FABRICS,
    inter_node_busbw,
    per_gpu_network_gbps,
    single_node_busbw,
    sku_profile,
    sku_thresholds,
    threshold_unit,
)
from engine.formatting import data_size
from orgs.models import Organization

NOT_ACKNOWLEDGED = "not_acknowledged"
# Spec sections a provider may take exception to (the rest is bookkeeping).
EXCEPTION_SECTIONS = (
    "allocation",
    "runtime",
    "tests",
    "thresholds",
    "required_evidence",
    "failure_record",
)


def fixture_for_request(*, capacity_request: CapacityRequest) -> Fixture | None:
    return Fixture.objects.filter(request=capacity_request).first()


def fixture_current_version(*, fixture: Fixture) -> FixtureVersion:
    return fixture.versions.select_related("created_by").get(number=fixture.current_number)


def fixture_references(*, fixture: Fixture) -> QuerySet[FixtureReference]:
    """Every version's reference runs, newest first (a run names the version it was checked
    against)."""
    return (
        FixtureReference.objects.filter(fixture_version__fixture=fixture)
        .select_related("uploaded_by", "fixture_version")
        .defer("parsed")
        .order_by("-uploaded_at", "-pk")
    )


def fixture_version_get(*, fixture: Fixture, number: int) -> FixtureVersion:
    try:
        return fixture.versions.get(number=number)
    except FixtureVersion.DoesNotExist:
        raise Http404 from None


def fixture_version_list(*, fixture: Fixture) -> QuerySet[FixtureVersion]:
    return (
        fixture.versions.select_related("created_by")
        .annotate(ack_count=Count("acknowledgements"))
        .order_by("-number")
    )


def threshold_library(spec: dict[str, Any]) -> dict[str, Threshold]:
    """The library default, with its source, for each threshold path of this spec's shape."""
    try:
        sku = sku_profile(str(spec.get("gpu_model")))
    except KeyError:
        return {}
    fabric = spec.get("fabric") or sku.default_fabric
    alloc = spec["allocation"]
    nodes, per_node = alloc["nodes"], alloc["gpus_per_node"]
    single = spec["tests"]["nccl_tests"].get("per_node") or nodes == 1
    floors = (
        single_node_busbw(sku.gpu_model)
        if single
        else inter_node_busbw(
            gpu_model=sku.gpu_model,
            fabric=fabric,
            nodes=nodes,
            gpus_per_node=per_node,
            nics_per_node=sku.nics_per_node,
        )
    )
    out = {f"thresholds.busbw_gbps.{name}": t for name, t in floors.items()}
    out["thresholds.per_gpu_network_gbps"] = per_gpu_network_gbps(
        fabric=fabric, nics_per_node=sku.nics_per_node, gpus_per_node=per_node
    )
    for t in sku_thresholds(sku.gpu_model, fabric=fabric):
        if not t.key.startswith("busbw_gbps."):
            out.setdefault(f"thresholds.{t.key}", t)
    return out


THRESHOLD_LABELS = {
    "large_message_bytes": "Large messages start at",
    "nvlink_class": "NVLink class (nvidia-smi topo -m)",
    "rail_optimised": "Rail-optimised fabric",
    "dcgm_level": "DCGM diagnostics level",
    "dcgm_warn_policy": "A DCGM warning counts as",
    "ib_rate_gbps": "InfiniBand port rate",
    "ib_ports_per_node": "InfiniBand ports per node",
    "ecc_uncorrected_max": "Uncorrected ECC errors, at most",
    "step_time_tolerance_pct": "Step time above the reference, at most",
    "step_time_spread_pct": "Step time spread across ranks, at most",
    "per_gpu_network_gbps": "Network bandwidth per GPU",
    "burnin_min_minutes": "Workload run, at least",
    "step_time_tail_factor": "Rank p95 step time over the run median, at most",
    "ib_counter_max": "InfiniBand error counters, at most",
    "gpu_temp_limit_c": "GPU temperature in the dmon capture, below",
    "memory_temp_limit_c": "Memory temperature in the dmon capture, below",
}


def threshold_label(key: str) -> str:
    """How people write a threshold ('Bus bandwidth, all-reduce'), not its key in the spec."""
    if key.startswith("busbw_gbps."):
        return f"Bus bandwidth, {key.split('.', 1)[1].replace('_', '-')} (large messages)"
    return THRESHOLD_LABELS.get(key, key.replace("_", " ").capitalize())


def fabric_label(key: Any) -> str:
    """'InfiniBand NDR 400 Gb/s' for 'ndr400-ib'; an unknown key as it was written."""
    fabric = FABRICS.get(str(key)) if key else None
    return fabric.display_name if fabric is not None else str(key or "")


def show_value(key: str, value: Any) -> str:
    if value is None:
        return "none set"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "large_message_bytes" and isinstance(value, int):
        return data_size(value)
    if isinstance(value, dict):  # limits per name, e.g. the IB error counters
        return ", ".join(f"{name} ≤ {limit}" for name, limit in value.items()) or "none set"
    return str(value)


def threshold_rows(*, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Each threshold with its unit, the library default and source, and its last override."""
    library = threshold_library(spec)
    overrides = {o.get("field"): o for o in spec.get("overrides", []) if isinstance(o, dict)}
    rows = []
    th = spec["thresholds"]
    items = [(f"busbw_gbps.{k}", v) for k, v in th["busbw_gbps"].items()]
    items += [(k, v) for k, v in th.items() if k != "busbw_gbps"]
    for key, value in items:
        path = f"thresholds.{key}"
        lib = library.get(path)
        rows.append(
            {
                "path": path,
                "key": key,
                "label": threshold_label(key),
                "value": value,
                "unit": threshold_unit(key),
                "value_text": show_value(key, value),
                "library": lib,
                "library_text": show_value(key, lib.value) if lib else "",
                "differs": lib is not None and lib.value != value,
                "override": overrides.get(path),
            }
        )
    return rows


FAILURE_RECORD_LABELS = {
    "launch_command": "Launch command",
    "worker_gpu_map": "Worker → GPU map",
    "per_worker_logs": "Per-worker logs",
    "missing_records_list": "List of missing records",
    "flight_recorder_dumps": "Flight Recorder dumps (one per rank)",
    "scheduler_output": "Scheduler output (Slurm job output, or the pods' describe and events)",
}


def failure_record_items(*, spec: dict[str, Any]) -> list[str]:
    record = spec.get("failure_record") or {}
    return [FAILURE_RECORD_LABELS.get(k, k) for k, wanted in record.items() if wanted]


def required_evidence_items(*, spec: dict[str, Any]) -> list[str]:
    """The files a burn-in must hold, by the names the upload form gives them."""
    labels = {**EVIDENCE_KIND_LABELS, **MONITOR_KIND_LABELS, **PROBE_KIND_LABELS}
    return [labels.get(kind, kind) for kind in spec.get("required_evidence") or []]


def _leaves(value: Any, path: str) -> list[str]:
    if isinstance(value, dict) and value and path != "runtime.env":
        return [p for key in value for p in _leaves(value[key], f"{path}.{key}")]
    return [path]


def exception_field_choices(
    *, version: FixtureVersion | None, terms: HandoffTerms | None
) -> list[tuple[str, str]]:
    """What an exception may point at: spec paths of the fixture, then `terms.<field>`."""
    choices: list[tuple[str, str]] = []
    if version is not None:
        for section in EXCEPTION_SECTIONS:
            for path in _leaves(version.spec.get(section), section):
                choices.append((path, f"Fixture · {path}"))
    if terms is not None:
        for name in TermsFields.term_field_names():
            label = str(getattr(TermsFields._meta.get_field(name), "verbose_name", name))
            choices.append((f"terms.{name}", f"Terms · {label[:1].upper()}{label[1:]}"))
    return choices


@dataclass
class AckState:
    """A bid's newest acknowledgement and whether it still covers what the buyer asks now."""

    ack: Acknowledgement | None
    stale_reasons: list[str] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        return bool(self.stale_reasons)

    @property
    def scoring(self) -> tuple[str, int]:
        if self.ack is None or self.stale:
            return NOT_ACKNOWLEDGED, 0
        return self.ack.status, len(self.ack.exceptions)


def stale_reasons(
    *,
    acked_fixture: int | None,
    fixture_now: int | None,
    acked_terms: int | None,
    terms_now: int | None,
) -> list[str]:
    """Why an acknowledgement no longer covers the request (`*_now` is None where the request
    has no fixture or no terms)."""
    reasons = []
    if fixture_now is not None and acked_fixture != fixture_now:
        was = f"version {acked_fixture}" if acked_fixture else "no fixture"
        reasons.append(f"the fixture is now version {fixture_now} (you acknowledged {was})")
    if terms_now is not None and acked_terms != terms_now:
        was = f"version {acked_terms}" if acked_terms else "no terms"
        reasons.append(f"the handoff terms are now version {terms_now} (you acknowledged {was})")
    return reasons


def _state(ack: Acknowledgement | None, capacity_request: CapacityRequest) -> AckState:
    if ack is None:
        return AckState(ack=None)
    fixture: Fixture | None = getattr(capacity_request, "fixture", None)
    terms: HandoffTerms | None = getattr(capacity_request, "handoff_terms", None)
    reasons = stale_reasons(
        acked_fixture=ack.fixture_version.number if ack.fixture_version is not None else None,
        fixture_now=fixture.current_number if fixture is not None else None,
        acked_terms=ack.terms_revision.number if ack.terms_revision is not None else None,
        terms_now=terms.version if terms is not None else None,
    )
    return AckState(ack=ack, stale_reasons=reasons)


def _latest_acks(bid_ids: Iterable[int]) -> dict[int, Acknowledgement]:
    acks = (
        Acknowledgement.objects.of_request()
        .filter(bid_id__in=list(bid_ids))
        .select_related(
            "by",
            "fixture_version",
            "terms_revision",
            "bid__request__fixture",
            "bid__request__handoff_terms",
        )
        .order_by("bid_id", "-at", "-pk")
    )
    latest: dict[int, Acknowledgement] = {}
    for ack in acks:
        latest.setdefault(ack.bid_id, ack)
    return latest


def acknowledgement_state(*, bid: Bid) -> AckState:
    ack = _latest_acks([bid.pk]).get(bid.pk)
    return _state(ack, ack.bid.request if ack else bid.request)


def acknowledgement_for_bid(bid: Bid) -> tuple[str, int]:
    """For scoring: ("accepted" | "accepted_with_exceptions" | "not_acknowledged", exceptions).

    An acknowledgement of a fixture version or terms revision that has since been replaced
    counts as not acknowledged until the provider acknowledges again.
    """
    return acknowledgement_state(bid=bid).scoring


def acknowledgements_for_bids(bids: Iterable[Bid | int]) -> dict[int, tuple[str, int]]:
    """`acknowledgement_for_bid` for many bids in one query; every id given gets an entry.

    Scoring's fingerprint calls this on every comparison read, so it reads the few columns the
    verdict needs rather than seven joined models a row (a third of a 20-bid API call)."""
    ids = [b if isinstance(b, int) else b.pk for b in bids]
    rows = (
        Acknowledgement.objects.of_request()
        .filter(bid_id__in=ids)
        .order_by("bid_id", "-at", "-pk")
        .values_list(
            "bid_id",
            "status",
            "exceptions",
            "fixture_version__number",
            "bid__request__fixture__current_number",
            "terms_revision__number",
            "bid__request__handoff_terms__version",
        )
    )
    out: dict[int, tuple[str, int]] = dict.fromkeys(ids, (NOT_ACKNOWLEDGED, 0))
    seen: set[int] = set()
    for bid_id, status, exceptions, acked_fixture, fixture_now, acked_terms, terms_now in rows:
        if bid_id in seen:
            continue  # an older acknowledgement of the same bid
        seen.add(bid_id)
        stale = stale_reasons(
            acked_fixture=acked_fixture,
            fixture_now=fixture_now,
            acked_terms=acked_terms,
            terms_now=terms_now,
        )
        if not stale:
            out[bid_id] = (status, len(exceptions or []))
    return out


def acknowledgement_rows_for_buyer(
    *, capacity_request: CapacityRequest
) -> list[tuple[Bid, AckState]]:
    """Each visible bid with its acknowledgement; empty while the request is sealed."""
    bids = list(bid_selectors.bid_list_for_buyer(capacity_request=capacity_request))
    latest = _latest_acks(b.pk for b in bids)
    return [
        (
            bid,
            _state(
                latest.get(bid.pk),
                latest[bid.pk].bid.request if bid.pk in latest else capacity_request,
            ),
        )
        for bid in bids
    ]


def provider_owners(
    *, capacity_request: CapacityRequest, org: Organization | None
) -> list[tuple[str, Any]]:
    """(provider, acknowledgement) naming an incident owner: every visible bid for the buyer,
    else the provider's own (providers name their owner when they acknowledge)."""
    if org is None:
        return []
    if org.is_buyer:
        rows = acknowledgement_rows_for_buyer(capacity_request=capacity_request)
    else:
        bid = bid_selectors.own_bid(capacity_request=capacity_request, org=org)
        rows = [(bid, acknowledgement_state(bid=bid))] if bid else []
    return [
        (bid.provider.name, state.ack)
        for bid, state in rows
        if state.ack is not None and state.ack.provider_owner_name
    ]


def fixture_transport_of(capacity_request: CapacityRequest) -> FixtureTransport | None:
    """The transport the newest fixture version names, for the questionnaire's path check."""
    version = (
        FixtureVersion.objects.filter(fixture__request=capacity_request).order_by("-number").first()
    )
    runtime = version.spec.get("runtime") if version and isinstance(version.spec, dict) else None
    transport = runtime.get("transport") if isinstance(runtime, dict) else None
    if version is None or not transport:
        return None
    return FixtureTransport(transport=str(transport), version=version.number)
