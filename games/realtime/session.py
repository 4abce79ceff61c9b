"""Whether a table socket's sign-in still holds, and telling its sockets when
it ends.

A socket is signed in once, at its handshake, with the session of the page's
cookie. That session can end while the socket stays open: a sign-out (in
another tab of the same browser), a password change elsewhere (every other
session's auth hash stops matching), a session deleted by an administrator,
an account made inactive, or the session's expiry. Two ways close it (4401):

- pushed: every socket joins its user's group (``user_group``); the signals
  below tell that group, after the commit, that a session ended
  (``session.ended``, with its key: the socket on that session closes without
  a query) or that the user changed (``session.check``: each socket re-checks);
- checked: the socket re-checks its session (``session_holds``) in the same
  database call as every ``state`` or action message, and with each
  heartbeat, so a session that ends without a signal (expiry, a raw delete,
  a lost group message) stops the socket at its next message, and an idle
  socket within a heartbeat.

The check has no side effects (Django's own ``get_user`` flushes or cycles
the session it checks, which a socket, with no response to set a cookie on,
must not do).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from importlib import import_module
from typing import Any, NamedTuple

from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
    user_logged_out,
)
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from ..sql import field_column
from . import broadcast


class SignedIn(NamedTuple):
    """A table socket's sign-in: the session it opened with, and its user."""

    session_key: str | None
    user_id: int


def user_group(user_id: int) -> str:
    """The channel-layer group of every table socket of one user."""
    return f"user.{user_id}"


MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def session_holds(*, session_key: str | None, user_id: int) -> bool:
    """Whether the session ``session_key`` still signs in user ``user_id``:
    it exists and has not expired, names this user and an enabled backend,
    the backend still accepts the user (an active account), and its auth hash
    matches the user's password now (or a ``SECRET_KEY_FALLBACKS`` one).

    It runs with every message, so with sessions in the database (the
    default) and Django's own backend it is one statement written once,
    the session row and the user's password read together (the store's
    load and the backend's get_user, two ORM queries, took 2-6 ms a message
    on a busy machine); anything else goes through the session store and the
    backend. ``session_read`` gives that statement to a caller that makes it
    inside one of its own, and ``session_row_holds`` checks what it found."""
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    if hasattr(store, "model"):
        row = _session_and_user(store.model, session_key, user_id)
        return session_row_holds(session_key=session_key, user_id=user_id, row=row)
    return _holds(store.load(), user_id, None, None)


def session_read(*, session_key: str | None, user_id: int) -> tuple[str, list[Any]] | None:
    """The statement ``session_holds`` reads with sessions in the database (a
    SELECT of at most one row) and its parameters, for a caller to make
    inside its own first statement (``services.table_open_with``: a table
    socket's message, one round trip fewer); None when there is no such
    statement (no key, or sessions kept elsewhere): call ``session_holds``."""
    if not session_key:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    model = getattr(store, "model", None)
    if model is None:
        return None
    return _statement(model._meta.db_table), _parameters(session_key, user_id)


def session_row_holds(
    *, session_key: str | None, user_id: int, row: Sequence[Any] | None
) -> bool:
    """``session_holds``, given the row its statement (``session_read``) found:
    None when it found none (no such session, expired, or no such user)."""
    if row is None or not session_key:
        return False
    engine, backends = settings.SESSION_ENGINE, tuple(settings.AUTHENTICATION_BACKENDS)
    held = _model_holds(engine, session_key, user_id, *row, backends, *_keys())
    if held is not None:
        return held
    data = dict(_decoded(engine, session_key, row[0], *_keys()))
    return _holds(data, user_id, row[1], row[2])


def _holds(data: Any, user_id: int, password: str | None, active: bool | None) -> bool:
    backend_path = data.get(BACKEND_SESSION_KEY)
    if str(data.get(SESSION_KEY)) != str(user_id) or backend_path not in (
        settings.AUTHENTICATION_BACKENDS
    ):
        return False
    if backend_path == MODEL_BACKEND and password is not None:
        user = get_user_model()(pk=user_id, password=password, is_active=bool(active))
        if not ModelBackend().user_can_authenticate(user):
            return False
        hashes = list(_auth_hashes(password, *_keys()))
    else:
        found = load_backend(backend_path).get_user(user_id)
        if found is None:
            return False
        user = found
        hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    stored = data.get(HASH_SESSION_KEY)
    if not stored:
        return False
    return any(constant_time_compare(stored, current) for current in hashes)


# A socket checks its session with every message, and its session row and
# its user's password rarely change between two: decoding the one and hashing
# the other again (HMACs both) is remembered by their values and the keys.
# The row is still read every time, so a change is seen at the next message.


def _keys() -> tuple[str | bytes, ...]:
    """The signing keys a decoded session and an auth hash depend on."""
    return (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)


@lru_cache(maxsize=4096)
def _decoded(
    engine: str, session_key: str, session_data: str, *keys: str | bytes
) -> tuple[Any, ...]:
    """The items of a stored session's data, decoded (and checked) once per value."""
    store = import_module(engine).SessionStore(session_key)
    return tuple(store.decode(session_data).items())


@lru_cache(maxsize=4096)
def _model_holds(
    engine: str,
    session_key: str,
    user_id: int,
    session_data: str,
    password: str | None,
    active: bool | None,
    backends: tuple[str, ...],
    *keys: str | bytes,
) -> bool | None:
    """``session_row_holds`` for a session signed in through Django's own
    backend, remembered by everything its answer depends on (None for
    another backend, whose answer may depend on more: it is asked each time)."""
    data = dict(_decoded(engine, session_key, session_data, *keys))
    if data.get(BACKEND_SESSION_KEY) != MODEL_BACKEND or password is None:
        return None
    return _holds(data, user_id, password, active)


@lru_cache(maxsize=4096)
def _auth_hashes(password: str, *keys: str | bytes) -> tuple[str, ...]:
    """The session auth hashes of a password: the current key's, then each fallback's."""
    user = get_user_model()(password=password)
    return (user.get_session_auth_hash(), *user.get_session_auth_fallback_hash())


@cache
def _statement(session_table: str) -> str:
    quote = connection.ops.quote_name
    user = get_user_model()
    password, is_active, pk = (
        quote(field_column(user, name)[1]) for name in ("password", "is_active", user._meta.pk.name)
    )
    return (
        f"SELECT s.session_data, u.{password}, u.{is_active} FROM {quote(session_table)} s,"
        f" {quote(user._meta.db_table)} u WHERE s.session_key = %s AND s.expire_date > %s"
        f" AND u.{pk} = %s"
    )


def _parameters(session_key: str, user_id: int) -> list[Any]:
    return [session_key, connection.ops.adapt_datetimefield_value(timezone.now()), user_id]


def _session_and_user(model: Any, session_key: str, user_id: int) -> tuple[Any, ...] | None:
    """The session's data (unexpired) and the user's password and active flag."""
    with connection.cursor() as cursor:
        cursor.execute(_statement(model._meta.db_table), _parameters(session_key, user_id))
        row = cursor.fetchone()
    return tuple(row) if row is not None else None


def _tell(user_id: Any, event: dict[str, Any]) -> None:
    """Send ``event`` to the user's sockets once the transaction commits."""
    if user_id is None:
        return
    group = user_group(int(user_id))

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            broadcast.run_publish(lambda: layer.group_send(group, event))

    transaction.on_commit(send)


@receiver(user_logged_out)
def _signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    # Sent before the session is flushed: the key tells the socket on this
    # session to close, with no re-check that could still find it.
    key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and key:
        _tell(user.pk, {"type": "session.ended", "session_key": key})


@receiver(post_delete, sender=Session)
def _session_deleted(sender: Any, instance: Session, **kwargs: Any) -> None:
    # Any deletion of a database session: a sign-out's flush, a new key
    # (sign-in, password change), an administrator's delete.
    user_id = instance.get_decoded().get(SESSION_KEY)
    _tell(user_id, {"type": "session.ended", "session_key": instance.session_key})


@receiver(post_save, sender=get_user_model())
def _user_saved(
    sender: Any, instance: Any, created: bool, update_fields: Any = None, **kwargs: Any
) -> None:
    # A new password (or an account made inactive) ends the user's other
    # sessions; which ones, only each socket's own check can tell. A sign-in
    # saves last_login only, and ends no other session.
    if created or (update_fields and set(update_fields) <= {"last_login"}):
        return
    _tell(instance.pk, {"type": "session.check"})
