"""Test-wide guards: no network except loopback, golden files regenerate only on request."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PDFS = REPO / "pdfs"
SHARED = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared"))
UPDATE_GOLDEN = os.environ.get("DOCINTEL_UPDATE_GOLDEN") == "1"

_real_connect = socket.socket.connect


def _guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and self.family in (socket.AF_INET, socket.AF_INET6):
        try:
            ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"tests must not use the network (tried to connect to {host})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Like pydantic-ai's ALLOW_MODEL_REQUESTS=False: a test that reaches out fails."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    yield


@pytest.fixture
def artifacts(tmp_path) -> Path:
    """A fresh artifacts folder per test."""
    return tmp_path / "artifacts"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.skip(f"shared material not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def nist_pdf() -> Path:
    return PDFS / "nist_sp800-106.pdf"


@pytest.fixture(scope="session")
def faa_pdf() -> Path:
    return PDFS / "faa_ad_nprm_2020-17221.pdf"


@pytest.fixture(scope="module")
def pg():
    """A throwaway PostgreSQL cluster on a loopback port for one test module (the Postgres half
    of the corpus-store tests); skipped where the server binaries or psycopg are missing."""
    from tests.corpus_fixtures import PgCluster, pg_bin

    bindir = pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql); .ci/run installs them")
    pytest.importorskip("psycopg")
    cluster = PgCluster(bindir).start()
    yield cluster
    cluster.stop()
