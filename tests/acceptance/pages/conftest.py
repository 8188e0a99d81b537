from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from acceptance.models import FixtureVersion
from contracts.models import HandoffTerms
from tests.acceptance.pages.builders import attach_both
from tests.conftest import World


@dataclass
class FixtureWorld:
    world: World
    version: FixtureVersion
    terms: HandoffTerms

    @property
    def request(self) -> Any:
        return self.world.request

    @property
    def bid(self) -> Any:
        return self.world.bid

    @property
    def rival_bid(self) -> Any:
        return self.world.rival_bid


@pytest.fixture
def fx(world: World, buyer: Any) -> FixtureWorld:
    version, terms = attach_both(world.request, buyer.user)
    return FixtureWorld(world=world, version=version, terms=terms)


@pytest.fixture(autouse=True)
def _media_in_tmp(settings: Any, tmp_path: Any) -> None:
    """Reference runs store files: keep them out of the project's media folder."""
    settings.MEDIA_ROOT = tmp_path / "media"
