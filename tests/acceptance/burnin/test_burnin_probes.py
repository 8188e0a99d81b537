"""Pilot probes in a burn-in: nvbandwidth and perftest uploads are parsed like any evidence and,
where the fixture agrees a floor, judged against it on the run's page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from engine.evidence.fixtures.validation import validate_spec
from tests.acceptance.burnin.helpers import GOOD_SET, award, two_node_spec, upload_all

pytestmark = pytest.mark.django_db

SLOW_HOST = "nvbandwidth/nvbandwidth_v0.8_8xh100_gpu3_host_link_13gbs.txt"
FABRIC = "perftest/ib_write_bw_report_gbits_1qp_64k_ndr_client.txt"
FLOORS = {f"thresholds.{k}" for k in ("host_device_gbps_min", "fabric_gbps_min")}


def test_agreed_floors_judge_the_probes_on_the_runs_page(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    spec = two_node_spec()
    spec["thresholds"].update(host_device_gbps_min=40, fabric_gbps_min=380)
    # The floors are part of the schema (this older test spec lacks unrelated keys).
    assert not [e for e in validate_spec(spec) if e.field in FLOORS]
    wrong = {**spec, "thresholds": {**spec["thresholds"], "fabric_gbps_min": -5}}
    assert [e.field for e in validate_spec(wrong) if e.field in FLOORS] == [
        "thresholds.fabric_gbps_min"
    ]
    done = award(world, buyer, spec)
    files = [*GOOD_SET, (SLOW_HOST, "gpu-a02"), (FABRIC, "gpu-a01")]
    evidence = upload_all(done.run, provider.user, files, django_capture_on_commit_callbacks)
    run = done.run
    for item in evidence:
        item.refresh_from_db()
    assert [e.kind for e in evidence[-2:]] == ["nvbandwidth", "perftest"]
    assert run.checks_current and run.gate_passed is False
    host = run.checks.get(name="nvbandwidth: host-device copy bandwidth")
    assert host.status == "fail" and host.mandatory and host.evidence == evidence[-2]
    assert host.measured == "13.41 GB/s (GPU 3, host_to_device_memcpy_ce)"
    assert run.checks.get(name="perftest: fabric bandwidth").status == "pass"
    html = buyer.client().get(reverse("burnin:run-detail", args=[run.pk])).content.decode()
    assert "Host and peer copy bandwidth (nvbandwidth)" in html
    assert "Fabric bandwidth and latency (perftest" in html


def test_without_agreed_floors_the_probes_are_read_but_not_judged(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [*GOOD_SET, (SLOW_HOST, "gpu-a02")]
    evidence = upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    evidence[-1].refresh_from_db()
    assert evidence[-1].kind == "nvbandwidth" and evidence[-1].state == "parsed"
    assert awarded.run.gate_passed, awarded.run.gate_summary
    assert not awarded.run.checks.filter(group="host-device").exists()
