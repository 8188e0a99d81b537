"""Signals acceptance sends to the apps above it, which it never imports."""

from django.dispatch import Signal

#: A canary run's evidence was checked (sent inside the check's transaction) with `canary`
#: and `run`; delivery tells both parties to the change it guards.
canary_checked = Signal()
