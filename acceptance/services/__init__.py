"""Writes for acceptance. Fixtures and acknowledgements here; burn-in services in their modules."""

from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.fixtures import (
    fixture_from_template,
    fixture_save,
    lot_fixture_own,
    lot_fixture_share,
    request_shape,
)

__all__ = [
    "acknowledgement_submit",
    "fixture_from_template",
    "fixture_save",
    "lot_fixture_own",
    "lot_fixture_share",
    "request_shape",
]
