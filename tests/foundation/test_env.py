"""A malformed number or yes/no in the environment stops the process with
ImproperlyConfigured naming the variable (paigow_site/env.py), never a bare
ValueError nor a silent default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from paigow_site.env import env_bool, env_float, env_int
from tests.foundation.test_settings import run_python

REPO = Path(__file__).resolve().parents[2]
READERS = (REPO / "paigow_site" / "settings.py", REPO / "paigow_site" / "server.py")


def test_unset_or_empty_takes_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAIGOW_X", raising=False)
    assert (env_int("PAIGOW_X", 3), env_float("PAIGOW_X", 0.5), env_bool("PAIGOW_X", True)) == (
        3, 0.5, True)
    monkeypatch.setenv("PAIGOW_X", "  ")
    assert (env_int("PAIGOW_X", 3), env_float("PAIGOW_X", 0.5), env_bool("PAIGOW_X", False)) == (
        3, 0.5, False)


@pytest.mark.parametrize(("raw", "read"), [
    (" 42 ", lambda: env_int("PAIGOW_X", 0) == 42),
    ("-1", lambda: env_int("PAIGOW_X", 0) == -1),
    ("0.25", lambda: env_float("PAIGOW_X", 1.0) == 0.25),
    ("7", lambda: env_float("PAIGOW_X", 1.0) == 7.0),
    ("yes", lambda: env_bool("PAIGOW_X", False) is True),
    ("0", lambda: env_bool("PAIGOW_X", True) is False),
])
def test_well_formed_values_are_read(raw: str, read: object, monkeypatch: pytest.MonkeyPatch
                                     ) -> None:
    monkeypatch.setenv("PAIGOW_X", raw)
    assert read()  # type: ignore[operator]


@pytest.mark.parametrize(("reader", "raw", "says"), [
    (env_int, "2.5", "a whole number"),
    (env_int, "ten", "a whole number"),
    (env_int, "1e3", "a whole number"),
    (env_float, "0,25", "a number"),
    (env_float, "nan", "a number"),
    (env_float, "inf", "a number"),
    (env_bool, "maybe", "1 or 0"),
])
def test_a_malformed_value_names_its_variable(
    reader: object, raw: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_X", raw)
    sentence = f"^PAIGOW_X must be {says} \\(got '{re.escape(raw)}'\\)"
    with pytest.raises(ImproperlyConfigured, match=sentence):
        reader("PAIGOW_X", 1)  # type: ignore[operator]


@pytest.mark.parametrize(
    "name", ["DB_POOL_MAX_SIZE", "TASK_BATCH_SECONDS", "REPORT_REFRESH_SECONDS"])
def test_a_malformed_setting_stops_the_site_naming_it(name: str, clean_env: dict[str, str]) -> None:
    result = run_python("import django; django.setup()", {**clean_env, name: "12x"})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name} must be" in result.stderr


def test_no_number_or_flag_is_read_bare() -> None:
    """Every number and yes/no goes through the helpers: no int(os.environ…),
    float(os.environ…) nor os.environ.get(…) compared with "0" or "1"."""
    bare = re.compile(
        r"""(?:int|float)\(\s*os\.environ|os\.environ\.get\([^)]*\)\s*[!=]=\s*["'][01]["']""")
    for path in READERS:
        assert not bare.findall(path.read_text()), path
