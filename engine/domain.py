"""Names the whole product shares: collectives, evidence kinds and the chart palette.

Plain Python, so the Django-free parsers and checks read the same lists as the fixture schema,
the forms, the pages, the PDF charts and (through the JSON the views send) the browser charts.
"""

from __future__ import annotations

from collections.abc import Iterable

# nccl-tests binaries are named <collective>_perf; the order is the one forms offer them in.
COLLECTIVES: tuple[str, ...] = (
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "alltoall",
    "alltoallv",
    "broadcast",
    "reduce",
    "sendrecv",
    "gather",
    "scatter",
    "hypercube",
)

COLLECTIVE_SET: frozenset[str] = frozenset(COLLECTIVES)

# Evidence a burn-in run collects, one parser each, with the name a person reads.
EVIDENCE_KIND_LABELS: dict[str, str] = {
    "fixture-result": "Fixture result (rank-sum all-reduce)",
    "nccl-tests": "nccl-tests",
    "nvidia-smi-topo": "Topology (nvidia-smi topo -m)",
    "nvidia-smi-query": "GPUs (nvidia-smi)",
    "dcgmi-diag": "DCGM diagnostics",
    "ibstat": "InfiniBand ports (ibstat)",
    "step-times": "Step times per rank",
    "perfquery": "InfiniBand port counters (perfquery or ibqueryerrors)",
}
EVIDENCE_KINDS: tuple[str, ...] = tuple(EVIDENCE_KIND_LABELS)
# A required kind another tool's output stands in for: the fabric-wide `ibqueryerrors` reads the
# same port error counters as `perfquery` does port by port.
EVIDENCE_ALTERNATIVES: dict[str, tuple[str, ...]] = {"perfquery": ("ibqueryerrors",)}
# A pilot's probes: parsed like burn-in evidence and judged against the floors a fixture may
# agree (checks/probes.py), but never required by default, so a burn-in needs none of them.
PROBE_KIND_LABELS: dict[str, str] = {
    "nvbandwidth": "Host and peer copy bandwidth (nvbandwidth)",
    "perftest": "Fabric bandwidth and latency (perftest ib_write_bw, ib_write_lat...)",
}

# Monitoring captured beside the burn-in: parsed and checked whenever uploaded, required only
# where a fixture lists it in `required_evidence` (a spec built by default does not).
MONITOR_KIND_LABELS: dict[str, str] = {
    "nvidia-smi-dmon": "GPU monitor during the burn-in (nvidia-smi dmon)",
}
# What a fixture's `required_evidence` may name: the burn-in kinds, then the monitoring.
REQUIRABLE_KINDS: tuple[str, ...] = (*EVIDENCE_KINDS, *MONITOR_KIND_LABELS)

# The IB port error counters, as perfquery (infiniband-diags) names them in the PortCounters
# attribute: the fixture's limits, the parser and the checks name a counter the same way.
IB_ERROR_COUNTERS: tuple[str, ...] = (
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
)

# How a person names each counter (forms, pages): the spec and the tools use the names above.
IB_ERROR_COUNTER_LABELS: dict[str, str] = {
    "SymbolErrorCounter": "Symbol errors",
    "LinkErrorRecoveryCounter": "Link error recoveries",
    "LinkDownedCounter": "Link downed",
    "PortRcvErrors": "Port receive errors",
    "PortRcvRemotePhysicalErrors": "Receive remote physical errors",
    "PortRcvSwitchRelayErrors": "Receive switch relay errors",
    "PortXmitDiscards": "Transmit discards",
    "PortXmitConstraintErrors": "Transmit constraint errors",
    "PortRcvConstraintErrors": "Receive constraint errors",
    "LocalLinkIntegrityErrors": "Local link integrity errors",
    "ExcessiveBufferOverrunErrors": "Excessive buffer overrun errors",
    "VL15Dropped": "VL15 packets dropped",
}

# The backends NCCL's GPU-initiated networking (GIN) assigns a communicator, by the names of
# NCCL's ncclGinType_t (NCCL_GIN_TYPE 2, 3, 4, 5): the fixture agrees one, the NCCL log shows one.
COLLECTIVE_BACKENDS: tuple[str, ...] = ("proxy", "gdaki", "gpi", "efa-gda")

# Twelve colours that stay apart in print and on screen, for PDF and browser charts alike.
PALETTE: tuple[str, ...] = (
    "#2455c3",
    "#c0262d",
    "#1a7f37",
    "#9a6700",
    "#8250df",
    "#0a7ea4",
    "#bf3989",
    "#57606a",
    "#e16f24",
    "#6b8e23",
    "#1b1f24",
    "#d4a72c",
)
# A collective keeps its colour from chart to chart, page or PDF.
COLLECTIVE_COLOURS: dict[str, str] = dict(zip(COLLECTIVES, PALETTE, strict=False))


def series_colours(*, names: Iterable[str]) -> dict[str, str]:
    """A colour per series name: a collective gets its own, other names the colours left free,
    in the order given (cycling only past twelve)."""
    ordered = list(dict.fromkeys(names))
    out = {n: COLLECTIVE_COLOURS[n] for n in ordered if n in COLLECTIVE_COLOURS}
    free = [c for c in PALETTE if c not in out.values()] or list(PALETTE)
    others = [n for n in ordered if n not in out]
    out.update({n: free[i % len(free)] for i, n in enumerate(others)})
    return {n: out[n] for n in ordered}
