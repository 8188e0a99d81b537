from django.contrib import admin

from core.admin_tools import RecordAdmin
from signing.models import InstanceCA, SigningIdentity


@admin.register(SigningIdentity)
class SigningIdentityAdmin(RecordAdmin):
    """Certificates are shown; the encrypted keys never are."""

    list_display = ["organization", "source", "subject", "issuer", "not_after", "replaced_at"]
    list_filter = ["source"]
    list_select_related = ["organization"]
    exclude = ["key_encrypted", "certificate_der", "chain_der"]


@admin.register(InstanceCA)
class InstanceCAAdmin(RecordAdmin):
    list_display = ["__str__", "created_at"]
    exclude = ["key_encrypted", "certificate_der"]
