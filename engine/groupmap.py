"""Which role an identity provider's groups give a person: the organisation's mapping, written
one `group = role` per line, read into rules; and the verdict for one person's groups.

Plain Python: the sign-in adapter (sso/) passes the roles the organisation has and their rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MAX_RULES = 50
MAX_GROUP_LENGTH = 200


class GroupMapError(ValueError):
    """A mapping line that cannot be read; names the line and what is wrong with it."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"Line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class GroupRule:
    group: str
    role: str


def parse_group_roles(text: str, *, roles: Mapping[str, str]) -> tuple[GroupRule, ...]:
    """Read `group = role` lines (blank lines and `#` comments skipped). `roles` maps each role
    value the organisation has to its label; a line may name either."""
    by_name = {name.lower(): value for value, name in roles.items()}
    by_name.update({value.lower(): value for value in roles})
    rules: list[GroupRule] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        group, sep, role = (part.strip() for part in line.rpartition("="))
        if not sep or not group or not role:
            raise GroupMapError(number, f"“{line}” is not “group = role”.")
        if len(group) > MAX_GROUP_LENGTH:
            raise GroupMapError(number, f"the group name is over {MAX_GROUP_LENGTH} characters.")
        if role.lower() not in by_name:
            names = ", ".join(label.lower() for label in roles.values())
            raise GroupMapError(number, f"“{role}” is not a role here; the roles are {names}.")
        if group in seen:
            raise GroupMapError(number, f"“{group}” is already mapped on line {seen[group]}.")
        seen[group] = number
        rules.append(GroupRule(group=group, role=by_name[role.lower()]))
    if len(rules) > MAX_RULES:
        raise GroupMapError(number, f"at most {MAX_RULES} groups can be mapped.")
    return tuple(rules)


def format_group_roles(rules: Iterable[GroupRule]) -> str:
    return "\n".join(f"{rule.group} = {rule.role}" for rule in rules)


def role_for_groups(
    groups: Iterable[str], *, rules: Sequence[GroupRule], rank: Sequence[str]
) -> str | None:
    """The highest-ranked role (`rank`, lowest first) that any of `groups` maps to; None when
    none of them is mapped. Group names compare exactly, as identity providers send them."""
    held = set(groups)
    granted = {rule.role for rule in rules if rule.group in held}
    for role in reversed(rank):
        if role in granted:
            return role
    return None


def groups_of(claim: object) -> tuple[str, ...]:
    """An identity provider's groups claim as names: a list of strings, or one string (some
    providers send a single group that way). Anything else holds no group."""
    if isinstance(claim, str):
        return (claim,)
    if isinstance(claim, list):
        return tuple(item for item in claim if isinstance(item, str))
    return ()
