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

from .. import reads
from . import broadcast


class SignedIn(NamedTuple):
    """A table socket's sign-in: the session it opened with, and its user."""

    session_key: str | None
    user_id: int


def user_group(user_id: int) -> str:
    """The channel-layer group of every table socket of one user."""
    return f"user.{user_id}"


def session_holds(*, session_key: str | None, user_id: int) -> bool:
    """Whether the session ``session_key`` still signs in user ``user_id``:
    it exists and has not expired, names this user and an enabled backend,
    the backend still accepts the user (an active account), and its auth hash
    matches the user's ``get_session_auth_hash`` now (or a fallback's, after
    a ``SECRET_KEY`` rotation).

    It runs with every message, so with sessions in the database (the
    default) the session row and the user's password and active flag are
    one read (``session_read``), which a table socket's message makes in the
    round trip that reads the table's seats; ``session_row_holds`` checks
    what it found, through the session store's ``decode`` and the user's
    ``get_session_auth_hash``. Sessions kept elsewhere go through the
    store's ``load`` and the backend's ``get_user``."""
    read = session_read(session_key=session_key, user_id=user_id)
    if read is not None:
        row = reads.read_all(read)[0]
        return session_row_holds(session_key=session_key, user_id=user_id, row=row)
    if not session_key:
        return False
    return _holds(_store(session_key).load(), user_id, None)


def _store(session_key: str) -> Any:
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key)


def session_read(*, session_key: str | None, user_id: int) -> reads.Read | None:
    """The read ``session_holds`` makes with sessions in the database (at
    most one row: the unexpired session's data, the user's password and
    active flag), for a caller to send with its own reads
    (``services.table_open_with``); None when there is none (no key, or
    sessions kept elsewhere): call ``session_holds``."""
    if not session_key or not hasattr(_store(session_key), "model"):
        return None
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    return reads.value_read(_SESSION_AND_USER, [session_key, now, user_id])


_SESSION_AND_USER = (
    "SELECT s.session_data, u.password, u.is_active FROM {session} s, {user} u"
    " WHERE s.session_key = %s AND s.expire_date > %s AND u.id = %s"
)


def session_row_holds(*, session_key: str | None, user_id: int, row: Sequence[Any] | None) -> bool:
    """``session_holds``, given the row its read (``session_read``) found:
    None when it found none (no such session, expired, or no such user)."""
    if row is None or not session_key:
        return False
    data, password, active = row
    user = get_user_model().from_db(
        connection.alias, ["id", "password", "is_active"], [user_id, password, active]
    )
    return _holds(_store(session_key).decode(data), user_id, user)


def _holds(data: Any, user_id: int, user: Any | None) -> bool:
    """Django's own check of a session (``django.contrib.auth.get_user``),
    without its side effects: ``user`` as read with the session, or None to
    ask the session's backend for it."""
    backend_path = data.get(BACKEND_SESSION_KEY)
    if str(data.get(SESSION_KEY)) != str(user_id) or backend_path not in (
        settings.AUTHENTICATION_BACKENDS
    ):
        return False
    backend = load_backend(backend_path)
    if user is not None and type(backend).get_user is ModelBackend.get_user:
        # What ModelBackend.get_user does with the user it reads; the user
        # read with the session is that row.
        if not backend.user_can_authenticate(user):  # type: ignore[attr-defined]
            return False
    else:
        user = backend.get_user(user_id)
    if user is None:
        return False
    stored = data.get(HASH_SESSION_KEY)
    if not stored:
        return False
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(stored, current) for current in hashes)


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
