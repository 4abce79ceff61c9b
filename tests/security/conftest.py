"""The games tests' fixtures, shared: users, rigged decks, fast hashing, fresh
invite limits and the ledger invariants checked after every database test."""

from tests.games import conftest as games_fixtures

fast_passwords = games_fixtures.fast_passwords
fresh_invite_limit = games_fixtures.fresh_invite_limit
ledger_invariants = games_fixtures.ledger_invariants
make_user = games_fixtures.make_user
player = games_fixtures.player
friend = games_fixtures.friend
rig = games_fixtures.rig
