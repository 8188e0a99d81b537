"""Secrets kept at rest: the organisations' signing keys and the trial CA's, single sign-on
client secrets, webhook HMAC secrets and PagerDuty routing keys. Each is stored only as a
Fernet token under SIGNING_KEYS (config/settings.py): SIGNING_KEY encrypts, SIGNING_KEY and
every SIGNING_KEY_PREVIOUS decrypt, so the key can be changed without losing what is stored.

Apps name their encrypted fields with `register`, so that `manage.py reencrypt_secrets` can
bring every stored token under the current key without knowing the apps above core.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models, transaction

from core.errors import ServiceError

logger = logging.getLogger(__name__)


class SecretKeyError(ServiceError):
    """A stored secret that none of the configured keys opens: SIGNING_KEY was changed without
    listing the key it was stored with in SIGNING_KEY_PREVIOUS. Nothing is lost; listing the
    old key again opens it."""


def _fernet(keys: list[str]) -> MultiFernet:
    return MultiFernet([Fernet(k) for k in keys])


def encrypt(data: bytes, *, keys: list[str] | None = None) -> bytes:
    """A token under the current key (the first of SIGNING_KEYS)."""
    return _fernet(keys or settings.SIGNING_KEYS).encrypt(data)


def decrypt(token: bytes | memoryview, *, what: str, keys: list[str] | None = None) -> bytes:
    """The secret, or `SecretKeyError` naming `what` (“the signing key of Helix Labs”)."""
    try:
        return _fernet(keys or settings.SIGNING_KEYS).decrypt(bytes(token))
    except InvalidToken:
        logger.error("no configured SIGNING_KEY opens %s", what)
        raise SecretKeyError(
            f"The server cannot read {what}: it was stored under an encryption key this server "
            "no longer lists. Nothing was changed. Tell the operators: the key that was in "
            "SIGNING_KEY before it was changed belongs in SIGNING_KEY_PREVIOUS."
        ) from None


def reencrypt(token: bytes | memoryview, *, keys: list[str] | None = None) -> bytes:
    """The same secret as a token under the current key; `InvalidToken` when no key opens it."""
    return _fernet(keys or settings.SIGNING_KEYS).rotate(bytes(token))


_REGISTRY: dict[type[models.Model], tuple[str, ...]] = {}


def register(model: type[models.Model], *fields: str) -> None:
    """Name `model`'s fields that hold tokens (called from each app's `ready`)."""
    _REGISTRY[model] = tuple(fields)


def registered() -> Iterator[tuple[type[models.Model], tuple[str, ...]]]:
    yield from sorted(_REGISTRY.items(), key=lambda item: item[0]._meta.label)


@dataclass(frozen=True)
class Reencrypted:
    label: str  # "webhooks.Endpoint.secret_token"
    done: int
    unreadable: tuple[int, ...]  # primary keys whose token no configured key opens


def reencrypt_all(*, keys: list[str] | None = None) -> list[Reencrypted]:
    """Every registered token rewritten under the current key, one row at a time under its
    row lock; a token no key opens is left as it is and reported. Running it twice is
    harmless: a token already under the current key is simply made again."""
    report = []
    for model, fields in registered():
        for field in fields:
            done, unreadable = 0, []
            stored = model._default_manager.exclude(**{f"{field}__isnull": True})
            for pk in stored.values_list("pk", flat=True).order_by("pk"):
                with transaction.atomic():
                    row = model._default_manager.select_for_update().get(pk=pk)
                    token = getattr(row, field)
                    if not token:
                        continue
                    try:
                        setattr(row, field, reencrypt(token, keys=keys))
                    except InvalidToken:
                        unreadable.append(pk)
                        continue
                    row.save(update_fields=[field])
                    done += 1
            report.append(Reencrypted(f"{model._meta.label}.{field}", done, tuple(unreadable)))
    return report
