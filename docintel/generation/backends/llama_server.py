"""``python -m docintel.generation.backends.llama_server [llama_cpp.server options]``: llama-cpp-python's
OpenAI-compatible server, started the same way as ``python -m llama_cpp.server``, with one
difference: on machines where llama.cpp's extra CPU buffer types (AMX tiles) crash, they are
switched off first (see :func:`docintel.generation.backends.local_backend.extra_buffers_work`).

Example: ``python -m docintel.generation.backends.llama_server --model SmolLM2.gguf --host 127.0.0.1 --port 8011 --n_ctx 4096``
"""

from __future__ import annotations

import json
import os
import runpy
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from docintel.errors import LLMError
from docintel.generation.backends.local_backend import extra_buffers_work, resolve_model_path


def _model_arg(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == "--model" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--model="):
            return arg.split("=", 1)[1]
    return None


def main(argv: list[str] | None = None) -> None:
    """Disable the extra buffer types when they crash here, then run llama_cpp.server's main."""
    argv = list(sys.argv[1:] if argv is None else argv)
    model = _model_arg(argv)
    if model is None:  # like the local backend: the bundled SmolLM2 file by default
        model = str(resolve_model_path(None))
        argv = ["--model", model, *argv]
    if not extra_buffers_work(model):
        from llama_cpp import llama_cpp as lowlevel

        original = lowlevel.llama_model_default_params

        def defaults():  # the server builds Llama() from these defaults; Llama() has no switch
            params = original()
            params.use_extra_bufts = False
            return params

        lowlevel.llama_model_default_params = defaults
    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    model: str | os.PathLike,
    *,
    port: int,
    n_ctx: int = 4096,
    log: Path | None = None,
    ready_timeout: float = 180,
) -> subprocess.Popen:
    """Start this module as a server on 127.0.0.1:``port`` and wait (bounded) until
    ``/v1/models`` answers; the caller stops it with :func:`stop_server`."""
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115  (closed by the process's end)
    proc = subprocess.Popen(
        [sys.executable, "-m", "docintel.generation.backends.llama_server", "--model", str(model),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
        stdout=out, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + ready_timeout
    url = f"http://127.0.0.1:{port}/v1/models"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LLMError(f"llama_cpp.server exited with code {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310  (loopback only)
                if json.load(resp).get("data"):
                    return proc
        except OSError:
            time.sleep(0.5)
    stop_server(proc)
    raise LLMError(f"llama_cpp.server did not answer on port {port} within {ready_timeout:g} s")


def stop_server(proc: subprocess.Popen) -> None:
    """Terminate the server process (kill it if it does not stop within 10 s)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
