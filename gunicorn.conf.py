"""gunicorn's settings for the web service. gunicorn reads ./gunicorn.conf.py from the folder it
starts in (the image's /app, a checkout's root); options on its command line win over these."""

from __future__ import annotations

import gc
from typing import Any


def post_worker_init(worker: Any) -> None:
    """Move what loading the app made (Django, the URLs, the templates, DRF: some 260,000
    objects, none ever freed) out of the collector's reach. Unfrozen, each full collection walks
    them all, about 0.15 s of a core, and a busy worker ran one every few hundred answers."""
    gc.collect()
    gc.freeze()
