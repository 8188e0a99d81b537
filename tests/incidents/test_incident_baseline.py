"""Recovery targets follow the baseline that applies: after an override, the contracted floor,
never the overridden run's own (lower) figures, unless the buyer chose that run."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from acceptance.models import Baseline, BaselineSource
from engine.evidence import burnin_report
from engine.evidence.parsers import parse_evidence, to_json
from engine.failures.recovery import check_nccl
from incidents import services
from incidents.selectors import checklist_states
from tests.incidents.helpers import RECOVERY, recovery_file

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
DEGRADED = "nccl_all_reduce_degraded.txt"  # 282 GB/s at large messages


def _parsed(name: str) -> dict[str, Any]:
    return to_json(parse_evidence((RECOVERY / name).read_bytes(), kind="nccl-tests"))


def test_a_contracted_floor_takes_no_margin_below_it() -> None:
    contracted = {"source": "contracted", "nccl": [
        {"collective": "all_reduce", "large_message_busbw_min_gbps": 360.0}
    ]}  # fmt: skip
    status, measured, expected = check_nccl([_parsed(DEGRADED)], contracted, 10.0)
    assert status == "fail" and "282" in measured
    assert expected == "all_reduce: ≥ 360.0 GB/s (contracted floor)"
    run_baseline = {"nccl": [{"collective": "all_reduce", "large_message_busbw_min_gbps": 300.0}]}
    assert check_nccl([_parsed(DEGRADED)], run_baseline, 10.0)[0] == "pass"  # 282 ≥ 270


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def _baseline_from(reservation: Any, *, source: str, files: list[dict[str, Any]]) -> None:
    spec = reservation.fixture_version.spec
    header = {"run": {"id": reservation.baseline.run_id, "label": "Burn-in"}}
    if source == BaselineSource.CONTRACTED:
        snapshot = burnin_report.contracted_baseline_snapshot(spec, header=header)
    else:
        snapshot = burnin_report.baseline_snapshot(files, spec, header=header)
    Baseline.objects.filter(reservation=reservation).update(source=source, snapshot=snapshot)


def test_an_overridden_runs_figures_would_pass_a_degraded_recovery_the_contract_does_not(
    incident, provider
) -> None:
    reservation = incident.reservation
    floor = reservation.fixture_version.spec["thresholds"]["busbw_gbps"]["all_reduce"]
    services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests", upload=recovery_file(DEGRADED)
    )
    # The buyer chose the (degraded) overridden run as the baseline: recovery at its level passes.
    overridden = [{"id": 1, "name": DEGRADED, "sha256": "0" * 64, "node": "",
                   "kind": "nccl-tests", "parsed": _parsed(DEGRADED)}]  # fmt: skip
    _baseline_from(reservation, source=BaselineSource.RUN, files=overridden)
    incident.reservation.refresh_from_db()
    assert {s.key: s for s in checklist_states(incident)}["nccl_margin_pct"].status == "pass"
    # The default after an override: the contracted thresholds. The same recovery fails.
    _baseline_from(reservation, source=BaselineSource.CONTRACTED, files=[])
    incident.reservation.refresh_from_db()
    state = {s.key: s for s in checklist_states(incident)}["nccl_margin_pct"]
    assert state.status == "fail" and f"vs {float(floor):.1f})" in state.measured
    assert f"all_reduce: ≥ {float(floor):.1f} GB/s (contracted floor)" in state.expected
