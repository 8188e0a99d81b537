"""Reads for billing: uploads behind tenancy (the reservation's buyer and awarded provider; a 404
for everyone else), and the contract a reconciliation checks lines against."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import Reservation
from bids.models.requests import term_end_utc
from billing.models import UsageDifference, UsageMapping, UsageUpload
from contracts.defaults import STANDARD
from engine.billing import Contract, Mapping, Outage, to_micro
from engine.billing.parquet import is_parquet
from engine.billing.preview import Preview, preview, preview_rows
from engine.billing.reader import is_xlsx
from engine.packed import gunzipped_head
from incidents.models import Incident
from incidents.selectors import contract_shape, reservation_nodes, terms_for


def _party(org_ids: Iterable[int]) -> Q:
    ids = list(org_ids)
    return Q(reservation__request__buyer_id__in=ids) | Q(reservation__bid__provider_id__in=ids)


def usage_upload_get(*, org_ids: Iterable[int], pk: int) -> UsageUpload:
    try:
        return (
            UsageUpload.objects.select_related(
                "reservation__request__buyer",
                "reservation__bid__provider",
                "reservation__bid_revision",
                "uploaded_by",
            )
            .filter(_party(org_ids))
            .get(pk=pk)
        )
    except UsageUpload.DoesNotExist:
        raise Http404 from None


def usage_uploads(*, reservation: Reservation) -> QuerySet[UsageUpload]:
    return (
        UsageUpload.objects.filter(reservation=reservation)
        .select_related("uploaded_by")
        .order_by("-uploaded_at", "-pk")
    )


def differences(*, upload: UsageUpload, rule: str = "") -> QuerySet[UsageDifference]:
    rows = upload.differences.order_by("line", "pk")
    return rows.filter(rule=rule) if rule else rows


HEAD_BYTES = 256 * 1024  # enough for a CSV's header and the preview's first rows


def usage_head(*, upload: UsageUpload) -> bytes:
    """The start of a stored CSV (its header and first rows), or a whole workbook or Parquet file
    (neither can be read in part): the upload and the mapping page never read a year of lines."""
    with upload.file.open("rb") as handle:
        data = handle.read(HEAD_BYTES)
        if is_xlsx(data) or is_parquet(data):
            data += handle.read()
    data = data if isinstance(data, bytes) else data.encode()
    return gunzipped_head(data, size=HEAD_BYTES)  # a gzipped export's start, unpacked


def usage_preview(*, upload: UsageUpload, mapping: Mapping) -> Preview:
    """The first rows as `mapping` reads them, from the rows kept at upload (a file uploaded
    before they were kept is read once more, from its head)."""
    head = (upload.inspection or {}).get("head")
    if head is None:
        return preview(usage_head(upload=upload), mapping, name=upload.original_name)
    rows = [(int(line), [str(c) for c in cells]) for line, cells in head]
    return preview_rows(upload.headers, rows, mapping)


def provider_mapping(*, provider_id: int) -> UsageMapping | None:
    return UsageMapping.objects.filter(provider_id=provider_id).first()


def _micro(value: Any) -> int | None:
    return None if value is None else to_micro(str(value))


def _seconds(moment: datetime) -> int:
    return int(moment.timestamp())


def outages(*, reservation: Reservation, until: datetime) -> list[Outage]:
    """The nodes out of service, from the incidents whose severity the terms count as downtime:
    opened to restored (still open: to `until`); an incident naming no node took them all. A
    degraded S2 the terms count at a share (`degraded_downtime_pct`) is out for that share."""
    _, terms, _ = terms_for(reservation)
    if not terms.get("outage_not_billed", STANDARD["outage_not_billed"]):
        return []
    severities = list(terms.get("downtime_severities") or STANDARD["downtime_severities"])
    whole = terms.get("whole_allocation_severities", STANDARD["whole_allocation_severities"])
    degraded = Decimal(str(terms.get("degraded_downtime_pct") or 0))
    shares = dict.fromkeys(severities, 1000)
    if "S2" not in shares and degraded > 0:
        shares["S2"] = int(degraded * 10)
    rows = Incident.objects.filter(reservation=reservation, severity__in=list(shares)).only(
        "pk", "severity", "nodes", "opened_at", "restored_at"
    )
    found = []
    for incident in rows.order_by("opened_at", "pk"):
        end = incident.restored_at or until
        share = shares[incident.severity]
        label = f"incident #{incident.pk} ({incident.severity}" + (
            f", {share / 10:g} % of it)" if share != 1000 else ")"
        )
        # A whole-allocation severity (S1) takes every node out, whichever it names.
        for node in (incident.nodes if incident.severity not in (whole or ()) else []) or [""]:
            start = _seconds(incident.opened_at)
            found.append(Outage(str(node), start, _seconds(end), label, share))
    return found


def contract_for(*, reservation: Reservation, credits_usd: Decimal = Decimal(0)) -> Contract:
    """What the contract allows: accepted time from the clock start to the term's end, the bid's
    rate, fees and egress over the term (in USD, as bids are), the outages not to be billed, and
    the allocation: the awarded shape's nodes and GPUs per node, with the node names the
    hand-over burn-in ran on where it says. `credits_usd` is the seam for SLA credits (computed
    in `delivery`, which billing does not import)."""
    clock = reservation.clock_start
    if clock is None:
        raise ValueError("The reservation has not been accepted: it has no term yet.")
    end = term_end_utc(reservation.term_end)
    revision = reservation.bid_revision
    nodes, per_node, _ = contract_shape(reservation)
    return Contract(
        clock_start=_seconds(clock),
        term_end=_seconds(end),
        rate=_micro(reservation.price_per_gpu_hour) or 0,
        fees=_micro(revision.fees_usd),
        egress=_micro(revision.egress_usd),
        outages=outages(reservation=reservation, until=end),
        credits=to_micro(str(credits_usd)),
        nodes=tuple(contract_nodes(reservation=reservation)),
        node_count=nodes,
        node_gpus=per_node,
        currency="USD",
    )


def contract_nodes(*, reservation: Reservation) -> list[str]:
    """The allocation's node names, as incidents know them too (incidents.selectors)."""
    return reservation_nodes(reservation)


def node_gpus(*, reservation: Reservation) -> int | None:
    """GPUs per node as requested: how a line naming no instance type is counted."""
    size = reservation.lot if reservation.lot is not None else reservation.request
    return size.gpus_per_node or None
