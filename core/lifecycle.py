"""One table of moves per lifecycle: who may make each move, from which states, what it needs.

A `Lifecycle` is data: its `Move`s name the party (the buyer's or the provider's side of the
object), the roles within that party, the states a move starts from, and what it needs (a
confirmation, a written reason, a second person). Services call `require()` before they write;
pages call `decisions()` to offer only what the user may do and to say why the rest is not
available; the API turns a refusal into 403 (not your party or role) or 409 (not in this state).
A move that needs a confirmation and was not confirmed is refused with 400, naming the field
`confirm`: pages ask first (a confirmation step), the API needs `"confirm": true`.

The caller says which party and role the user holds for this object (`Actor`, built by
`orgs.selectors.actor_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

from core.errors import ServiceError

T = TypeVar("T")


class Need(StrEnum):
    CONFIRM = "confirm"  # an explicit confirmation in the page, `confirm=true` in the API
    REASON = "reason"  # a written reason, recorded with the move
    APPROVER = "approver"  # a second person of the approver role approves


# The field a missing confirmation is reported on, in forms and in the API's `errors`.
CONFIRM_FIELD = "confirm"


@dataclass(frozen=True)
class Actor:
    """Who asks, and their role in each party of this object they belong to ('buyer' and/or
    'provider'; none for an outsider)."""

    user_id: int | None
    roles: Mapping[str, str] = field(default_factory=dict)

    @property
    def outsider(self) -> bool:
        return not self.roles


@dataclass(frozen=True)
class Move(Generic[T]):
    name: str
    label: str
    party: str  # "buyer", "provider", or "either" (any party of the object)
    roles: frozenset[str]
    sources: frozenset[str]  # the states the move starts from
    target: str | None = None
    needs: frozenset[Need] = frozenset()
    # An object-level rule beyond the state (a deadline, a seal): the reason it is refused.
    guard: Callable[[T], str | None] | None = None
    # A rule on the person beyond party and role (a second person must approve): the reason
    # this actor is refused. Refused like a role (403).
    who: Callable[[T, Actor], str | None] | None = None
    # Words for a refusal by state, e.g. "closed" in "A request that is awarded cannot be closed."
    verb: str = ""


@dataclass(frozen=True)
class Decision(Generic[T]):
    move: Move[T]
    allowed: bool
    reason: str = ""
    why: str = ""  # "party", "role", "state", "confirm" or "" when allowed

    @property
    def status_code(self) -> int:
        if self.why == CONFIRM_FIELD:
            return 400  # the call lacks a field; the same call with it would succeed
        return 403 if self.why in ("party", "role") else 409


class MoveRefused(ServiceError):
    """A lifecycle table refused the move; pages flash the reason, the API answers 403 or 409
    (or 400 when only the confirmation is missing: the error names the `confirm` field)."""

    def __init__(self, decision: Decision[object]) -> None:
        if decision.why == CONFIRM_FIELD:
            super().__init__({CONFIRM_FIELD: [decision.reason]})
        else:
            super().__init__(decision.reason)
        self.decision = decision

    @property
    def status_code(self) -> int:
        return self.decision.status_code


@dataclass
class Lifecycle(Generic[T]):
    name: str  # "request": used in refusals
    status_of: Callable[[T], str]
    status_label: Callable[[T], str]
    moves: list[Move[T]] = field(default_factory=list)
    role_labels: dict[str, str] = field(default_factory=dict)

    def move(self, name: str) -> Move[T]:
        for move in self.moves:
            if move.name == name:
                return move
        raise KeyError(f"{self.name} has no move {name!r}")

    def decide(self, obj: T, name: str, *, actor: Actor) -> Decision[T]:
        move = self.move(name)
        if move.party == "either":
            role = next((r for r in actor.roles.values() if r in move.roles), None)
            role = role or next(iter(actor.roles.values()), None)
        else:
            role = actor.roles.get(move.party)
        if role is None:
            return Decision(
                move, False, f"Only the {move.party} can do this: {move.label}.", "party"
            )
        if role not in move.roles:
            who = " or ".join(sorted(self.role_labels.get(r, r) for r in move.roles))
            mine = self.role_labels.get(role, role)
            return Decision(
                move, False, f"{move.label} needs the role {who}; yours is {mine}.", "role"
            )
        if self.status_of(obj) not in move.sources:
            verb = move.verb or move.label.lower()
            return Decision(
                move,
                False,
                f"{'An' if self.name[0] in 'aeiou' else 'A'} {self.name} that is "
                f"{self.status_label(obj).lower()} cannot be {verb}.",
                "state",
            )
        if move.who is not None:
            reason = move.who(obj, actor)
            if reason:
                return Decision(move, False, reason, "role")
        if move.guard is not None:
            reason = move.guard(obj)
            if reason:
                return Decision(move, False, reason, "state")
        return Decision(move, True)

    def allow(self, obj: T, name: str, *, actor: Actor) -> Decision[T]:
        """Raise `MoveRefused` unless the actor may make the move now (party, role, state)."""
        decision = self.decide(obj, name, actor=actor)
        if not decision.allowed:
            raise MoveRefused(decision)  # type: ignore[arg-type]
        return decision

    def require(self, obj: T, name: str, *, actor: Actor, confirmed: bool = False) -> Decision[T]:
        """`allow`, then the move's confirmation when its table says it needs one."""
        decision = self.allow(obj, name, actor=actor)
        require_confirmation(decision, confirmed=confirmed)
        return decision

    def decisions(
        self, obj: T, *, actor: Actor, names: Iterable[str] = ()
    ) -> dict[str, Decision[T]]:
        """Every move (or the named ones) as this actor sees it, for a page's action bar."""
        wanted = set(names)
        return {
            m.name: self.decide(obj, m.name, actor=actor)
            for m in self.moves
            if not wanted or m.name in wanted
        }


def require_confirmation(decision: Decision[T], *, confirmed: bool) -> None:
    """Refuse a move that needs a confirmation (`Need.CONFIRM`) and did not get one."""
    if Need.CONFIRM in decision.move.needs and not confirmed:
        refused: Decision[T] = Decision(
            decision.move,
            False,
            f"Confirmation required: {decision.move.label.lower()} needs an explicit "
            'confirmation (confirm on the page, or send "confirm": true).',
            CONFIRM_FIELD,
        )
        raise MoveRefused(refused)  # type: ignore[arg-type]
