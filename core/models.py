"""What core keeps: tasks that could not be sent while the broker was away."""

from __future__ import annotations

from django.db import models


class WaitingTask(models.Model):
    """A task whose row was stored but whose message never reached the broker. The periodic
    sweep (core.queueing.send_waiting) sends it once the broker answers again; the task is
    idempotent, so a second delivery is harmless."""

    task = models.CharField(max_length=200)  # the Celery task's registered name
    args = models.JSONField(default=list)
    what = models.CharField(max_length=300)  # for people: "Usage file usage.csv"
    created_at = models.DateTimeField(auto_now_add=True)
    tried_at = models.DateTimeField(null=True, blank=True)
    tries = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"
