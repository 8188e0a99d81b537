from django.apps import AppConfig

from core import panels


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Scoring and comparison"

    def ready(self) -> None:
        from bids.signals import scoring_inputs_changed
        from evaluation.receivers import rescore

        scoring_inputs_changed.connect(rescore, dispatch_uid="evaluation.rescore")
        from core.jobs import register_reaper
        from evaluation.jobs import scenarios_reap, scoring_runs_reap

        register_reaper("scoring runs", scoring_runs_reap)
        register_reaper("award scenarios", scenarios_reap)

        panels.register("bids.request_detail", "evaluation/_approval_panel.html", order=5)
        panels.register("bids.request_detail", "evaluation/_award_panel.html", order=10)
        panels.register("bids.bid_detail", "evaluation/_debrief_panel.html", order=5)
        panels.register("bids.request_bid_actions", "evaluation/_request_bid_actions.html")
