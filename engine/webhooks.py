"""Webhook deliveries without Django: the signature, the retry schedule, which target addresses
are refused, and the Slack and PagerDuty shapes of an event's payload.

The generic payload (version 1) is `{"version", "id", "type", "occurred_at", "organization",
"data": {"subject", "text", "url"}}`; docs/webhooks.md documents it per event type.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from collections.abc import Iterable, Mapping
from typing import Any

PAYLOAD_VERSION = 1
SIGNATURE_HEADER = "Clusterbid-Signature"
# A receiver refuses a signature older than this (replay protection); docs/webhooks.md says so.
TOLERANCE_SECONDS = 300

# PagerDuty: what each event means for an on-call person. Unlisted events are "info".
PAGERDUTY_SEVERITY = {
    "incident_opened": "critical",
    "clock_breached": "critical",
    "clock_warning": "warning",
    "maintenance_announced": "info",
}
# Events that end what an earlier event of the same object triggered.
PAGERDUTY_RESOLVES = frozenset({"incident_closed"})
PAGERDUTY_SUMMARY_MAX = 1024  # the Events API v2 refuses a longer summary


def body_bytes(payload: Mapping[str, Any]) -> bytes:
    """The exact bytes sent and signed: compact, keys sorted, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """HMAC-SHA256, hex, over `"<timestamp>." + body`."""
    message = f"{timestamp}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(*, secrets: Iterable[str], timestamp: int, body: bytes) -> str:
    """`t=<unix seconds>,v1=<hex>[,v1=<hex>]`: one v1 per secret in force (the new one first;
    the previous one too while a rotation's grace period lasts)."""
    parts = [f"t={timestamp}"]
    parts += [f"v1={signature(secret=s, timestamp=timestamp, body=body)}" for s in secrets]
    return ",".join(parts)


def backoff_seconds(*, attempt: int, base: int, cap: int) -> int:
    """The wait before the attempt after `attempt` (1-based): base, 2·base, 4·base, … capped."""
    if attempt < 1:
        raise ValueError(f"attempt must be 1 or more, got {attempt}")
    return int(min(base * 2 ** (attempt - 1), cap))


def address_refusal(address: str) -> str | None:
    """Why a delivery may not go to this IP address (private, loopback, link-local, reserved,
    multicast: anything not globally routable), or None when it may."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return f"{ip} is a loopback address"
    if ip.is_unspecified:
        return f"{ip} is no address (it means this host)"
    if ip.is_link_local:
        return f"{ip} is a link-local address (cloud metadata services live there)"
    if ip.is_private:
        return f"{ip} is a private address"
    if not ip.is_global or ip.is_multicast:
        return f"{ip} is not a public address"
    return None


def slack_message(payload: Mapping[str, Any]) -> dict[str, Any]:
    """What a Slack incoming webhook accepts: `text` (mrkdwn), which Slack shows as posted."""
    data = payload["data"]
    text = f"*{_slack_escape(data['subject'])}*\n{_slack_escape(data['text'])}"
    if data.get("url"):
        text += f"\n<{data['url']}|Open in Clusterbid>"
    return {"text": text}


def _slack_escape(text: str) -> str:
    # Slack's mrkdwn reads these three as control characters.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def pagerduty_event(payload: Mapping[str, Any], *, routing_key: str) -> dict[str, Any]:
    """An Events API v2 event. Events of one object (an incident's page) share a dedup key, so
    its clock warnings join the alert its opening triggered, and its close resolves it."""
    data = payload["data"]
    kind = payload["type"]
    organization = payload["organization"]["slug"]
    dedup_key = f"clusterbid:{organization}:{data.get('url') or payload['id']}"
    event: dict[str, Any] = {"routing_key": routing_key, "dedup_key": dedup_key[:255]}
    if kind in PAGERDUTY_RESOLVES:
        event["event_action"] = "resolve"
        return event
    event["event_action"] = "trigger"
    event["payload"] = {
        "summary": data["subject"][:PAGERDUTY_SUMMARY_MAX],
        "source": "clusterbid",
        "severity": PAGERDUTY_SEVERITY.get(kind, "info"),
        "timestamp": payload["occurred_at"],
        "component": kind,
        "custom_details": {"text": data["text"], "event_id": payload["id"]},
    }
    if data.get("url"):
        event["links"] = [{"href": data["url"], "text": "Open in Clusterbid"}]
    return event
