from django.apps import AppConfig

from core import panels


class QuestionnaireConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "questionnaire"
    verbose_name = "Incident questionnaire"

    def ready(self) -> None:
        from bids.signals import bid_submitting
        from questionnaire.receivers import freeze_answers

        bid_submitting.connect(freeze_answers, dispatch_uid="questionnaire.freeze_answers")

        panels.register("bids.request_detail", "questionnaire/_request_panel.html", order=30)
        panels.register("bids.bid_detail", "questionnaire/_bid_panel.html", order=20)
        panels.register("bids.bid_form_refused", "questionnaire/_bid_form_refused.html")
