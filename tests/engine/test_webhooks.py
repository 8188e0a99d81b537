"""The webhook rules without Django: the signature a receiver checks, the retry schedule, the
refused target addresses, and the Slack and PagerDuty shapes."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from engine import webhooks

PAYLOAD = {
    "version": 1,
    "id": "4b6f0e9e-6d55-4a55-9a0c-2f5b8a4c1e21",
    "type": "clock_warning",
    "occurred_at": "2026-02-03T10:15:00Z",
    "organization": {"slug": "helix", "name": "Helix Labs", "kind": "buyer"},
    "data": {
        "subject": "Restore clock at 75 % on <gpu-03> & co",
        "text": "S2 incident: 45 of 60 minutes used.",
        "url": "https://cb.example/incidents/7/",
    },
}


def test_the_signature_is_hmac_sha256_over_timestamp_dot_body():
    body = webhooks.body_bytes(PAYLOAD)
    expected = hmac.new(b"whsec_x", b"1700000000." + body, hashlib.sha256).hexdigest()
    header = webhooks.signature_header(secrets=["whsec_x"], timestamp=1700000000, body=body)
    assert header == f"t=1700000000,v1={expected}"


def test_a_rotation_signs_with_both_secrets_the_new_one_first():
    header = webhooks.signature_header(secrets=["new", "old"], timestamp=1, body=b"{}")
    new = webhooks.signature(secret="new", timestamp=1, body=b"{}")
    old = webhooks.signature(secret="old", timestamp=1, body=b"{}")
    assert header == f"t=1,v1={new},v1={old}"


def test_the_body_is_compact_sorted_utf8():
    assert webhooks.body_bytes({"b": "€", "a": 1}) == '{"a":1,"b":"€"}'.encode()


def test_retries_wait_twice_as_long_each_time_up_to_the_cap():
    waits = [webhooks.backoff_seconds(attempt=n, base=60, cap=600) for n in range(1, 7)]
    assert waits == [60, 120, 240, 480, 600, 600]
    with pytest.raises(ValueError, match="attempt must be 1 or more"):
        webhooks.backoff_seconds(attempt=0, base=60, cap=600)


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("172.16.5.5", "private"),
        ("169.254.169.254", "link-local"),
        ("::ffff:127.0.0.1", "loopback"),
        ("fd00::1", "private"),
        ("100.64.0.1", "not a public"),
        ("0.0.0.0", "this host"),
    ],
)
def test_non_public_addresses_are_refused_with_a_reason(address, why):
    assert why in (webhooks.address_refusal(address) or "")


def test_public_addresses_pass():
    assert webhooks.address_refusal("93.184.216.34") is None
    assert webhooks.address_refusal("2606:4700::1111") is None


def test_slack_gets_its_own_text_with_the_control_characters_escaped():
    message = webhooks.slack_message(PAYLOAD)
    assert message == {
        "text": "*Restore clock at 75 % on &lt;gpu-03&gt; &amp; co*\n"
        "S2 incident: 45 of 60 minutes used.\n<https://cb.example/incidents/7/|Open in Clusterbid>"
    }


def test_pagerduty_triggers_with_a_severity_and_resolves_on_close_under_one_dedup_key():
    warning = webhooks.pagerduty_event(PAYLOAD, routing_key="R" * 32)
    assert warning["event_action"] == "trigger"
    assert warning["payload"]["severity"] == "warning"
    assert warning["payload"]["summary"].startswith("Restore clock")
    assert warning["links"] == [
        {"href": "https://cb.example/incidents/7/", "text": "Open in Clusterbid"}
    ]
    closed = webhooks.pagerduty_event({**PAYLOAD, "type": "incident_closed"}, routing_key="R")
    assert closed["event_action"] == "resolve" and "payload" not in closed
    assert (
        closed["dedup_key"]
        == warning["dedup_key"]
        == "clusterbid:helix:https://cb.example/incidents/7/"
    )
