"""An e-mail backend that appends each message, as the console backend prints it, to a log
file: the demo's seed sends about a thousand notices, which would bury the sign-in lines that
`make run` prints last."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.message import EmailMessage


def mail_log_path() -> Path:
    return Path(settings.MAIL_LOG_FILE)


class MailLogBackend(ConsoleBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        path = mail_log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            self.stream = log
            return super().send_messages(email_messages)
