"""The trail is a hash chain: a walk through a request's life verifies, one tampered or deleted
row makes `verify_audit` name it, and the model refuses to change or remove an entry."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse

from audit.models import AppendOnlyError, AuditEntry
from audit.selectors import chain_verify

pytestmark = pytest.mark.django_db


def verify_audit() -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_audit", stdout=out)
    except CommandError as exc:
        return exc.returncode, str(exc)
    return 0, out.getvalue()


def raw(sql: str, *params: object) -> None:
    # Straight to the table, as someone with database access would: past the model's refusal.
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_a_request_walked_to_its_award_leaves_an_intact_chain(walk):
    actions = list(AuditEntry.objects.values_list("action", "obj_key"))
    req, bid, rival = walk.request.pk, walk.bid.pk, walk.rival_bid.pk
    assert actions == [
        ("request.invite", f"request:{req}"),
        ("request.invite", f"request:{req}"),
        ("request.publish", f"request:{req}"),
        ("bid.start", f"bid:{bid}"),
        ("bid.submit", f"bid:{bid}"),
        ("bid.start", f"bid:{rival}"),
        ("bid.submit", f"bid:{rival}"),
        ("request.close", f"request:{req}"),
        ("request.award", f"request:{req}"),
        ("bid.award", f"bid:{bid}"),
        ("bid.lose", f"bid:{rival}"),
        ("reservation.open", f"reservation:{walk.reservation.pk}"),
    ]
    assert verify_audit() == (0, f"Chain intact: {len(actions)} entries\n")


def test_each_entry_links_to_the_one_before(walk):
    entries = list(AuditEntry.objects.order_by("seq"))
    assert entries[0].prev_sha256 == "0" * 64
    assert [e.prev_sha256 for e in entries[1:]] == [e.sha256 for e in entries[:-1]]
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))


def test_an_entry_says_who_for_whom_and_what_changed(walk, provider):
    submit = AuditEntry.objects.get(action="bid.submit", obj_key=f"bid:{walk.bid.pk}")
    assert (submit.actor, submit.org, submit.party) == (provider.user, provider.org, "provider")
    assert submit.before == {"status": "draft", "revision": 0}
    assert submit.after == {"status": "submitted", "revision": 1, "price_per_gpu_hour": "2.400"}


def test_tampering_with_one_row_makes_verify_audit_name_it(walk):
    target = AuditEntry.objects.get(action="bid.submit", obj_key=f"bid:{walk.bid.pk}")
    raw(
        'UPDATE audit_auditentry SET "after" = %s WHERE id = %s',
        '{"status": "submitted", "revision": 1, "price_per_gpu_hour": "1.000"}',
        target.pk,
    )
    code, message = verify_audit()
    assert code == 1
    assert f"entry {target.seq} (id {target.pk})" in message
    assert "contents do not match" in message


def test_deleting_a_row_is_detected(walk):
    target = AuditEntry.objects.get(action="request.close")
    raw("DELETE FROM audit_auditentry WHERE id = %s", target.pk)
    code, message = verify_audit()
    assert code == 1
    assert f"entry {target.seq} is missing" in message


def test_deleting_the_last_row_is_detected_by_the_head(walk):
    last = AuditEntry.objects.order_by("-seq").first()
    raw("DELETE FROM audit_auditentry WHERE id = %s", last.pk)
    code, message = verify_audit()
    assert code == 1 and f"entry {last.seq}" in message


def test_a_rehashed_row_still_breaks_the_next_link(walk):
    # Whoever recomputes a forged row's own hash must also forge every later row's link.
    target = AuditEntry.objects.get(action="request.close")
    forged = {**target.__dict__, "reason": "forged"}
    from audit.chain import entry_sha256

    raw(
        "UPDATE audit_auditentry SET reason = %s, sha256 = %s WHERE id = %s",
        "forged",
        entry_sha256(forged),
        target.pk,
    )
    result = chain_verify()
    assert result.broken is not None and result.broken.seq == target.seq + 1
    assert "link" in result.broken.problem


def test_the_model_refuses_to_change_or_remove_an_entry(walk):
    entry = AuditEntry.objects.first()
    entry.reason = "edited"
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.filter(pk=entry.pk).update(reason="edited")
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.all().delete()
    assert chain_verify().intact


def test_the_verify_page_says_intact_or_where_it_breaks(walk, outsider):
    client = outsider.client()
    page = client.get(reverse("audit:verify")).content.decode()
    # The platform-wide count is staff's: a buyer would watch it tick with each sealed bid.
    assert "Chain intact." in page and "12 entries" not in page
    target = AuditEntry.objects.get(action="request.close")
    raw("UPDATE audit_auditentry SET reason = %s WHERE id = %s", "x", target.pk)
    page = client.get(reverse("audit:verify")).content.decode()
    # Broken, but where is the global sequence number: staff's, like the count.
    assert "The chain breaks." in page and f"entry {target.seq}" not in page
    assert "request.close" not in page


def test_staff_see_where_the_chain_breaks(walk, admin_client):
    target = AuditEntry.objects.get(action="request.close")
    raw("UPDATE audit_auditentry SET reason = %s WHERE id = %s", "x", target.pk)
    page = admin_client.get(reverse("audit:verify")).content.decode()
    assert f"breaks at entry {target.seq}" in page
    assert "request.close" not in page  # the page names a sequence number, no contents


def test_staff_see_how_many_entries_the_chain_holds(walk, admin_client):
    page = admin_client.get(reverse("audit:verify")).content.decode()
    assert "Chain intact: 12 entries" in page


def test_the_admin_is_read_only(walk, admin_client):
    entry = AuditEntry.objects.first()
    assert admin_client.get(reverse("admin:audit_auditentry_add")).status_code == 403
    response = admin_client.post(
        reverse("admin:audit_auditentry_change", args=[entry.pk]), {"reason": "x"}
    )
    assert response.status_code == 403
    assert chain_verify().intact
