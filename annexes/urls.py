from django.urls import path

from annexes import signing_views as signing
from annexes import views as annexes
from annexes.ticket import incident_ticket_pdf

app_name = "annexes"

urlpatterns = [
    path("requests/<int:pk>/annexes/", annexes.annex_list, name="list"),
    path("requests/<int:pk>/annexes/status/", annexes.annex_status, name="status"),
    path("requests/<int:pk>/annexes/generate/", annexes.annex_generate, name="generate"),
    path("requests/<int:pk>/annexes/diff/", annexes.annex_diff, name="diff"),
    path("annexes/<int:pk>/annex.pdf", annexes.annex_download, name="download"),
    path("annexes/<int:pk>/preview/", annexes.annex_preview, name="preview"),
    path("annexes/<int:pk>/signatures/", signing.annex_signatures, name="signatures"),
    path("annexes/<int:pk>/sign/", signing.annex_sign_view, name="sign"),
    path("annexes/<int:pk>/signed.pdf", signing.annex_signed_download, name="signed-download"),
    path("incidents/<int:pk>/ticket.pdf", incident_ticket_pdf, name="incident-ticket-pdf"),
    path("annex-jobs/<int:pk>/retry/", annexes.annex_job_retry, name="retry"),
]
