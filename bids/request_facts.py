"""Facts about a capacity request that apps above bids own and apps beside them read.

The questionnaire measures answers against the handoff terms (contracts, its sibling) and the
transport the acceptance fixture names (acceptance, above it). Neither may be imported from the
questionnaire, so each owner registers a reader here from its AppConfig.ready() and readers ask
this module. With nothing registered a request simply has no such fact."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bids.models import CapacityRequest


@dataclass(frozen=True)
class AgreedTerms:
    """The request's handoff terms as JSON-ready values, and which version they are."""

    values: dict[str, Any]
    version: int


@dataclass(frozen=True)
class FixtureTransport:
    """The transport the request's newest acceptance fixture version runs over."""

    transport: str
    version: int


TermsReader = Callable[[CapacityRequest], AgreedTerms | None]
TransportReader = Callable[[CapacityRequest], FixtureTransport | None]

_readers: dict[str, Callable[[CapacityRequest], Any]] = {}


def register_terms_reader(reader: TermsReader) -> None:
    _readers["terms"] = reader


def register_transport_reader(reader: TransportReader) -> None:
    _readers["transport"] = reader


def agreed_terms(capacity_request: CapacityRequest) -> AgreedTerms | None:
    reader = _readers.get("terms")
    return reader(capacity_request) if reader is not None else None


def fixture_transport(capacity_request: CapacityRequest) -> FixtureTransport | None:
    reader = _readers.get("transport")
    return reader(capacity_request) if reader is not None else None
