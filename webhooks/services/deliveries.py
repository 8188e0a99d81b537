"""What an organisation's endpoints are sent: one event per notice occurrence, one delivery per
subscribed endpoint, queued on commit; each attempt claimed, sent, logged, and retried with
exponential backoff up to WEBHOOK_MAX_ATTEMPTS; a redelivery asked for on the page.

Tenancy: the payload holds only the words of the notice `notify` addresses to that organisation
(subject, text, its page's link), which the senders already keep within what it may see, a
sealed request's silence included; nothing is looked up besides.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.members import record_org_action
from core.errors import Conflict
from core.queueing import runs_in_process, send_task
from core.secrets import SecretKeyError
from engine import webhooks as rules
from notices.services import absolute_url
from orgs.models import Organization
from webhooks import transport
from webhooks.choices import DeliveryState, PayloadFormat
from webhooks.models import Attempt, Delivery, Endpoint, Event
from webhooks.services.endpoints import _require_admin, routing_key, secrets_in_force

USER_AGENT = "Clusterbid-Webhooks/1"
# A delivery due this long ago and still waiting lost its message (a broker restart): re-sent.
SWEEP_GRACE = timedelta(seconds=60)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _payload(
    *, event: Event, organization: Organization, subject: str, text: str, path: str
) -> dict[str, Any]:
    return {
        "version": rules.PAYLOAD_VERSION,
        "id": str(event.public_id),
        "type": event.event_type,
        "occurred_at": _stamp(event.occurred_at),
        "organization": {
            "slug": organization.slug,
            "name": organization.name,
            "kind": organization.kind,
        },
        "data": {"subject": subject, "text": text, "url": absolute_url(path)},
    }


def event_record(
    *,
    organization: Organization,
    event: str,
    subject: str,
    body: str,
    path: str,
    key: str,
) -> list[Delivery]:
    """Store the occurrence once for `organization` and queue a delivery to each of its active
    endpoints subscribed to `event`, after the caller's transaction commits. An organisation
    with no such endpoint costs one query and stores nothing."""
    endpoints = [
        e
        for e in Endpoint.objects.filter(organization=organization, active=True)
        if event in e.events
    ]
    if not endpoints:
        return []
    now = timezone.now()
    stored = Event.objects.filter(organization=organization, key=key).first()
    if stored is None:
        stored = Event(organization=organization, event_type=event, key=key[:160], occurred_at=now)
        stored.payload = _payload(
            event=stored, organization=organization, subject=subject, text=body, path=path
        )
        try:
            with transaction.atomic():
                stored.save()
        except IntegrityError:
            return []  # a concurrent sender stored it and queued its deliveries
    made = []
    for endpoint in endpoints:
        delivery, created = Delivery.objects.get_or_create(
            endpoint=endpoint,
            event=stored,
            defaults={
                "attempts_allowed": settings.WEBHOOK_MAX_ATTEMPTS,
                "queued_at": now,
                "next_attempt_at": now,
            },
        )
        if created:
            _queue(delivery)
            made.append(delivery)
    return made


def _queue(delivery: Delivery, *, countdown: int | None = None) -> None:
    from webhooks.tasks import deliver

    pk = delivery.pk
    what = f"Webhook delivery {delivery.public_id}"
    transaction.on_commit(
        lambda: send_task(deliver, pk, what=what, quiet=True, countdown=countdown)
    )


def _claim(delivery_id: int, now: datetime) -> Delivery | str:
    """Mark a due, waiting delivery as being sent (so a duplicate task message does nothing);
    else say why there is nothing to send."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("endpoint", "event", "endpoint__organization")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:
            return "gone"
        if delivery.state != DeliveryState.PENDING:
            return f"already {delivery.state}"
        if delivery.next_attempt_at and delivery.next_attempt_at > now:
            return "not due"
        if not delivery.endpoint.active:
            delivery.state = DeliveryState.FAILED
            delivery.save(update_fields=["state"])
            return "endpoint disabled"
        delivery.state = DeliveryState.SENDING
        delivery.claimed_at = now
        delivery.save(update_fields=["state", "claimed_at"])
        return delivery


def _request(delivery: Delivery, now: datetime) -> tuple[bytes, dict[str, str]]:
    endpoint, payload = delivery.endpoint, delivery.event.payload
    if endpoint.payload_format == PayloadFormat.SLACK:
        body = rules.body_bytes(rules.slack_message(payload))
    elif endpoint.payload_format == PayloadFormat.PAGERDUTY:
        key = routing_key(endpoint=endpoint)
        body = rules.body_bytes(rules.pagerduty_event(payload, routing_key=key))
    else:
        body = rules.body_bytes(payload)
    signature = rules.signature_header(
        secrets=secrets_in_force(endpoint=endpoint, now=now),
        timestamp=int(now.timestamp()),
        body=body,
    )
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        rules.SIGNATURE_HEADER: signature,
        "Clusterbid-Event": delivery.event.event_type,
        "Clusterbid-Event-Id": str(delivery.event.public_id),
        "Clusterbid-Delivery": str(delivery.public_id),
        "Clusterbid-Attempt": str(delivery.attempts + 1),
    }
    return body, headers


def delivery_attempt(*, delivery_id: int) -> str:
    """Send one due delivery once and log the attempt; a refused one is queued again after its
    backoff until its attempts run out. What happened, in a word."""
    started = timezone.now()
    claimed = _claim(delivery_id, started)
    if isinstance(claimed, str):
        return claimed
    try:
        body, headers = _request(claimed, started)
    except SecretKeyError as exc:
        # Not sent: logged as a failed attempt that retries, so listing the old key again
        # (SIGNING_KEY_PREVIOUS) lets it through without anyone redelivering by hand.
        failed = transport.Outcome(status_code=None, latency_ms=0, error=exc.messages[0][:300])
        return _record(claimed.pk, started, failed)
    outcome = transport.post(
        url=claimed.endpoint.url,
        body=body,
        headers=headers,
        timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
        allow_private=settings.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    )
    return _record(claimed.pk, started, outcome)


@transaction.atomic
def _record(delivery_id: int, started: datetime, outcome: transport.Outcome) -> str:
    delivery = Delivery.objects.select_for_update().get(pk=delivery_id)
    delivery.attempts += 1
    Attempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        started_at=started,
        status_code=outcome.status_code,
        latency_ms=outcome.latency_ms,
        error=outcome.error,
        succeeded=outcome.succeeded,
        requested_by_id=delivery.redelivery_by_id,
    )
    delivery.redelivery_by = None
    delivery.claimed_at = None
    if outcome.succeeded:
        delivery.state, delivery.next_attempt_at = DeliveryState.DELIVERED, None
    elif delivery.attempts >= delivery.attempts_allowed:
        delivery.state, delivery.next_attempt_at = DeliveryState.FAILED, None
    else:
        wait = rules.backoff_seconds(
            attempt=delivery.attempts,
            base=settings.WEBHOOK_RETRY_BASE_SECONDS,
            cap=settings.WEBHOOK_RETRY_MAX_SECONDS,
        )
        delivery.state = DeliveryState.PENDING
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
        delivery.queued_at = timezone.now()
        # In-process (no broker) nothing can wait: the sweep, or a redelivery, sends it.
        if not runs_in_process():
            _queue(delivery, countdown=wait)
    delivery.save()
    return delivery.state


@transaction.atomic
def delivery_redeliver(*, delivery: Delivery, user: User) -> Delivery:
    """Send it again now, once more than its attempts so far (a delivered one too: the
    receiver lost it). Refused while an attempt is under way."""
    endpoint = delivery.endpoint
    _require_admin(organization=endpoint.organization, user=user)
    delivery = Delivery.objects.select_for_update().get(pk=delivery.pk)
    if delivery.state == DeliveryState.SENDING:
        raise Conflict("An attempt is under way; redeliver once it has ended.")
    if not endpoint.active:
        raise Conflict("The endpoint is disabled: enable it before redelivering.")
    now = timezone.now()
    delivery.state = DeliveryState.PENDING
    delivery.attempts_allowed = max(delivery.attempts_allowed, delivery.attempts + 1)
    delivery.next_attempt_at = delivery.queued_at = now
    delivery.redelivery_by = user
    delivery.save()
    record_org_action(
        organization=endpoint.organization,
        user=user,
        action="webhook.redeliver",
        after={
            "endpoint": str(endpoint.public_id),
            "delivery": str(delivery.public_id),
            "event": delivery.event.event_type,
        },
    )
    _queue(delivery)
    return delivery


def deliveries_sweep(*, now: datetime | None = None) -> int:
    """Put attempts whose worker was lost back in line, and re-send deliveries whose retry is
    overdue (their message was lost). How many were sent."""
    now = now or timezone.now()
    lost = now - timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS) - SWEEP_GRACE
    Delivery.objects.filter(state=DeliveryState.SENDING, claimed_at__lt=lost).update(
        state=DeliveryState.PENDING, claimed_at=None, next_attempt_at=now - SWEEP_GRACE
    )
    due = list(
        Delivery.objects.filter(
            state=DeliveryState.PENDING, next_attempt_at__lte=now - SWEEP_GRACE
        ).order_by("next_attempt_at")[:500]
    )
    for delivery in due:
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=now, queued_at=now)
        _queue(delivery)
    return len(due)
