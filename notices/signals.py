"""Sent by `notify` for each occurrence of an event addressed to an organisation, whether or not
any of its members wants a notice of it: higher apps (webhooks) pass the same words on."""

from django.dispatch import Signal

# Keyword arguments: organization, event, subject, body, path, key. Sent inside the sender's
# transaction: a receiver that queues work does so on commit.
notified = Signal()
