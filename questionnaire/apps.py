from django.apps import AppConfig


class QuestionnaireConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "questionnaire"
    verbose_name = "Incident questionnaire"

    def ready(self) -> None:
        from bids.signals import bid_submitting
        from questionnaire.receivers import freeze_answers

        bid_submitting.connect(freeze_answers, dispatch_uid="questionnaire.freeze_answers")
