"""One page per provider: how its contracted reservations went, for the provider itself and for
each buyer that contracted it (that buyer's own reservations only)."""
