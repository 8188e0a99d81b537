"""In a real browser: upload a failed run, see rank 137 named, open an incident, watch the
clocks, upload the recovery evidence (nccl-tests run, smoke run, training log), see no
recurrence pass by itself once its hours have run, sign off the diagnostics, close."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from engine.failures.synthetic import Scenario, cascade
from incidents.models import Incident
from tests.incidents.helpers import RECOVERY, accept, tar_bytes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_failed_run_to_closed_incident(
    live_server, new_page, login_as, world, buyer, provider, tmp_path
):
    done = accept(world, buyer, provider)
    bundle = tmp_path / "job-4242.tar.gz"
    bundle.write_bytes(tar_bytes(cascade(Scenario(ranks=256, culprit=137))))

    page = login_as(new_page(), "nora")
    page.goto(f"{live_server.url}/reservations/{done.reservation.pk}/")
    page.set_input_files("#fr-files", str(bundle))
    page.click("#failed-run-upload button[type=submit]")
    page.wait_for_selector("#initiating-rank:has-text('rank 137')")
    assert "1 initiating, 255 secondary" in page.inner_text("#grouping")
    assert "provider" in page.inner_text("#owner")
    assert page.input_value("#id_severity") == "S1"

    page.click("text=Open incident")
    page.wait_for_selector("#clocks")
    assert re.search(r"\d+ min", page.inner_text("#clock-response"))
    assert "15 min" in page.inner_text("#clock-response")
    incident = Incident.objects.get()

    page.select_option("#id_kind", "nccl-tests")
    page.set_input_files("#id_file", str(RECOVERY / "nccl_all_reduce_recovered.txt"))
    page.click("#evidence-upload button[type=submit]")
    page.wait_for_selector("text=is stored and read")
    assert "pass" in page.inner_text("#item-nccl_margin_pct")

    page.select_option("#id_kind", "smoke-steps")
    page.set_input_files("#id_file", str(RECOVERY / "pre_incident_steps.csv"))
    page.click("#evidence-upload button[type=submit]")
    page.wait_for_selector("text=is stored and read")

    page.select_option("#id_kind", "training-log")
    page.set_input_files("#id_file", str(RECOVERY / "megatron_resumed_continuous.log"))
    page.click("#evidence-upload button[type=submit]")
    page.wait_for_selector("text=is stored and read")
    assert "pass" in page.inner_text("#item-loss_continuity")
    assert "at step 1400 (checkpoint" in page.inner_text("#item-loss_continuity")

    # The provider declares the restore: the no-recurrence timer starts and shows the time left.
    page.click("#clock-restore button[type=submit]")
    page.wait_for_selector("text=Restored recorded")
    assert re.search(r"2[34] h \d\d min left", page.inner_text("#item-no_recurrence_hours"))
    Incident.objects.filter(pk=incident.pk).update(restored_at=timezone.now() - timedelta(days=2))
    page.reload()
    # Its hours have run with no new incident on node-17: it passes by itself.
    page.wait_for_selector("#item-no_recurrence_hours .status-pass")
    # The buyer's items offer the provider no form, and it cannot close an S1 alone.
    assert not page.query_selector("#note-diagnostics")
    assert "the buyer signs this off" in page.inner_text("#item-diagnostics")
    assert "Only the buyer confirms" in page.inner_text("#close-blocked")

    page = login_as(new_page(), "alice")
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{live_server.url}/incidents/{incident.pk}/")
    page.click("#close-incident")
    page.wait_for_selector(".msg.error:has-text('has not passed')")
    page.fill("#note-diagnostics", "dcgmi diag -r 3 run by hand on node-17, all pass")
    page.click("#item-diagnostics button[type=submit]")
    page.wait_for_selector("#item-diagnostics .status-pass")
    page.click("#close-incident")
    page.wait_for_selector("#incident-state:has-text('closed')")
    incident.refresh_from_db()
    assert incident.closed_at is not None


def test_provider_opened_s2_to_a_closure_confirmed_by_the_buyer(
    live_server, new_page, login_as, world, buyer, provider
):
    """The provider uploads per-rank step times from the reservation page: a sustained rise on
    gpu-a02 opens an S2 there. Recovery evidence passes each item; the buyer confirms the end."""
    done = accept(world, buyer, provider)
    steps = RECOVERY.parent / "degraded"

    page = login_as(new_page(), "nora")
    page.goto(f"{live_server.url}/reservations/{done.reservation.pk}/")
    page.click("#open-incident-link")
    terms = page.inner_text("#degraded-terms")
    assert "at least 10.0 % slower" in terms and "over 15 min" in terms
    assert "terms revision 1" in terms and "1.001 s, the hand-over baseline" in terms
    page.set_input_files("#id_steps_file", str(steps / "steps_8ranks_blip_step60.csv"))
    page.click("#steps-open button[type=submit]")
    page.wait_for_selector("#degraded-found:has-text('A blip')")
    assert "step 60" in page.inner_text("#degraded-found") and not Incident.objects.exists()

    page.set_input_files("#id_steps_file", str(steps / "steps_8ranks_gpu-a02_sustained_rise.csv"))
    page.click("#steps-open button[type=submit]")
    page.wait_for_selector("#clocks")
    assert page.inner_text("#severity") == "S2"
    assert "gpu-a02" in page.inner_text("#affected-nodes")
    assert "10:30:00 → 2026-11-04 10:45:00" in page.inner_text("#degraded-window")
    assert "First bad step: 90" in page.inner_text("#degraded-first-bad")
    incident = Incident.objects.get()

    uploads = [
        ("nccl-tests", RECOVERY / "nccl_all_reduce_recovered.txt", ""),
        ("smoke-steps", RECOVERY / "pre_incident_steps.csv", ""),
        ("dcgmi-diag", steps / "dcgmi_diag_gpu-a02_8xh200_pass.txt", "gpu-a02"),
        ("training-log", RECOVERY / "megatron_resumed_continuous.log", ""),
    ]
    for kind, path, node in uploads:
        page.select_option("#id_kind", kind)
        page.set_input_files("#id_file", str(path))
        page.fill("#id_node", node)
        page.click("#evidence-upload button[type=submit]")
        page.wait_for_selector(f"text={path.name} is stored and read")
    for key in ("diagnostics", "nccl_margin_pct", "smoke_step_time_margin_pct", "loss_continuity"):
        assert "pass" in page.inner_text(f"#item-{key}"), key

    page.click("#clock-restore button[type=submit]")
    page.wait_for_selector("text=Restored recorded")
    Incident.objects.filter(pk=incident.pk).update(restored_at=timezone.now() - timedelta(days=2))
    page.reload()
    assert "Only the buyer confirms" in page.inner_text("#close-blocked")
    # Its hours have run with no new incident on gpu-a02: the item passes by itself.
    page.wait_for_selector("#item-no_recurrence_hours .status-pass")

    page = login_as(new_page(), "alice")
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{live_server.url}/incidents/{incident.pk}/")
    page.click("#close-incident")
    page.wait_for_selector("#incident-state:has-text('closed')")
    incident.refresh_from_db()
    assert incident.closed_at is not None and incident.closed_by == buyer.user
