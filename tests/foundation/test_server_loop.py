"""``python -m paigow_site.server`` runs daphne on uvloop; importing the module
(as the access-log tests do) leaves the process's event loops alone, so the
rest of a test run keeps the loops it would have had."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

LOOP_AFTER_IMPORT = "import asyncio, paigow_site.server; print(type(asyncio.new_event_loop()))"
LOOP_AS_PROGRAM = (
    "import runpy, sys; sys.argv = ['server', '--help']\n"
    "try:\n    runpy.run_module('paigow_site.server', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "from daphne.server import twisted_loop; print(type(twisted_loop))"
)


def loop_of(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "paigow_site.settings", **env},
    )
    return result.stdout.strip().splitlines()[-1]


def test_the_server_program_runs_daphne_on_uvloop() -> None:
    assert loop_of(LOOP_AS_PROGRAM) == "<class 'uvloop.Loop'>"


def test_server_uvloop_0_keeps_the_standard_loop() -> None:
    assert "uvloop" not in loop_of(LOOP_AS_PROGRAM, SERVER_UVLOOP="0")


def test_importing_the_server_module_changes_no_event_loop() -> None:
    assert "uvloop" not in loop_of(LOOP_AFTER_IMPORT)


def test_the_server_program_fills_the_engines_back_value_tables_before_it_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A fresh process's first frames would otherwise fill them, a guide at a time.
    from games.engine import hands
    from paigow_site import server

    served: list[int] = []
    monkeypatch.setattr(hands, "_RANK_TABLE", hands._Table(hands._rank_reading))
    monkeypatch.setattr(
        server.RedactingCommandLine, "run",
        lambda self, argv: served.append(len(hands._RANK_TABLE)),
    )
    server.main(["paigow_site.asgi:application"])
    assert served == [7995]


FROZEN_AS_IT_SERVES = (
    "import gc, runpy, sys\n"
    "import daphne.server\n"
    "def serve(self):\n"
    "    print(gc.get_freeze_count(), 'paigow_site.asgi' in sys.modules, len(gc.get_objects()),\n"
    "          gc.get_threshold()[0])\n"
    "daphne.server.Server.run = serve\n"
    "sys.argv = ['server', 'paigow_site.asgi:application']\n"
    "runpy.run_module('paigow_site.server', run_name='__main__')\n"
)


def test_the_server_program_freezes_what_it_made_before_it_serves() -> None:
    # Django, the application and the engine's tables live as long as the
    # process: left to the cyclic collector, every full collection visited
    # them again, with every socket of the process waiting (docs/benchmarks.md,
    # "Sixteenth round"). Young collections come ten times less often, so
    # few of a message's objects are promoted and full collections are rare.
    frozen, application_loaded, tracked, young = loop_of(FROZEN_AS_IT_SERVES).split()
    assert application_loaded == "True"
    assert int(frozen) > 50_000
    assert int(tracked) < 1_000
    assert int(young) == 7_000
