"""What a reservation's workload observed: the scheduler's own records, node snapshots and the
job's results, read into the four capacities, start receipts, reclaims and the cost per accepted
result, each against the envelope the provider promised."""
