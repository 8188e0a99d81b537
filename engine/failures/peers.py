"""NCCL's socket errors that name the remote end: the rank that reports them lost its peer.

NCCL's `misc/socket.cc` warns `socketProgress: Connection closed by remote peer <host><port>`
(`Net : Connection closed by remote peer …` before 2.12) when a `recv` reads end-of-file, and
`socketProgressOpt: Call to recv from <ip><port> failed : Connection reset by peer` when it fails
(`Net : Call to recv from …` before). The host is a name where NCCL could resolve one
(`gpu-node-7.cluster.local<38461>`), else an address. PyTorch repeats the same text under `Last
error:` after `ncclRemoteError` ("remote process exited or there was a network error") or
`ncclSystemError`. A rank that could not connect (`socketStartConnect: Connect to <ip><port>
failed : Connection refused`) names its peer the same way. The reporting rank only waited on
that peer: the remote end is the suspect.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .model import UNNAMED_NODE, Event

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("by remote peer", "Call to recv from", "Connect to ")

_CLOSED = re.compile(r"Connection closed by remote peer \[?([^\s<\]]+)\]?<(\d+)>")
_RECV = re.compile(r"Call to recv from \[?([^\s<\]]+)\]?<(\d+)> failed\s*:\s*(.+)")
# `socketStartConnect: Connect to 10.0.0.12<49211> failed : Connection refused` (`Net : Connect
# to …` before 2.12): the peer's end was gone or unreachable when this rank dialled it.
_CONNECT = re.compile(r"Connect to \[?([^\s<\]]+)\]?<(\d+)> failed\s*:\s*(.+)")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    """`peer_lost` with the remote host for one of NCCL's socket lines, else None."""
    m = _CLOSED.search(body)
    if m is not None:
        cause = "connection closed by the remote peer"
    else:
        m = _RECV.search(body)
        verb = "recv from"
        if m is None:
            m, verb = _CONNECT.search(body), "connecting to"
        if m is None:
            return None
        cause = f"{verb} the remote peer failed: {m.group(3).strip()[:80]}"
    host = m.group(1)
    detail: dict[str, Any] = {
        "peer_host": host, "peer_port": int(m.group(2)), "cause": cause,
        "secondary": True, "tier": 3,
    }  # fmt: skip
    if _IPV4.fullmatch(host):
        detail["peer_ip"] = host
    return "peer_lost", detail


def peer_node(detail: dict[str, Any], ip_nodes: dict[str, str]) -> str | None:
    """The node a report names: its address through the rank map, else its host's short name."""
    ip = detail.get("peer_ip")
    if isinstance(ip, str):
        return ip_nodes.get(ip, ip)
    host = detail.get("peer_host")
    if not isinstance(host, str) or not host:
        return None
    return host if ":" in host else host.split(".", 1)[0]  # an IPv6 address stays whole


SUSPECT = "remote_peer_failed"


def suspects(
    events: list[Event],
    *,
    ip_nodes: dict[str, str],
    ranks_on: Callable[[str], list[int]],
) -> list[Event]:
    """One event per remote node that some rank lost its connection to, at the first report of
    it: the node is named, and its rank where the rank map puts one rank there. A report by a
    rank of that same node (its own end closing) names no one."""
    _follow_ups(events)
    first: dict[str, list[Event]] = {}
    for e in events:
        # A restarted container dialling its old peers reports the first failure's aftermath.
        if e.kind != "peer_lost" or e.detail.get("after_restart"):
            continue
        node = peer_node(e.detail, ip_nodes)
        if node is None or node == e.node:
            continue
        e.detail["peer_node"] = node
        first.setdefault(node, []).append(e)
    out = []
    for node, reports in first.items():
        timed = [e for e in reports if e.time_utc is not None]
        src = min(timed, key=_time) if timed else reports[0]
        out.append(_suspect(node, src, reports, ranks_on(node)))
    return out


# NCCL's proxy thread reports the same loss a few lines later (`Socket recv failed while
# polling for opId=…`): the reporting rank's own follow-up, not a fault of its own.
_FOLLOW_UP_LINES = 20


def _follow_ups(events: list[Event]) -> None:
    lost = {(e.source, e.detail.get("pid", e.rank)): e.line_no
            for e in reversed(events) if e.kind == "peer_lost"}  # fmt: skip
    for e in events:
        if e.kind != "nccl_warn_transport" or "peer_ip" in e.detail:
            continue
        at = lost.get((e.source, e.detail.get("pid", e.rank)))
        if at is not None and 0 < e.line_no - at <= _FOLLOW_UP_LINES:
            e.detail.update(secondary=True, tier=3, follows_line=at)


def _time(e: Event) -> datetime:
    assert e.time_utc is not None
    return e.time_utc


def _suspect(node: str, src: Event, reports: list[Event], ranks: list[int]) -> Event:
    by = sorted({e.rank for e in reports if e.rank is not None})
    where = src.node or UNNAMED_NODE
    who = f"rank {src.rank}" if src.rank is not None else f"a rank on {where}"
    detail: dict[str, Any] = {
        "tier": 1, "secondary": False, "from": "NCCL socket error", "peer_lost": True,
        "reported_by": by[:64], "peer_host": src.detail.get("peer_host"),
        "cause": f"{who} lost its NCCL socket connection to {node} "
                 f"({src.detail.get('cause')}): {node}'s process exited or the network to it "
                 "failed",
    }  # fmt: skip
    for key in ("time_range", "time_from", "time_inferred"):
        if key in src.detail:
            detail[key] = src.detail[key]
    if len(ranks) > 1:
        detail["ranks_on_node"] = ranks[:64]
    rank = ranks[0] if len(ranks) == 1 else None
    text = f"{who} lost its NCCL peer on {node}: {src.text}"[:400]
    return Event(src.time_utc, rank, node, src.source, src.line_no, SUSPECT, text, detail)
