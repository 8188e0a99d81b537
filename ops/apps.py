from django.apps import AppConfig

from core import panels


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from ops.jobs import export_jobs_reap

        register_reaper("organisation exports", export_jobs_reap)
        panels.register("orgs.members", "ops/_members_export_link.html", order=10)
