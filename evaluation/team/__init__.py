"""Team evaluation: each buyer member's own weights and judgements, the consensus of them, and
where the evaluators disagree on the winner. `recombine` is Django-free."""
