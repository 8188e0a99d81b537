"""Webhook tasks: an id in, one service call. A repeated message finds its delivery claimed,
delivered or not yet due, and does nothing."""

from __future__ import annotations

from celery import shared_task

from webhooks.services import deliveries_sweep, delivery_attempt


@shared_task(acks_late=True, reject_on_worker_lost=True)
def deliver(delivery_id: int) -> str:
    return delivery_attempt(delivery_id=delivery_id)


@shared_task(acks_late=True)
def sweep_deliveries() -> int:
    return deliveries_sweep()
