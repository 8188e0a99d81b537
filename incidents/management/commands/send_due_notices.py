"""`manage.py send_due_notices`: what Celery beat runs every NOTICE_SWEEP_SECONDS, for a set-up
without beat (run it from cron). Running it twice sends nothing twice."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from bids.notices import bids_opened_sweep
from incidents.notices import clocks_sweep
from incidents.services import breaches_sweep


class Command(BaseCommand):
    help = (
        "Send the notices that fall due with time: incident clocks at 75 % of their target or "
        "breached, and sealed requests whose bids opened at their deadline."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        breaches = breaches_sweep()  # stored as they happened, before anything can move them
        clocks = clocks_sweep()
        opened = bids_opened_sweep()
        self.stdout.write(
            f"{breaches} clock breach(es) recorded, {clocks} incident clock notice(s), "
            f"{opened} bids-opened notice(s) written."
        )
