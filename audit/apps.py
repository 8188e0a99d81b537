from django.apps import AppConfig

from core import panels


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        from audit.members import record_membership_change
        from orgs.signals import membership_changed

        membership_changed.connect(
            record_membership_change, dispatch_uid="audit.record_membership_change"
        )

        panels.register("orgs.members", "audit/_org_history.html")
