from django.apps import AppConfig

from core import panels


class AnnexesConfig(AppConfig):
    name = "annexes"
    verbose_name = "Contract annexes"

    def ready(self) -> None:
        from annexes.services import annex_jobs_reap
        from core.jobs import register_reaper

        register_reaper("annex renders", annex_jobs_reap)

        panels.register("bids.request_detail", "annexes/_request_panel.html", order=40)
        panels.register("incidents.ticket_links", "annexes/_ticket_pdf_link.html")
        panels.register("delivery.reservation_links", "annexes/_statements_link.html", order=10)
