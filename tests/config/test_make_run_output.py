"""`make run` for a newcomer: the seed's e-mails go to a log file, and the demo sign-ins are the
last thing the seed prints, right before the server's own banner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from demo.seed import DEMO_PASSWORD

ROOT = Path(__file__).resolve().parents[2]


def test_make_run_seeds_with_the_mail_log_last_before_the_server():
    recipe = re.search(r"^run:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert recipe
    steps = recipe.group(1).strip().splitlines()
    assert "EMAIL_BACKEND=core.mail.MailLogBackend" in steps[-2] and "seed_demo" in steps[-2]
    assert "runserver" in steps[-1]


@pytest.mark.django_db
def test_the_seed_logs_its_mail_and_prints_the_sign_ins_last(
    settings, tmp_path, capsys, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "core.mail.MailLogBackend"
    settings.MAIL_LOG_FILE = str(tmp_path / "var" / "demo-mail.log")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo")
    out = capsys.readouterr().out
    assert "Subject:" not in out
    lines = out.strip().splitlines()
    sign_ins = [line for line in lines if DEMO_PASSWORD in line]
    assert len(sign_ins) >= 5 and lines[-len(sign_ins) :] == sign_ins
    assert f"e-mails are in {settings.MAIL_LOG_FILE}" in out
    log = Path(settings.MAIL_LOG_FILE).read_text()
    assert log.count("Subject: ") > 10
