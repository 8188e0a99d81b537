"""Contract annexes: a JSON snapshot of the agreed sources, rendered to HTML and PDF."""
