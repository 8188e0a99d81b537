"""An awarded open request with burn-in evidence, a rival's bid and a sealed request beside it:
what the export tests read back, as the organisations involved."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

from bids.models import Bid
from bids.services import bid_submit
from bids.services.clarifications import question_ask
from ops.models import ExportJob
from ops.services import export_request
from tests.acceptance.burnin.helpers import GOOD_SET, Awarded, award, upload
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

RIVAL_NOTES = "RIVAL-NOTES-7c1e: our margin is thin"
PROVIDER_DRAFT = "NORTHWIND-UNSUBMITTED-9f2a"
SEALED_NOTES = "SEALED-BID-NOTES-41d0"
RIVAL_QUESTION = "RIVAL-QUESTION-5b3e: may we bring our own switches?"
EVIDENCE_NAME, EVIDENCE_NODE = GOOD_SET[0]


@dataclass
class Scene:
    awarded: Awarded
    sealed_bid: Bid


def scene(world: Any, buyer: Any, provider: Any, rival: Any, capture: Any) -> Scene:
    question_ask(
        capacity_request=world.request, provider=rival.org, user=rival.user, text=RIVAL_QUESTION
    )
    Bid.objects.filter(pk=world.rival_bid.pk).update(
        notes=RIVAL_NOTES, has_unsubmitted_changes=True
    )
    world.rival_bid.refresh_from_db()
    bid_submit(bid=world.rival_bid, user=rival.user)
    awarded = award(world, buyer)
    with capture(execute=True):
        upload(awarded.run, provider.user, EVIDENCE_NAME, EVIDENCE_NODE)
    # The provider's working copy after its last submit: its own notes, never the buyer's.
    Bid.objects.filter(pk=awarded.bid.pk).update(notes=PROVIDER_DRAFT)
    sealed = CapacityRequestFactory(buyer=buyer.org, sealed=True, title="Sealed request")
    InvitationFactory(request=sealed, provider=provider.org)
    sealed_bid = BidFactory(request=sealed, provider=provider.org, notes=SEALED_NOTES)
    bid_submit(bid=sealed_bid, user=provider.user)
    return Scene(awarded=awarded, sealed_bid=sealed_bid)


def export_of(role: Any, capture: Any) -> ExportJob:
    with capture(execute=True):
        job = export_request(org=role.org, user=role.user)
    job.refresh_from_db()
    return job


@dataclass
class Archive:
    zip: zipfile.ZipFile
    names: list[str]

    def json(self, name: str) -> Any:
        return json.loads(self.zip.read(name))

    def text(self) -> bytes:
        """Every entry's bytes, uncompressed: where a leaked price or note would show."""
        return b"\n".join(self.zip.read(name) for name in self.names)


def read_archive(data: bytes) -> Archive:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    return Archive(zip=archive, names=archive.namelist())


def job_archive(job: ExportJob) -> Archive:
    with job.file.open("rb") as handle:
        data = handle.read()
    assert hashlib.sha256(data).hexdigest() == job.sha256
    return read_archive(data)
