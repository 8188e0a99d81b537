"""What was delivered against the contract: the reservation's timeline, maintenance windows,
availability per month and node, and SLA credits."""
