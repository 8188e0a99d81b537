from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from ops.jobs import export_jobs_reap

        register_reaper("organisation exports", export_jobs_reap)
