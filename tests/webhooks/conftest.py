from __future__ import annotations

from typing import Any

import pytest

from webhooks.services import endpoint_create


@pytest.fixture
def private_targets(settings: Any) -> None:
    """The tests' receivers listen on loopback, which production refuses."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True


def subscribe(role: Any, url: str, *events: str, **options: Any) -> tuple[Any, str]:
    return endpoint_create(
        organization=role.org, user=role.user, url=url, events=list(events), **options
    )
