"""The shipped Grafana dashboard and alert rules read only metrics /metrics really serves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
pytestmark = pytest.mark.django_db


def _served(client, settings) -> set[str]:
    settings.METRICS_TOKEN = "t"
    text = client.get("/metrics", HTTP_AUTHORIZATION="Bearer t").content.decode()
    return set(re.findall(r"^# TYPE (clusterbid_\w+) ", text, flags=re.M))


def _named(expr: str) -> set[str]:
    names = re.findall(r"clusterbid_\w+", expr)
    return {re.sub(r"_(bucket|count|sum)$", "", n) for n in names}


def test_every_dashboard_panel_and_alert_reads_a_served_metric(client, settings):
    served = _served(client, settings)
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    rules = yaml.safe_load((DEPLOY / "prometheus-alerts.yml").read_text())
    exprs += [r["expr"] for g in rules["groups"] for r in g["rules"]]
    used = set().union(*(_named(e) for e in exprs))
    assert used and used <= served, used - served
