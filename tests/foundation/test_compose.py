"""docker-compose.yml names every service and variable the stack needs.

No Docker engine runs here, so the file is checked as data.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.conftest import REPO

APP_SERVICES = ("web", "worker", "worker-analysis", "worker-costs", "beat")
REQUIRED_VARIABLES = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_DEBUG", "ALLOWED_HOSTS")


def compose() -> dict[str, Any]:
    return dict(yaml.safe_load((REPO / "docker-compose.yml").read_text()))


def test_it_runs_web_worker_beat_redis_and_postgres() -> None:
    services = compose()["services"]
    assert {"web", "worker", "beat", "redis", "postgres"} <= set(services)
    # daphne through the entrypoint that redacts invite tokens from its access log
    assert services["web"]["command"][:3] == ["python", "-m", "paigow_site.server"]
    assert services["web"]["command"][-1] == "paigow_site.asgi:application"
    assert services["worker"]["command"][:4] == ["celery", "-A", "paigow_site", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "paigow_site", "beat"]


def test_every_service_has_a_health_check() -> None:
    services = compose()["services"]
    for name in ("web", "worker", "worker-costs", "beat", "redis", "postgres"):
        assert "healthcheck" in services[name], name


def test_app_services_get_the_environment_wiring() -> None:
    services = compose()["services"]
    for name in APP_SERVICES:
        env = services[name]["environment"]
        for variable in REQUIRED_VARIABLES:
            assert variable in env, f"{name} lacks {variable}"
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["DJANGO_DEBUG"] == "0"


def test_every_queue_of_the_settings_has_a_worker() -> None:
    # A task routed to a queue no worker takes would wait forever.
    from django.conf import settings

    services = compose()["services"]
    taken = set()
    for service in services.values():
        command = service.get("command") or []
        if command[:4] == ["celery", "-A", "paigow_site", "worker"]:
            assert "-Q" in command, "a worker names its queues"
            taken |= set(command[command.index("-Q") + 1].split(","))
    assert settings.CELERY_TASK_DEFAULT_QUEUE == "celery"  # compose sets no CELERY_QUEUE
    assert taken == {queue.name for queue in settings.CELERY_TASK_QUEUES}
    assert {"celery", "celery-analysis", "celery-costs"} == taken


def test_postgres_keeps_its_data_in_a_volume() -> None:
    data = compose()
    assert "pgdata" in data["volumes"]
    assert any("pgdata:" in volume for volume in data["services"]["postgres"]["volumes"])


def test_the_image_is_built_from_the_dockerfile() -> None:
    assert compose()["services"]["web"]["build"] == "."
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "uv sync --frozen" in dockerfile
    assert "collectstatic" in dockerfile


def test_web_borrows_database_connections_from_a_bounded_pool() -> None:
    # Connections are kept between calls in each process's pool, never per
    # thread (DB_CONN_MAX_AGE leaked one per request thread under ASGI and is
    # refused).
    env = compose()["services"]["web"]["environment"]
    assert "DB_CONN_MAX_AGE" not in env

    def default(name: str) -> int:
        return int(env[name].split(":-")[-1].rstrip("}"))

    assert 1 <= default("DB_POOL_MIN_SIZE") <= default("DB_POOL_MAX_SIZE")
    assert default("SOCKET_DB_THREADS") >= 2


def default(value: str) -> str:
    """A compose value's default: ``${NAME:-0-1}`` gives ``0-1``."""
    match = re.fullmatch(r"\$\{[A-Z_]+:-([^}]*)\}", value)
    return match[1] if match else value


def cpus(listed: str) -> set[int]:
    """A cpuset list ("0-1,3") as CPU numbers."""
    found: set[int] = set()
    for part in listed.split(","):
        low, _, high = part.partition("-")
        found |= set(range(int(low), int(high or low) + 1))
    return found


def test_the_heavy_work_runs_on_cpus_of_its_own() -> None:
    # The analyses and decision costs never compete with live deals: their
    # workers' CPU sets share no CPU with web's (nor with each other's), and
    # each worker's pool has one process a CPU of its set.
    services = compose()["services"]
    shared = cpus(default(services["web"]["cpuset"]))
    for name in ("worker", "beat"):
        assert cpus(default(services[name]["cpuset"])) == shared, name
    heavy = {name: cpus(default(services[name]["cpuset"]))
             for name in ("worker-analysis", "worker-costs")}
    assert not heavy["worker-analysis"] & shared
    assert not heavy["worker-costs"] & shared
    assert not heavy["worker-analysis"] & heavy["worker-costs"]
    for name, own in heavy.items():
        given = [arg for arg in services[name]["command"] if arg.startswith("--concurrency=")]
        assert [int(default(arg.split("=", 1)[1])) for arg in given] == [len(own)], name
