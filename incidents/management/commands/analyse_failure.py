"""`manage.py analyse_failure`: the British-spelled alias of `analyze_failure` (same command)."""

from incidents.management.commands.analyze_failure import Command

__all__ = ["Command"]
