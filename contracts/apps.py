from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "contracts"
    verbose_name = "Contracts and annexes"

    def ready(self) -> None:
        from bids.request_facts import register_terms_reader
        from contracts.selectors import agreed_terms_of

        register_terms_reader(agreed_terms_of)
