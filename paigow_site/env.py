"""Reading the environment loudly: a value that is not what its variable
needs stops the process with ``ImproperlyConfigured`` naming the variable,
never a bare ``ValueError`` nor a silent default. An unset or empty variable
takes its default."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}
NAME = "PAIGOW_DOCTEST"  # the examples' variable (a name, so no reference row is asked for it)


def _raw(name: str) -> str | None:
    raw = os.environ.get(name)
    return None if raw is None or not raw.strip() else raw.strip()


def env_bool(name: str, default: bool) -> bool:
    """A yes/no variable: 1/0 (or true/false, yes/no, on/off).

    >>> os.environ[NAME] = "maybe"
    >>> env_bool(NAME, False)
    Traceback (most recent call last):
    ...
    django.core.exceptions.ImproperlyConfigured: PAIGOW_DOCTEST must be 1 or 0 (got 'maybe').
    """
    raw = _raw(name)
    if raw is None:
        return default
    if raw.lower() in TRUE:
        return True
    if raw.lower() in FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be 1 or 0 (got {os.environ[name]!r}).")


def env_int(name: str, default: int) -> int:
    """A whole number.

    >>> os.environ[NAME] = "2.5"
    >>> env_int(NAME, 1)
    Traceback (most recent call last):
    ...
    django.core.exceptions.ImproperlyConfigured: PAIGOW_DOCTEST must be a whole number (got '2.5').
    """
    raw = _raw(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(
            f"{name} must be a whole number (got {os.environ[name]!r})."
        ) from None


def env_float(name: str, default: float) -> float:
    """A number, whole or decimal (finite: not nan or inf).

    >>> os.environ[NAME] = "0,25"
    >>> env_float(NAME, 1.0)
    Traceback (most recent call last):
    ...
    django.core.exceptions.ImproperlyConfigured: PAIGOW_DOCTEST must be a number (got '0,25').
    >>> del os.environ[NAME]
    """
    raw = _raw(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise ImproperlyConfigured(f"{name} must be a number (got {os.environ[name]!r}).")
    return value


def env_list(name: str) -> list[str]:
    """A comma-separated list; blanks dropped."""
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]
