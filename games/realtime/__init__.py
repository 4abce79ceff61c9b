"""The realtime room: the table socket and everything only it needs.

``consumer`` (transport only) checks each frame against the one registry in
``messages`` (each type's shape and handler), applies it with
``apply.message_apply`` (one transaction: the table opened once, the message
id recorded by ``message_ids``, the service, both seats' views), and sends
each view to its seat (``broadcast`` for changes made outside a socket).
``presence`` counts open sockets, ``session`` closes the sockets of a
session that ended, ``db_threads`` runs the sockets' database calls.
"""
