from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from acceptance.demo_burnin import seed_burnin_demo
from core.mail import mail_log_path
from demo.delivery import seed_delivery_demo
from demo.outcomes import seed_outcomes_demo
from demo.pilots import seed_pilot_demo
from demo.seed import DEMO_PASSWORD, rescore_open_demo, seed_demo


class Command(BaseCommand):
    help = "Create the demo organisations, request and bids (safe to run again)."

    def handle(self, *args: Any, **options: Any) -> None:
        logins = seed_demo()
        # A second, already-awarded request so the burn-in and acceptance pages have data.

        seed_burnin_demo()
        # A third, in service for 40 days: the delivery, billing and scorecard pages' history.
        in_service = seed_delivery_demo()
        # What its workload observed and served, and the buyer's (disabled) webhook endpoint.
        seed_outcomes_demo(in_service)
        # The first request's best-and-final round and Aurora's pilot, on its comparison.
        seed_pilot_demo()
        rescore_open_demo()
        if settings.EMAIL_BACKEND == "core.mail.MailLogBackend":
            self.stdout.write(f"The seed's e-mails are in {mail_log_path()}.")
        # The sign-in lines come last: they are what a newcomer needs from this output.
        self.stdout.write(self.style.SUCCESS("Demo data ready. Sign in at /accounts/login/ with:"))
        for login in logins:
            self.stdout.write(
                f"  {login.username:<8} / {DEMO_PASSWORD}   {login.role:<22} {login.organization}"
            )
