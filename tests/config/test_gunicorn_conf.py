"""The web service's gunicorn settings: found where gunicorn looks, and a worker that has loaded
the app freezes it out of the collector's reach."""

from __future__ import annotations

import gc
import runpy
from pathlib import Path

from gunicorn.config import Config

ROOT = Path(__file__).resolve().parents[2]


def test_gunicorn_reads_the_settings_from_where_the_image_and_bench_start_it() -> None:
    # No -c on the image's command line: gunicorn's default path, relative to WORKDIR /app.
    assert Config().settings["config"].default == "./gunicorn.conf.py"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "WORKDIR /app" in dockerfile and "COPY . ." in dockerfile
    command = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    assert '"gunicorn"' in command and '"-c"' not in command and "--config" not in command
    assert (ROOT / "gunicorn.conf.py").is_file()


def test_a_worker_freezes_what_loading_the_app_made() -> None:
    hook = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["post_worker_init"]
    assert gc.get_freeze_count() == 0
    try:
        hook(worker=None)
        assert gc.get_freeze_count() > 10_000  # Django and the project are loaded in a test
    finally:
        gc.unfreeze()
