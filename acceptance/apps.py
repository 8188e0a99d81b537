from django.apps import AppConfig

from core import panels


class AcceptanceConfig(AppConfig):
    name = "acceptance"
    verbose_name = "Acceptance and burn-in"

    def ready(self) -> None:
        from acceptance.selectors.fixtures import fixture_transport_of
        from bids.request_facts import register_transport_reader

        register_transport_reader(fixture_transport_of)
        from acceptance.services.acknowledgements import lot_acknowledgements_required
        from bids.signals import bid_submitting

        bid_submitting.connect(
            lot_acknowledgements_required, dispatch_uid="acceptance.lot_acknowledgements"
        )
        from acceptance.jobs import burnin_jobs_reap
        from core.jobs import register_reaper

        register_reaper("burn-in parses and re-checks", burnin_jobs_reap)

        panels.register("bids.request_detail", "acceptance/_request_fixture_panel.html", order=20)
        panels.register("bids.bid_detail", "acceptance/_bid_ack_panel.html", order=10)
        panels.register("bids.bid_detail", "acceptance/pilot/_bid_pilot_panel.html", order=12)
        panels.register("bids.bid_awarded", "acceptance/burnin/_bid_reservation_link.html")
        panels.register("contracts.provider_owners", "acceptance/_terms_provider_owners.html")
