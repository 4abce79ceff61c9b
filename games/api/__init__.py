"""The REST API: a player's own hand history, sessions and skill reports."""
