"""A private PostgreSQL cluster for fault tests: ``initdb`` into a temporary
directory, served on a free loopback port, stopped and started at will.
Never the machine's shared server (5432): that one other people use.

Run as root (as CI's containers are), the cluster belongs to the
``postgres`` account, since PostgreSQL refuses to run as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import IN_CI
from tests.live_site import free_port


def _bin_dir() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        message = "PostgreSQL's server binaries (initdb, pg_ctl) are not installed"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return found[-1].parent


class Postgres:
    """A cluster in its own directory; ``url`` names its database."""

    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="paigow-pg-"))
        self.data = str(self.dir / "data")
        self.as_owner: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            self.as_owner = ["runuser", "-u", "postgres", "--"]
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/paigow"
        self.stops = 0

    def run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.as_owner, str(self.bin / tool), *args],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=self.dir,
        )

    def create(self) -> None:
        self.run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--no-sync")
        self.start()
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "paigow")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", self.data, "-o", options, "-l",
                 str(self.dir / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` ends every session (what an operator's
        restart does), ``immediate`` as a crash would."""
        self.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")
        self.stops += 1

    def running(self) -> bool:
        return (Path(self.data) / "postmaster.pid").exists()

    def remove(self) -> None:
        if self.running():
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def private_postgres() -> Iterator[Postgres]:
    """A created and started ``Postgres``, removed when the block ends."""
    server = Postgres()
    try:
        server.create()
        yield server
    finally:
        server.remove()


def wait_accepting(server: Postgres, seconds: float = 15) -> None:
    """Until the server answers a connection (``pg_isready``)."""
    deadline = time.monotonic() + seconds
    while True:
        result = subprocess.run(
            [str(server.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(server.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, check=False,
        )
        if result.returncode == 0:
            return
        if time.monotonic() > deadline:
            raise RuntimeError("the private PostgreSQL did not come back")
        time.sleep(0.1)
