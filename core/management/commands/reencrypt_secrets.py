"""`manage.py reencrypt_secrets`: rewrite every secret stored at rest under the current
SIGNING_KEY, after it was changed and the old key listed in SIGNING_KEY_PREVIOUS."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.secrets import reencrypt_all


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored secret (signing keys, SSO client secrets, webhook secrets, "
        "PagerDuty routing keys) under the current SIGNING_KEY; safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = reencrypt_all()
        unreadable = 0
        for item in report:
            line = f"{item.label}: {item.done} re-encrypted"
            if item.unreadable:
                unreadable += len(item.unreadable)
                shown = ", ".join(str(pk) for pk in item.unreadable[:20])
                line += f"; no configured key opens rows {shown}"
            self.stdout.write(line)
        if unreadable:
            raise CommandError(
                f"{unreadable} stored secret(s) were left as they are: no key in SIGNING_KEY or "
                "SIGNING_KEY_PREVIOUS opens them. List the key they were stored with in "
                "SIGNING_KEY_PREVIOUS and run this again; keep the old key listed until then."
            )
        self.stdout.write(
            "Every stored secret is now under the current SIGNING_KEY: SIGNING_KEY_PREVIOUS "
            "can be emptied."
        )
