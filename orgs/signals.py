"""What membership changes tell the layers above, so that orgs never imports them.

`membership_changed` is sent inside the service's transaction, with `organization`, `user` (who
made the change), `action` ("member.invite", "member.withdraw", "member.join", "member.decline",
"member.role", "member.remove"), `before` and `after`. The audit trail records it
(audit.members); a receiver that raises rolls the change back.

`invitation_sent` (with `invitation`) and `invitation_answered` (with `invitation`, `user`,
`accepted` and `previous_org_ids`, the organisations the person belonged to before) are sent
in the same transaction; the notices app tells the person and the administrators.
"""

from __future__ import annotations

from django.dispatch import Signal

membership_changed = Signal()
invitation_sent = Signal()
invitation_answered = Signal()
