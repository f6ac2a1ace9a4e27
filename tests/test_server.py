"""`docintel serve` and the ask client: real server processes in a private tmp folder.

The forwarded ask must print, exit and write what the in-process ask does; a server of other
code, a folder open to others, a dead or vanishing server are never used (the ask answers in
its own process or says clearly why not). No timed assertions: waits are the client's own
bounded ones.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PDF = REPO / "pdfs" / "nist_sp800-106.pdf"
Q = "How is the rv_length_indicator computed?"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A private socket folder, a primed cache, and the environment every run uses."""
    base = tmp_path_factory.mktemp("serve")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCINTEL_")}
    env.update(
        PYTHONPATH=str(REPO),
        PYTHONSAFEPATH="1",
        DOCINTEL_SERVER_DIR=str(base / "run"),
        DOCINTEL_ARTIFACTS=str(base / "art"),
        DOCINTEL_SERVER="off",
    )
    w = {"base": base, "env": env}
    prime = cli(w, "ask", str(PDF), Q)  # parses once; every later ask reads the cache
    assert prime.returncode == 0, prime.stderr
    yield w
    cli(w, "serve", "--stop", mode="")


def cli(w, *args, mode: str = "off", cwd: Path | None = None, **extra) -> subprocess.CompletedProcess:
    env = {**w["env"], "DOCINTEL_SERVER": mode, **extra}
    return subprocess.run(
        [sys.executable, "-m", "docintel", *args],
        env=env,
        cwd=cwd or w["base"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def served(w) -> int:
    st = cli(w, "serve", "--status", mode="")
    m = re.search(r"(\d+) request\(s\)", st.stdout)
    return int(m.group(1)) if m else -1


def _trace_free(text: str) -> str:
    return re.sub(r"traces/\S+\.json", "traces/T.json", text)


@pytest.fixture(scope="module")
def server(world):
    started = cli(world, "serve", "--idle-timeout", "300", mode="")
    assert started.returncode == 0, started.stderr
    assert "docintel server: started" in started.stdout
    yield world


def test_forwarded_ask_equals_the_in_process_one(server, tmp_path):
    before = served(server)
    args = ("ask", str(PDF), Q, "--json", "-o", "answer.json")
    here = cli(server, *args, cwd=tmp_path)
    there = cli(server, *args, mode="", cwd=tmp_path)
    assert served(server) == before + 1  # it really went to the server
    assert here.returncode == there.returncode == 0
    assert _trace_free(here.stdout) == _trace_free(there.stdout)  # the trace's name has the time
    assert _trace_free(here.stderr) == _trace_free(there.stderr)
    assert "answer: answer.json" in there.stderr  # relative paths resolve in the client's folder
    assert (tmp_path / "answer.json").read_text() == there.stdout  # written where the client runs
    assert Path(json.loads(there.stdout)["trace_path"]).is_file()  # the server wrote the trace


def test_the_client_imports_no_heavy_library(server):
    code = (
        "import sys\n"
        "from docintel.cli import main\n"
        f"sys.argv = ['docintel', 'ask', {str(PDF)!r}, {Q!r}]\n"
        "code = main()\n"
        "heavy = ('pandas', 'numpy', 'pyarrow', 'pydantic', 'pymupdf', 'docintel.api', 'docintel.cli.ask')\n"
        "print('HEAVY', code, [m for m in heavy if m in sys.modules], file=sys.stderr)\n"
    )
    before = served(server)
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**server["env"], "DOCINTEL_SERVER": ""},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "HEAVY 0 []" in run.stderr and "loop: ran" in run.stdout
    assert served(server) == before + 1
    explicit = code.replace("code = main()", "code = main(sys.argv[1:])")  # a program's own call
    run = subprocess.run(
        [sys.executable, "-c", explicit],
        env={**server["env"], "DOCINTEL_SERVER": ""},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "HEAVY 0 [" in run.stderr and "pandas" in run.stderr  # answered in that process
    assert served(server) == before + 1


def test_bad_input_is_one_error_line_through_the_server(server, tmp_path):
    before = served(server)
    here = cli(server, "ask", str(tmp_path / "missing.pdf"), Q)
    there = cli(server, "ask", str(tmp_path / "missing.pdf"), Q, mode="")
    assert served(server) == before + 1
    assert there.returncode == here.returncode == 1
    assert there.stderr == here.stderr and len(there.stderr.strip().splitlines()) == 1
    usage = cli(server, "ask", mode="")  # argparse's own error and exit code 2
    assert usage.returncode == 2 and "usage: docintel ask" in usage.stderr


def test_a_server_of_other_code_is_not_used(server):
    before = served(server)
    # the layout switch read at import time is part of the code fingerprint
    run = cli(server, "ask", str(PDF), Q, mode="", DOCINTEL_EAGER_LAYOUT="1")
    assert run.returncode == 0 and "loop: ran" in run.stdout
    assert served(server) == before  # answered in its own process
    assert "running, current" in cli(server, "serve", "--status", mode="").stdout


def test_a_folder_open_to_others_is_refused(server):
    folder = Path(server["env"]["DOCINTEL_SERVER_DIR"])
    before = served(server)
    folder.chmod(0o755)
    try:
        run = cli(server, "ask", str(PDF), Q, mode="")
        status = cli(server, "serve", "--status", mode="")
    finally:
        folder.chmod(0o700)
    assert run.returncode == 0 and "loop: ran" in run.stdout
    assert "docintel server not used" in run.stderr and "open to other users" in run.stderr
    assert status.returncode == 1 and status.stderr.startswith("Error: server folder refused")
    assert served(server) == before


def _fake_server(path: Path, reply: bytes) -> threading.Thread:
    """A server that accepts one ask, sends ``reply`` and hangs up (a crash mid-request)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(1)

    def once():
        conn, _ = sock.accept()
        conn.recv(1 << 20)
        conn.sendall(reply)
        conn.close()
        sock.close()

    t = threading.Thread(target=once, daemon=True)
    t.start()
    return t


def _socket_of(w, folder: Path) -> Path:
    code = "from docintel.cli.server import wire; print(wire.socket_path())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**w["env"], "DOCINTEL_SERVER_DIR": str(folder)},
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


@pytest.mark.parametrize("partial", [False, True])
def test_a_server_dying_mid_request_falls_back_or_says_so(world, tmp_path, partial):
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    path = _socket_of(world, folder)
    reply = b'{"accepted": 4242}\n' + (b'{"out": "half an answ"}\n' if partial else b"")
    t = _fake_server(path, reply)
    run = cli(world, "ask", str(PDF), Q, mode="", DOCINTEL_SERVER_DIR=str(folder))
    t.join(timeout=60)
    if partial:  # part of the answer is out: no second answer, one clear error line
        assert run.returncode == 1 and run.stdout == "half an answ"
        assert "Error: the docintel server (pid 4242) ended mid-request" in run.stderr
    else:
        assert run.returncode == 0 and "loop: ran" in run.stdout
        assert "answering in this process" in run.stderr


def test_a_dead_servers_socket_is_not_waited_on(world, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    path = _socket_of(world, folder)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))  # bound, never listening: what a killed server leaves
    try:
        run = cli(world, "ask", str(PDF), Q, mode="", DOCINTEL_SERVER_DIR=str(folder))
    finally:
        sock.close()
    assert run.returncode == 0 and "loop: ran" in run.stdout and run.stderr.count("\n") <= 1


def test_auto_starts_a_server_and_stop_ends_it(world, tmp_path):
    folder = tmp_path / "run"
    env = {"DOCINTEL_SERVER_DIR": str(folder), "DOCINTEL_SERVER_IDLE": "120"}
    assert cli(world, "serve", "--status", mode="", **env).returncode == 1
    run = cli(world, "ask", str(PDF), Q, mode="auto", **env)
    assert run.returncode == 0 and "loop: ran" in run.stdout
    status = cli(world, "serve", "--status", mode="", **env)
    assert status.returncode == 0 and "1 request(s)" in status.stdout
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    stopped = cli(world, "serve", "--stop", mode="", **env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert cli(world, "serve", "--status", mode="", **env).returncode == 1
    assert not list(folder.glob("*.sock"))


def _tty_ask(w, folder: Path, **extra) -> tuple[int, str, str]:
    """``docintel ask`` with stdin and stdout on a terminal (a pty), as a person runs it; the
    environment of the other runs, ``DOCINTEL_SERVER`` unset and ``CI`` unset unless given."""
    import pty

    env = {k: v for k, v in w["env"].items() if k not in ("CI", "DOCINTEL_SERVER")}
    env.update(DOCINTEL_SERVER_DIR=str(folder), DOCINTEL_SERVER_IDLE="120", **extra)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "docintel", "ask", str(PDF), Q],
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=env,
            cwd=w["base"],
        )
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the ask closed the terminal
                break
            if not chunk:
                break
            out += chunk
        err = proc.stderr.read().decode()
        proc.wait(timeout=300)
    finally:
        os.close(master)
    return proc.returncode, out.decode(errors="replace"), err


def _status_when_up(w, env: dict) -> subprocess.CompletedProcess:
    """``serve --status`` once a server answers it (bounded: the server's own start)."""
    for _ in range(600):
        status = cli(w, "serve", "--status", mode="", **env)
        if status.returncode == 0:
            return status
        threading.Event().wait(0.1)
    return status


def test_an_interactive_ask_starts_a_server_for_the_next(world, tmp_path):
    folder = tmp_path / "run"
    env = {"DOCINTEL_SERVER_DIR": str(folder), "DOCINTEL_SERVER_IDLE": "120"}
    code, out, err = _tty_ask(world, folder)
    assert code == 0 and "loop: ran" in out and "server" not in err  # answered here, silently
    status = _status_when_up(world, env)  # started after the answer, in the background
    assert status.returncode == 0 and "0 request(s)" in status.stdout
    code, out, err = _tty_ask(world, folder)  # the next ask goes to it
    assert code == 0 and "loop: ran" in out
    assert served({**world, "env": {**world["env"], **env}}) == 1
    assert cli(world, "serve", "--stop", mode="", **env).returncode == 0


@pytest.mark.parametrize("how", ["ci", "piped", "manual"])
def test_no_server_starts_for_ci_a_pipe_or_manual(world, tmp_path, how):
    folder = tmp_path / "run"
    env = {"DOCINTEL_SERVER_DIR": str(folder), "DOCINTEL_SERVER_IDLE": "120"}
    if how == "piped":  # stdout captured: a script or a test runner, as every other test here
        run = cli(world, "ask", str(PDF), Q, mode="", **env)
        code, out = run.returncode, run.stdout
    else:
        extra = {"CI": "true"} if how == "ci" else {"DOCINTEL_SERVER": "manual"}
        code, out, _ = _tty_ask(world, folder, **extra)
    assert code == 0 and "loop: ran" in out
    assert not folder.exists() or not list(folder.iterdir())  # no socket, no start marker
    assert cli(world, "serve", "--status", mode="", **env).returncode == 1
