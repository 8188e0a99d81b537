from django.apps import AppConfig


class AnnexesConfig(AppConfig):
    name = "annexes"
    verbose_name = "Contract annexes"

    def ready(self) -> None:
        from annexes.services import annex_jobs_reap
        from core.jobs import register_reaper

        register_reaper("annex renders", annex_jobs_reap)
