"""The openai backend replaying *real* llama_cpp.server answers (SmolLM2-135M, recorded by
scripts/record_llm.py): no server, no network. The recordings hold the inputs, every HTTP
exchange (request body included, for review) and what the backend returned when recording."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from docintel.generation.validator import generate_checked
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage

openai = pytest.importorskip("openai")
pytest.importorskip("instructor")
from docintel.generation.backends.openai_backend import OpenAIBackend  # noqa: E402

httpx = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
RECORDINGS = Path(__file__).parent / "recordings"


class Replay:
    """Answers each request with the next recorded response; keeps what was sent."""

    def __init__(self, record: dict):
        self.exchanges = list(record["exchanges"])
        self.sent: list[dict] = []

    def __call__(self, request):
        body = json.loads(request.content)
        self.sent.append(body)
        assert self.exchanges, "more requests than recorded exchanges"
        ex = self.exchanges.pop(0)
        assert request.url.path == ex["request"]["path"] and body["model"] == ex["request"]["model"]
        assert body["tools"][0]["function"]["name"] == ex["request"]["tool"]
        return httpx.Response(ex["response"]["status"], json=ex["response"]["body"])


def _load(name: str) -> dict:
    path = RECORDINGS / name
    if not path.exists():
        pytest.skip(f"{name} not recorded (python scripts/record_llm.py)")
    return json.loads(path.read_text())


def _backend(replay: Replay) -> OpenAIBackend:
    client = httpx.Client(transport=httpx.MockTransport(replay))
    return OpenAIBackend(model="smollm2", base_url="http://127.0.0.1:1/v1", max_tokens=400, context_window=4096,
                         http_retries=0, http_client=client)  # fmt: skip


def _tool_args(exchange: dict) -> str:
    return exchange["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]


def test_real_answer_replays_to_the_recorded_result():
    record = _load("real_smollm2_answer.json")
    replay = Replay(record)
    b = _backend(replay)
    inputs = record["inputs"]
    checked = generate_checked(
        b,
        ParsedQuestion(**inputs["question"]),
        [Passage(**p) for p in inputs["passages"]],
        pass_no=inputs["pass_no"],
        instructions=[],
    )
    answer = checked.answer
    assert isinstance(answer, ReferenceAwareAnswer)
    assert answer.model_dump() == record["result"]["answer"]
    info = checked.info.as_dict()
    assert info["attempts"] == record["result"]["attempts"] == len(record["exchanges"])
    assert info["raw_outputs"] == [_tool_args(ex) for ex in record["exchanges"]]
    assert info["detector_references"] == record["result"]["detector_references"]
    # The schema a llama.cpp server compiles to a grammar stays under its string limit.
    params = replay.sent[0]["tools"][0]["function"]["parameters"]
    assert params["properties"]["answer"]["maxLength"] <= 1000
    assert replay.sent[0]["tool_choice"]["function"]["name"] == "ReferenceAwareAnswer"


def test_real_resolver_answer_replays_within_the_given_sections():
    record = _load("real_smollm2_resolve.json")
    replay = Replay(record)
    b = _backend(replay)
    inputs = record["inputs"]
    toc_id = b.resolve_reference(inputs["raw_text"], inputs["origin_context"], inputs["sections"])
    assert toc_id == record["result"]["toc_id"]
    assert toc_id is None or toc_id in {s["toc_id"] for s in inputs["sections"]}
    enum = replay.sent[0]["tools"][0]["function"]["parameters"]
    assert replay.sent[0]["tools"][0]["function"]["name"] == "ReferenceTarget" and enum["properties"]


def answer_of(backend, question, passages, **kw):
    """The answer as the loop sees it: generated, then validated once."""
    return generate_checked(backend, question, passages, **kw).answer
