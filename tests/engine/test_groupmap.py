"""Reading an organisation's `group = role` lines and choosing a person's role from groups."""

from __future__ import annotations

import pytest

from engine.groupmap import GroupMapError, GroupRule, groups_of, parse_group_roles, role_for_groups

ROLES = {"requester": "Requester", "approver": "Approver", "admin": "Administrator"}
RANK = ("requester", "approver", "admin")


def test_lines_become_rules_by_role_value_or_label():
    text = "# Okta groups\nbuyers = requester\n\nIT Admins = Administrator\n"
    assert parse_group_roles(text, roles=ROLES) == (
        GroupRule(group="buyers", role="requester"),
        GroupRule(group="IT Admins", role="admin"),
    )


def test_a_group_name_may_hold_an_equals_sign():
    rules = parse_group_roles("cn=admins,ou=groups = admin", roles=ROLES)
    assert rules == (GroupRule(group="cn=admins,ou=groups", role="admin"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("buyers = requester\nbuyers", "Line 2: “buyers” is not “group = role”."),
        ("buyers = engineer", "Line 1: “engineer” is not a role here; the roles are requester"),
        ("a = admin\n\na = approver", "Line 3: “a” is already mapped on line 1."),
        ("= admin", "Line 1: “= admin” is not “group = role”."),
    ],
)
def test_a_bad_line_is_named_with_what_is_wrong(text, message):
    with pytest.raises(GroupMapError) as caught:
        parse_group_roles(text, roles=ROLES)
    assert str(caught.value).startswith(message)


def test_the_highest_mapped_role_wins_and_unmapped_groups_give_none():
    rules = parse_group_roles("b = requester\na = admin\nc = approver", roles=ROLES)
    assert role_for_groups(["b", "c"], rules=rules, rank=RANK) == "approver"
    assert role_for_groups(["x", "a", "b"], rules=rules, rank=RANK) == "admin"
    assert role_for_groups(["x", "A"], rules=rules, rank=RANK) is None


def test_a_groups_claim_is_a_list_or_one_name():
    assert groups_of(["a", 3, "b"]) == ("a", "b")
    assert groups_of("a") == ("a",)
    assert groups_of(None) == () and groups_of({"a": 1}) == ()
