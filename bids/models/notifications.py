from django.db import models


class SentNotification(models.Model):
    """One row per notice sent, so a re-run task never mails twice."""

    key = models.CharField(max_length=120, unique=True)
    recipients = models.JSONField(default=list)
    sent_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key
