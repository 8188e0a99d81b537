"""What membership changes tell the layers above, so that orgs never imports them.

`membership_changed` is sent inside the service's transaction, with `organization`, `user` (who
made the change), `action` ("member.add", "member.role", "member.remove"), `before` and `after`.
The audit trail records it (audit.members); a receiver that raises rolls the change back.
"""

from __future__ import annotations

from django.dispatch import Signal

membership_changed = Signal()
