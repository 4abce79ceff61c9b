"""The realtime room: the table socket and everything only it needs.

``consumer`` (transport only: sign-in, seat, socket count, groups,
heartbeat, close) hands each frame and group event to its ``table_socket``
(``TableSocket``, no Channels), which limits it, checks it against the one
registry in ``messages`` (each type's shape and handler), applies it with
``apply.message_apply`` (one transaction: the table opened once, the message
id recorded by ``message_ids``, the service, both seats' views), answers and
sends each view to its seat, in version order (``broadcast`` tells the
sockets of changes made outside one).
``presence`` counts open sockets, ``session`` closes the sockets of a
session that ended, ``db_threads`` runs the sockets' database calls.
"""
