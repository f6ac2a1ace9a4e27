"""The LLM router: opt-in, the model's proposal validated in code, a failing model -> the rules."""

from __future__ import annotations

import pytest

from docintel.corpus.router import route
from docintel.corpus.router_llm import BackendRouter, llm_router
from docintel.errors import UsageError


class _Result:
    def __init__(self, data):
        self.data = data

    def model_dump(self):
        return dict(self.data)


class StructuredFake:
    """A model backend with a structured call that returns scripted proposals and records prompts."""

    kind = "model"
    name = "structured-fake"

    def __init__(self, *replies):
        self.replies = list(replies)
        self.messages = []

    def _call(self, response_model, messages, max_tokens):
        self.messages.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return _Result(reply), None


def test_rules_are_the_default_and_llm_needs_a_model(monkeypatch):
    monkeypatch.delenv("DOCINTEL_ROUTER", raising=False)
    assert llm_router(StructuredFake()) is None
    with pytest.raises(UsageError, match="needs a model backend"):
        llm_router(None, "llm")
    with pytest.raises(UsageError, match="must be one of"):
        llm_router(StructuredFake(), "magic")
    monkeypatch.setenv("DOCINTEL_ROUTER", "llm")
    assert isinstance(llm_router(StructuredFake()), BackendRouter)


def test_model_proposal_is_validated_in_code():
    fake = StructuredFake(
        {
            "path": "list",
            "record_type": "csf_subcategory",
            "filters": {"no_such_field": "x"},
            "reason": "set",
        },
        {"path": "list", "record_type": "invented_type", "filters": {}, "reason": "set"},
        {"path": "follow", "record_type": None, "filters": {}, "reason": "relation"},
    )
    router = BackendRouter(fake)
    p, span = route("List every subcategory of the framework.", llm=router)
    assert p.path == "list" and p.record_type == "csf_subcategory" and p.filters == {}
    assert span["by"] == "llm" and span["proposed"]["filters"] == {"no_such_field": "x"}
    assert "csf_subcategory" in fake.messages[0][1]["content"]  # the known types are in the prompt
    p, _ = route("List every widget.", llm=router)
    assert p.path == "search" and "unknown record type" in p.reason
    p, _ = route("Which documents use FIPS 199?", llm=router)
    assert p.path == "follow"


def test_failing_model_falls_back_to_the_rules():
    router = BackendRouter(StructuredFake(RuntimeError("model crashed")))
    p, span = route("How many security requirements are in SP 800-171?", llm=router)
    rules, _ = route("How many security requirements are in SP 800-171?")
    assert p == rules and span["by"].startswith("rules (llm failed: model crashed")
