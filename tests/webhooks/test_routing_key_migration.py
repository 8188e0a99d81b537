"""The migration that encrypts PagerDuty routing keys takes the ones already stored in plain
text along: none is lost, none stays readable in the table."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from webhooks.models import Endpoint
from webhooks.services.endpoints import routing_key

BEFORE = [("webhooks", "0002_event_types_of_every_notice")]
AFTER = [("webhooks", "0003_routing_key_encrypted")]


@pytest.mark.django_db(transaction=True)
def test_routing_keys_stored_in_plain_text_are_encrypted_in_place(buyer):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("webhooks", "Endpoint")
    made = [
        old.objects.create(
            organization_id=buyer.org.pk, url="https://events.pagerduty.com/v2/enqueue",
            payload_format="pagerduty", events=["incident_opened"], secret_token=b"t",
            routing_key=key,
        ).pk
        for key in ("R" * 32, "")
    ]  # fmt: skip
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    with_key, without = (Endpoint.objects.get(pk=pk) for pk in made)
    assert b"R" * 32 not in bytes(with_key.routing_key_token)
    assert routing_key(endpoint=with_key) == "R" * 32
    assert without.routing_key_token is None and routing_key(endpoint=without) == ""
