"""The openai backend against recorded chat.completions responses (tests/recordings), replayed
through an in-memory HTTP transport: no test here touches the network."""

from __future__ import annotations

import importlib
import json
import socket
import sys
from pathlib import Path

import pytest

from docintel.errors import LLMError, LLMOutputError, MissingDependencyError, UsageError
from docintel.generation import prompts
from docintel.generation.errors import LLMAuthError, LLMTimeoutError, LLMUnreachableError
from docintel.generation.validator import generate_checked
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage

openai = pytest.importorskip("openai")
pytest.importorskip("instructor")
from docintel.generation.backends.openai_backend import OpenAIBackend  # noqa: E402

# openai>=3 ships on httpx2, older releases on httpx: use whichever its client is built on.
httpx = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
RECORDINGS = Path(__file__).parent / "recordings"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Block every non-loopback connection (move to conftest.py to guard the whole suite)."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and not host.startswith("/")
            and host not in ("127.0.0.1", "::1", "localhost")
        ):
            raise RuntimeError(f"network access blocked in tests: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


class Replay:
    """An httpx handler that answers each request with the next recorded exchange."""

    def __init__(self, name: str):
        self.exchanges = json.loads((RECORDINGS / name).read_text())["exchanges"]
        self.requests: list[dict] = []

    def __call__(self, request):
        body = json.loads(request.content)
        self.requests.append(body)
        assert self.exchanges, "more requests than recorded exchanges"
        ex = self.exchanges.pop(0)
        assert request.method == ex["request"]["method"]
        assert request.url.path == ex["request"]["path"]
        assert body["model"] == ex["request"]["model"]
        assert body["tools"][0]["function"]["name"] == ex["request"]["tool"]
        return httpx.Response(ex["response"]["status"], json=ex["response"]["body"])


def backend(handler, **kw) -> OpenAIBackend:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    opts = {"model": "gpt-4o-mini", "api_key": "sk-test", "base_url": "http://llm.test/v1", "max_retries": 2}
    return OpenAIBackend(**{**opts, **kw}, http_retries=0, http_client=client)


TEXTS = [
    "3.5",
    "Positional Encoding",
    "Since our model contains no recurrence and no convolution, in order for the model to make use of the",
    "order of the sequence, we must inject some information about the relative or absolute position of the",
    "tokens in the sequence. There are many choices of positional encodings,",
    "learned and fixed [9].",
    "We also experimented with using learned positional embeddings [9] instead, and found that the two",
    "versions produced nearly identical results (see Table 3 row (E)). We chose the sinusoidal version",
    "because it may allow the model to extrapo-",
    "late to sequence lengths longer than the ones encountered during training.",
]
PAGE6 = Passage(
    doc_id="doc6",
    page=6,
    line_start=20,
    line_end=29,
    lines=[EvidenceLine(page=6, line=20 + i, text=t) for i, t in enumerate(TEXTS)],
)
TABLE = Passage(
    doc_id="doc6",
    page=9,
    line_start=1,
    line_end=38,
    lines=[
        EvidenceLine(
            page=9, line=1, text="Table 3: Variations on the Transformer architecture.", role="caption"
        ),
        EvidenceLine(
            page=9, line=5, text="N dmodel dff h dk dv Pdrop ϵls train steps PPL BLEU params", role="table"
        ),
        EvidenceLine(
            page=9, line=38, text="(E) positional embedding instead of sinusoids 4.92 25.7", role="table"
        ),
    ],
    retrieved_via="reference",
    referenced_from=(6, 27),
    reference_text="Table 3 row (E)",
)
Q = ParsedQuestion(
    text="Do learned positional embeddings give similar results to sinusoidal ones?",
    keywords=["learned", "positional", "embeddings", "sinusoidal"],
)


def test_recorded_success_is_parsed_validated_and_reported():
    replay = Replay("answer_success.json")
    b = backend(replay)
    checked = generate_checked(b, Q, [PAGE6], pass_no=1, instructions=["state_conditions"])
    ans = checked.answer
    assert ans.answer_completeness == "references_unresolved"
    assert [r.raw_text for r in ans.pending_references] == ["Table 3 row (E)"]
    assert ans.citations[0].page == 6 and ans.citations[0].doc_id == "doc6"
    # The request carried the line-tagged evidence and the pass rules.
    sent = "\n".join(
        m["content"] for m in replay.requests[0]["messages"] if isinstance(m.get("content"), str)
    )
    assert "[p6 l27] versions produced nearly identical results" in sent
    assert "first pass" in sent and "State every condition" in sent
    info = checked.info.as_dict()
    assert info["attempts"] == 1 and info["usage"]["prompt_tokens"] == 812
    assert info["cut_lines"] == [] and info["prompt_tokens_estimate"] > 0
    assert checked.problems == []


def test_invalid_first_output_is_retried_with_the_validation_error():
    replay = Replay("answer_retry_then_valid.json")
    b = backend(replay)
    ans = answer_of(b, Q, [PAGE6], pass_no=1, instructions=[])
    assert ans.answer_completeness == "references_unresolved"
    assert len(replay.requests) == 2
    retry_text = json.dumps(replay.requests[1]["messages"])
    assert "answer_completeness" in retry_text  # instructor fed the error back
    info = b.history[-1]
    assert info.attempts == 2 and "mostly" in info.raw_outputs[0]


def test_every_output_invalid_raises_llm_output_error_with_raw_outputs():
    b = backend(Replay("answer_invalid_every_time.json"), max_retries=2)
    with pytest.raises(LLMOutputError) as err:
        answer_of(b, Q, [PAGE6], pass_no=1, instructions=[])
    assert err.value.attempts == 3
    assert len(err.value.raw_outputs) == 3 and all("mostly" in r for r in err.value.raw_outputs)


def test_auth_failure_is_a_clear_llm_error():
    b = backend(Replay("auth_401.json"))
    with pytest.raises(LLMAuthError, match="DOCINTEL_API_KEY"):
        answer_of(b, Q, [PAGE6], pass_no=1, instructions=[])


def test_timeout_and_unreachable_server_are_distinct_errors():
    def timeout(request):
        raise httpx.ReadTimeout("timed out", request=request)

    def refused(request):
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(LLMTimeoutError, match="DOCINTEL_TIMEOUT"):
        answer_of(backend(timeout, timeout=5), Q, [PAGE6], pass_no=1, instructions=[])
    with pytest.raises(LLMUnreachableError, match="DOCINTEL_BASE_URL"):
        answer_of(backend(refused), Q, [PAGE6], pass_no=1, instructions=[])
    assert issubclass(LLMTimeoutError, LLMError) and issubclass(LLMUnreachableError, LLMError)


def test_resolve_reference_is_bounded_to_the_given_toc_ids():
    replay = Replay("resolve_reference.json")
    b = backend(replay)
    sections = [
        {"toc_id": "3.2", "title": "Attention", "page_start": 3},
        {"toc_id": "3.3", "title": "FFN", "page_start": 5},
    ]
    assert (
        b.resolve_reference("the previous section", "as described in the previous section", sections) == "3.2"
    )
    schema = replay.requests[0]["tools"][0]["function"]["parameters"]
    assert "3.2" in json.dumps(schema) and "3.3" in json.dumps(schema)


def test_settings_come_from_kwargs_then_docintel_env(monkeypatch):
    monkeypatch.setenv("DOCINTEL_MODEL", "qwen2.5-1.5b-instruct")
    monkeypatch.setenv("DOCINTEL_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("DOCINTEL_INSTRUCTOR_MODE", "json")
    monkeypatch.setenv("DOCINTEL_CONTEXT_WINDOW", "4096")
    monkeypatch.delenv("DOCINTEL_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    d = OpenAIBackend(max_tokens=300).describe()
    assert d["model"] == "qwen2.5-1.5b-instruct" and d["base_url"] == "http://127.0.0.1:8080/v1"
    assert d["instructor_mode"] == "JSON" and d["context_window"] == 4096
    assert d["instructor"] and d["openai"]
    assert OpenAIBackend(model="m2").describe()["model"] == "m2"
    monkeypatch.delenv("DOCINTEL_BASE_URL")
    with pytest.raises(UsageError, match="DOCINTEL_API_KEY"):
        OpenAIBackend()


def test_unknown_instructor_mode_lists_known_modes():
    with pytest.raises(UsageError, match="TOOLS"):
        backend(Replay("answer_success.json"), mode="telepathy").generate(
            Q, [PAGE6], pass_no=1, instructions=[]
        )


def test_missing_extra_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "instructor", None)
    b = OpenAIBackend(api_key="sk-test")
    with pytest.raises(MissingDependencyError, match=r"pip install 'docintel\[openai\]'"):
        answer_of(b, Q, [PAGE6], pass_no=1, instructions=[])


def test_evidence_is_cut_at_line_boundaries_keeping_pulled_in_passages():
    _, full = prompts.build_messages(
        Q, [PAGE6, TABLE], pass_no=2, instructions=[], context_window=10**6, max_tokens=300
    )
    assert full["cut_lines"] == []
    # A window 80 tokens short of the whole evidence.
    window = full["prompt_tokens_estimate"] + 300 - 80
    messages, info = prompts.build_messages(
        Q, [PAGE6, TABLE], pass_no=2, instructions=[], context_window=window, max_tokens=300
    )
    assert info["prompt_tokens_estimate"] <= window - 300
    user = messages[1]["content"]
    assert "pulled in because of 'Table 3 row (E)' on page 6, line 27" in user
    assert "[p9 l38] (E) positional embedding instead of sinusoids 4.92 25.7" in user
    assert info["cut_lines"], "the small window must force a cut"
    assert all(p == 6 for p, _ in info["cut_lines"])  # the pulled-in table survives
    for page, line in info["cut_lines"]:
        assert f"[p{page} l{line}]" not in user
    assert "more lines cut to fit the context window" in user


def answer_of(backend, question, passages, **kw):
    """The answer as the loop sees it: generated, then validated once."""
    return generate_checked(backend, question, passages, **kw).answer
