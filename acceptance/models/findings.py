"""The buyer's explanation of a finding on a run's evidence (reuse, one GPU in two nodes, the
wrong hardware, another host): why it does not block. It holds while the files the finding
rests on are those it was given for (`fingerprint`); a new upload of other files makes it stale.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.burnin import BurnInRun


class FindingExplanation(models.Model):
    run = models.ForeignKey(BurnInRun, on_delete=models.CASCADE, related_name="explanations")
    # Finding.key (engine/evidence/checks/findings.py), e.g. "same-file:<sha256>".
    key = models.CharField(max_length=300)
    # The files' node labels and SHA-256s when it was given.
    fingerprint = models.TextField()
    # The finding as the buyer read it, kept with the reason.
    message = models.TextField()
    reason = models.TextField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "at", "pk"]

    def __str__(self) -> str:
        return f"Explanation of {self.key}"
