"""Shared set-up for incident tests: an ACCEPTED reservation with a hand-over baseline, and
failed-run bundles built from the synthetic scenarios."""

from __future__ import annotations

import gzip
import io
import tarfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from acceptance.models import (
    Acceptance,
    Baseline,
    BurnInRun,
    DecisionKind,
    Reservation,
    ReservationStatus,
)
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids.services import request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from engine.evidence import burnin_report
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from engine.evidence.parsers import parse_evidence, to_json
from engine.failures.synthetic import Scenario, cascade

DATA = Path(__file__).resolve().parents[1] / "data" / "failures"
RECOVERY = DATA / "recovery"


@dataclass
class Accepted:
    world: Any
    reservation: Reservation


def accept(world: Any, buyer: Any, provider: Any) -> Accepted:
    """Award with terms the provider acknowledged, then accept with a frozen baseline."""
    fixture_from_template(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TEMPLATE
    )
    terms_create(capacity_request=world.request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted")
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    run = BurnInRun.objects.create(reservation=reservation, label="Burn-in", created_by=buyer.user)
    files = [
        {"id": 1, "name": "nccl.txt", "sha256": "0" * 64, "node": "", "kind": kind,
         "parsed": to_json(parse_evidence((RECOVERY / name).read_bytes(), kind=kind))}
        for name, kind in [("nccl_all_reduce_recovered.txt", "nccl-tests"),
                           ("pre_incident_steps.csv", "step-times")]
    ]  # fmt: skip
    spec = reservation.fixture_version.spec
    Baseline.objects.create(
        reservation=reservation,
        run=run,
        snapshot=burnin_report.baseline_snapshot(files, spec, header={"run": {"id": run.pk}}),
    )
    Acceptance.objects.create(
        reservation=reservation, run=run, kind=DecisionKind.ACCEPTED, by=buyer.user,
        at=timezone.now(), gate_passed=True,
    )  # fmt: skip
    reservation.status = ReservationStatus.ACCEPTED
    reservation.save(update_fields=["status"])
    world.request.refresh_from_db()
    return Accepted(world, reservation)


def term_from(reservation: Reservation, start: datetime) -> Reservation:
    """Move the reservation's clock start back to `start`: tests that open incidents at fixed
    past instants need them inside the term (an incident before the term is refused)."""
    reservation.clock_starts_at = start
    reservation.save(update_fields=["clock_starts_at"])
    return reservation


def known_nodes(reservation: Reservation, *nodes: str) -> None:
    """Add node labels to the hand-over baseline's hosts (the reservation's known nodes)."""
    baseline = reservation.baseline
    rows = list((baseline.snapshot or {}).get("nccl") or [{}])
    hosts = list(rows[0].get("hosts") or [])
    rows[0] = {**rows[0], "hosts": hosts + [n for n in nodes if n not in hosts]}
    baseline.snapshot = {**(baseline.snapshot or {}), "nccl": rows}
    baseline.save(update_fields=["snapshot"])


def tar_bytes(files: list[Any]) -> bytes:
    """The same files always give the same bytes: the gzip header's timestamp is pinned, so a
    retried upload (idempotency, duplicate detection) is byte-identical even across a second."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w") as tar,
    ):
        for f in files:
            info = tarfile.TarInfo(f.name)
            info.size = len(f.data)
            tar.addfile(info, io.BytesIO(f.data))
    return buffer.getvalue()


def scenario_upload(name: str = "run.tar.gz", **kwargs: Any) -> SimpleUploadedFile:
    scenario = Scenario(**{"ranks": 256, "culprit": 137, **kwargs})
    return SimpleUploadedFile(name, tar_bytes(cascade(scenario)), content_type="application/gzip")


def recovery_file(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    data = content if content is not None else (RECOVERY / name).read_bytes()
    return SimpleUploadedFile(name, data, content_type="text/plain")


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def accepted(world: Any, buyer: Any, provider: Any) -> Accepted:
    return accept(world, buyer, provider)


@pytest.fixture
def analysed(accepted: Accepted, provider: Any, django_capture_on_commit_callbacks: Any) -> Any:
    """The synthetic cascade uploaded as a failed run of `accepted` and analysed."""
    from incidents import services

    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
        )
    run.refresh_from_db()
    return run
