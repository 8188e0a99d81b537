from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from audit.selectors import chain_verify


class Command(BaseCommand):
    help = "Walk the audit trail's hash chain; exit 1 naming the first entry that does not hold."

    def handle(self, *args: Any, **options: Any) -> None:
        result = chain_verify()
        if result.broken is not None:
            raise CommandError(str(result.broken), returncode=1)
        self.stdout.write(f"Chain intact: {result.count} entries")
