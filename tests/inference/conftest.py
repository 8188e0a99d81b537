from __future__ import annotations

from typing import Any

import pytest

from acceptance.models import Reservation
from tests.incidents.helpers import media_root
from tests.inference.helpers import inference_reservation

__all__ = ["media_root"]


@pytest.fixture
def served(buyer: Any, provider: Any, media_root: Any) -> Reservation:
    return inference_reservation(buyer, provider)
