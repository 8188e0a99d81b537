"""The README's API commands, run verbatim with real curl against a live server.

A provider token (made by the token service) lists its invitations, starts, saves and submits
a bid with questionnaire answers, and after the award uploads burn-in evidence and reads the
verdict. Only HTTP: the test reads results back through the API and the database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from acceptance.models import Evidence, EvidenceState
from acceptance.services.award import request_award
from api.services import token_create
from bids.models import BidRevision
from bids.services import request_close
from questionnaire.demo import PROFILES, demo_answers
from questionnaire.services import question_set_attach_default
from tests.acceptance.burnin.helpers import DATA, attach_fixture, two_node_spec
from tests.conftest import require_service
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

README = Path(__file__).resolve().parents[3] / "README.md"
CURL = shutil.which("curl")


def readme_commands() -> list[str]:
    """The commands of the first `sh` block in the README's API section, comments dropped."""
    text = README.read_text()
    section = text[text.index("\n## API\n") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "README's API section has no sh block"
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [
        line.strip()
        for line in lines
        if line.strip() and not line.lstrip().startswith(("#", "export "))
    ]


def run(command: str, env: dict[str, str], cwd: Path, *, expect_failure: bool = False) -> Any:
    done = subprocess.run(
        ["bash", "-c", command], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    ok = done.returncode != 0 if expect_failure else done.returncode == 0
    assert ok, f"{command}\n{done.returncode}\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def test_the_readme_curl_commands_submit_a_bid_and_upload_evidence(
    live_server, buyer, provider, tmp_path, settings
):
    require_service(CURL is not None, "curl is not installed")
    settings.MEDIA_ROOT = tmp_path / "media"
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    question_set_attach_default(capacity_request=req, user=buyer.user)
    attach_fixture(req, two_node_spec())
    secret = token_create(user=provider.user, name="gpu-a01")[1]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLUSTERBID_URL": live_server.url,
        "CLUSTERBID_TOKEN": secret,
        "REQUEST_ID": str(req.pk),
    }
    (listing, questions, create, update, submit, reservations, start_run, upload, verdict) = (
        readme_commands()
    )

    invited = run(listing, env, tmp_path)
    assert [r["id"] for r in invited["results"]] == [req.pk]
    asked = run(questions, env, tmp_path)["questions"]
    assert {"detect.owner", "detect.S1.response"} <= {q["key"] for q in asked if q["required"]}

    # The README's example answers: enough for a draft, not for the submit.
    bid_json: dict[str, Any] = {
        "request": req.pk,
        "price_per_gpu_hour": "2.35",
        "region": "eu",
        "answers": {"detect.owner": "provider", "detect.S1.response": "15 min"},
    }
    (tmp_path / "bid.json").write_text(json.dumps(bid_json))
    bid = run(create, env, tmp_path)
    assert run(create, env, tmp_path)["id"] == bid["id"]  # the retried curl creates nothing
    env["BID_ID"] = str(bid["id"])
    refused = run(submit, env, tmp_path, expect_failure=True)  # the body still prints
    assert "answers.detect.S2.response" in refused["errors"]

    bid_json["price_per_gpu_hour"] = "2.30"
    bid_json["site"] = "Frankfurt"
    # Spares as the answers say: a conflict between them would block the submit.
    bid_json.update(spares_count=2, spares_location="same_fabric_domain")
    bid_json["answers"] = demo_answers(PROFILES["premium"], BidFactory.build(spares_count=2))
    (tmp_path / "bid.json").write_text(json.dumps(bid_json))
    assert run(update, env, tmp_path)["price_per_gpu_hour"] == "2.300"
    revision = run(submit, env, tmp_path)
    assert revision["number"] == 1
    frozen = BidRevision.objects.get(bid_id=bid["id"], number=1)
    assert str(frozen.price_per_gpu_hour) == "2.300"
    assert frozen.questionnaire["answers"]["detect.owner"]

    # The buyer closes and awards in the browser; the provider starts a burn-in run.
    request_close(capacity_request=req, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=req, bid=frozen.bid, user=buyer.user)
    pending = run(reservations, env, tmp_path)
    assert [r["id"] for r in pending["results"]] == [reservation.pk]
    env["RESERVATION_ID"] = str(reservation.pk)
    burnin_run = run(start_run, env, tmp_path)
    assert run(start_run, env, tmp_path)["id"] == burnin_run["id"]  # the retry creates nothing
    env["RUN_ID"] = str(burnin_run["id"])
    shutil.copy(
        DATA / "burnin/nccl-tests/all_reduce_2node_pass.txt", tmp_path / "all_reduce_perf.txt"
    )

    stored = run(upload, env, tmp_path)
    assert [f["name"] for f in stored["files"]] == ["all_reduce_perf.txt"]
    state = run(verdict, env, tmp_path)
    assert [e["state"] for e in state["results"]] == [EvidenceState.PARSED]
    assert Evidence.objects.get(run_id=burnin_run["id"]).parsed
    assert state["checks"], "the checks ran on the parsed evidence"
