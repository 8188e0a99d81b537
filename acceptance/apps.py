from django.apps import AppConfig


class AcceptanceConfig(AppConfig):
    name = "acceptance"
    verbose_name = "Acceptance and burn-in"

    def ready(self) -> None:
        from acceptance.selectors.fixtures import fixture_transport_of
        from bids.request_facts import register_transport_reader

        register_transport_reader(fixture_transport_of)
