"""The API's world: an open request (fixture, terms, questionnaire, two submitted bids), an
awarded one (reservation, burn-in run, one evidence file), on demand an accepted one with an
open incident and a closed one with a pilot, plus tokens for each role."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.files.base import ContentFile
from rest_framework.test import APIClient

from acceptance.models import BurnInRun, Evidence, Pilot, Reservation
from acceptance.services import fixture_from_template
from annexes.models import Annex, AnnexJob, AnnexKind
from api.services import token_create
from bids.models import Bid, CapacityRequest
from bids.services import bid_submit, request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services import terms_create
from incidents import services as incident_services
from incidents.models import FailedRun, Incident
from questionnaire.demo import DEMO_KEPT_REASON, PROFILES, demo_answers
from questionnaire.services import answers_save, question_set_attach_default
from questionnaire.services.conflicts import conflicts_keep, unresolved_conflicts
from tests.acceptance.burnin.helpers import award, file_upload, media_root
from tests.acceptance.pilot.helpers import invite, shortlist_both
from tests.conftest import clear_cache
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory, MembershipFactory
from tests.incidents.helpers import accept, scenario_upload

__all__ = ["media_root"]
ROLES = ["buyer", "provider", "rival_provider", "outsider", "anonymous"]


@dataclass
class ApiWorld:
    request: CapacityRequest  # open, both providers invited and bidding
    bid: Bid
    rival_bid: Bid
    awarded: CapacityRequest  # awarded to `provider`
    reservation: Reservation
    run: BurnInRun
    evidence: Evidence
    annex: Annex
    annex_job: AnnexJob
    failed_run: FailedRun  # on the reservation, not analysed
    open_incident: Callable[[], Incident]
    open_pilot: Callable[[], Pilot]

    @cached_property
    def incident(self) -> Incident:
        """Built on first use: an accepted reservation's analysed failed run and its incident."""
        return self.open_incident()

    @cached_property
    def pilot(self) -> Pilot:
        """Built on first use: a closed request with both bids shortlisted, the provider's bid
        invited to a pilot with one file uploaded (the rival's bid is not invited)."""
        return self.open_pilot()


@pytest.fixture(autouse=True)
def _fresh_throttle_counts() -> Any:
    clear_cache()
    yield
    clear_cache()


def answer_all(bid: Bid, user: Any) -> None:
    """Answer every question as the premium demo provider, keeping as stated (with a reason)
    any fact the answers state otherwise than the bid or the terms: a conflict blocks a submit."""
    answers_save(bid=bid, user=user, raw=demo_answers(PROFILES["premium"], bid))
    if unresolved_conflicts(bid=bid):
        conflicts_keep(bid=bid, user=user, reason=DEMO_KEPT_REASON)


@pytest.fixture
def api_world(world: Any, buyer: Any, provider: Any, rival_provider: Any) -> ApiWorld:
    from acceptance.services import burnin as burnin_services

    open_request = world.request
    fixture_from_template(
        capacity_request=open_request, user=buyer.user, template="rank-sum-allreduce"
    )
    terms_create(capacity_request=open_request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    question_set_attach_default(capacity_request=open_request, user=buyer.user)

    other = CapacityRequestFactory(buyer=buyer.org, sealed=False, title="Awarded request")
    InvitationFactory(request=other, provider=provider.org)
    InvitationFactory(request=other, provider=rival_provider.org)
    bid = BidFactory(request=other, provider=provider.org)
    rival = BidFactory(request=other, provider=rival_provider.org, price_per_gpu_hour="2.9")
    bid_submit(bid=bid, user=provider.user)
    bid_submit(bid=rival, user=rival_provider.user)
    holder = type("W", (), {"request": other, "bid": bid, "rival_bid": rival})()
    done = award(holder, buyer)
    evidence = burnin_services.evidence_upload(
        run=done.run,
        user=provider.user,
        upload=file_upload("burnin/nccl-tests/all_reduce_2node_pass.txt"),
    ).evidence
    pdf = b"%PDF-1.4\n% contract annex\n%%EOF\n"
    annex = Annex(
        request=done.request,
        kind=AnnexKind.CONTRACT,
        version=1,
        snapshot={},
        snapshot_sha256="0" * 64,
        pdf_sha256=hashlib.sha256(pdf).hexdigest(),
        pdf_bytes=len(pdf),
        pages=1,
        created_by=buyer.user,
    )
    annex.pdf.save("annex.pdf", ContentFile(pdf), save=False)
    annex.save()
    job = AnnexJob.objects.create(
        request=done.request, kind=AnnexKind.CONTRACT, status="done", annex=annex
    )
    failed_run = FailedRun.objects.create(
        reservation=done.reservation, label="Failed run 1", uploaded_by=provider.user
    )

    def open_incident() -> Incident:
        accepted = CapacityRequestFactory(buyer=buyer.org, sealed=False, title="Accepted request")
        InvitationFactory(request=accepted, provider=provider.org)
        won = BidFactory(request=accepted, provider=provider.org)
        bid_submit(bid=won, user=provider.user)
        reservation = accept(
            SimpleNamespace(request=accepted, bid=won), buyer, provider
        ).reservation
        run = incident_services.failed_run_upload(
            reservation=reservation, user=provider.user, uploads=[scenario_upload()]
        )
        run = incident_services.failed_run_analyse(failed_run_id=run.pk)
        return incident_services.incident_open(failed_run=run, user=buyer.user)

    def open_pilot() -> Pilot:
        piloted = CapacityRequestFactory(buyer=buyer.org, sealed=False, title="Piloted request")
        InvitationFactory(request=piloted, provider=provider.org)
        InvitationFactory(request=piloted, provider=rival_provider.org)
        mine = BidFactory(request=piloted, provider=provider.org)
        theirs = BidFactory(request=piloted, provider=rival_provider.org, price_per_gpu_hour="2.9")
        bid_submit(bid=mine, user=provider.user)
        bid_submit(bid=theirs, user=rival_provider.user)
        made = SimpleNamespace(request=piloted, bid=mine, rival_bid=theirs)
        shortlist_both(made, buyer)
        pilot = invite(made.bid, buyer)
        burnin_services.evidence_upload(
            run=BurnInRun.objects.get(pilot=pilot),
            user=provider.user,
            upload=file_upload("perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt"),
            node="gpu-a01",
        )
        return pilot

    return ApiWorld(
        request=open_request,
        bid=world.bid,
        rival_bid=world.rival_bid,
        awarded=done.request,
        reservation=done.reservation,
        run=done.run,
        evidence=evidence,
        annex=annex,
        annex_job=job,
        failed_run=failed_run,
        open_incident=open_incident,
        open_pilot=open_pilot,
    )


def token_client(user: Any) -> APIClient:
    client = APIClient()
    secret = token_create(user=user, name="script")[1]
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


@pytest.fixture
def clients(buyer: Any, provider: Any, rival_provider: Any, outsider: Any) -> dict[str, APIClient]:
    """One token-authenticated client per named role, and an anonymous one."""
    out = {
        "buyer": token_client(buyer.user),
        "provider": token_client(provider.user),
        "rival_provider": token_client(rival_provider.user),
        "outsider": token_client(outsider.user),
        "anonymous": APIClient(),
    }
    # Sam works for the provider and the rival, and acts as the rival: whatever the provider
    # may see must stay hidden while the header names the rival.
    sam = MembershipFactory(organization=provider.org).user
    MembershipFactory(user=sam, organization=rival_provider.org)
    out["dual_as_rival"] = token_client(sam)
    out["dual_as_rival"].credentials(
        HTTP_AUTHORIZATION=out["dual_as_rival"]._credentials["HTTP_AUTHORIZATION"],
        HTTP_X_CLUSTERBID_ORG=rival_provider.org.slug,
    )
    return out


__all__ += ["ROLES", "ApiWorld", "answer_all", "request_close", "token_client"]
