"""The exact analysis's shipped tables (games/engine/exact_tables.bin): what
the engine's house way gives today, and read back as written."""

from __future__ import annotations

import importlib
import zlib
from pathlib import Path

import pytest

from games.engine import exact_data

exact_module = importlib.import_module("games.engine.exact")
SHIPPED = Path(exact_data.__file__).with_name(exact_data.FILE)


@pytest.mark.slow
def test_the_shipped_tables_are_what_the_house_way_gives_today() -> None:
    # After a change to the house way, rebuild them: exact_data.main().
    assert exact_data.tables_build() == SHIPPED.read_bytes()


def test_the_tables_are_read_once_a_process() -> None:
    assert exact_data.tables() is exact_data.tables()
    exact_module.build_tables()
    assert exact_data.tables.cache_info().currsize == 1


def test_a_file_that_is_not_the_tables_is_refused() -> None:
    with pytest.raises(ValueError, match="not this engine's exact tables"):
        exact_data.tables_parse(b"PK\x03\x04 a zip, say")


def test_a_truncated_file_is_refused() -> None:
    body = zlib.decompress(SHIPPED.read_bytes()[len(exact_data.MAGIC):])
    with pytest.raises(ValueError, match="damaged"):
        exact_data.tables_parse(exact_data.MAGIC + zlib.compress(body + b"\0\0"))
