"""Routing has its own labelled cases (written here, not the dev questions), one path each."""

from __future__ import annotations

import pytest

from docintel.corpus.router import LLMRouter, RouteProposal, route, rule_route, validate_route

VOCAB = {
    "csf_subcategory": {"category_name": {"Asset Management", "Supply Chain Risk Management"}},
    "security_requirement": {"family_name": {"Access Control", "Media Protection"}},
    "control_baseline": {"family_name": {"Access Control", "Audit and Accountability"}},
}

CASES = [
    # (case id, question, path, record type, filters)
    ("single-which-stays-search", "Which error code means the battery is too hot?", "search", None, {}),
    ("single-which-level", "Which assurance level needs a hardware token?", "search", None, {}),
    ("what-is", "What is a plan of action and milestones?", "search", None, {}),
    ("how-often", "How often must the access control policy be reviewed?", "search", None, {}),
    (
        "list-verb-not-a-list",
        "Can NIST list our mapping as a reference? How do we apply?",
        "search",
        None,
        {},
    ),
    ("list-unknown-type", "List every error code of the T-7.", "search", None, {}),
    ("how-many-unknown-type", "How many bikes were recalled?", "search", None, {}),
    (
        "list-subcategories-of-category",
        "List all subcategories of the Asset Management category.",
        "list",
        "csf_subcategory",
        {"category_name": "Asset Management"},
    ),
    (
        "how-many-subcategories",
        "How many subcategories does the Framework have?",
        "list",
        "csf_subcategory",
        {},
    ),
    (
        "which-plural-requirements",
        "Which access control requirements apply to CUI in nonfederal systems?",
        "list",
        "security_requirement",
        {"family_name": "Access Control"},
    ),
    (
        "count-baseline",
        "Count the audit and accountability controls in the high baseline.",
        "list",
        "control_baseline",
        {"baselines": "high", "family_name": "Audit and Accountability"},
    ),
    ("enumerate-tiers", "Enumerate the implementation tiers.", "list", "implementation_tier", {}),
    ("every-singular", "Name every technique of cyber resiliency.", "list", "resiliency_technique", {}),
    ("which-levels", "Which identity assurance levels exist?", "list", "assurance_level", {"kind": "IAL"}),
    ("single-which-subcategory", "Which subcategory covers the inventory of devices?", "search", None, {}),
    (
        "single-which-requirement",
        "Which requirement of the CUI guidance limits system access to authorized users?",
        "search",
        None,
        {},
    ),
    ("single-which-tier", "Which implementation tier is the most rigorous?", "search", None, {}),
    (
        "scenario-without-guidance-stays-search",
        "A partner sent us marked indicators. Who may we pass them on to?",
        "search",
        None,
        {},
    ),
    (
        "statement-then-list",
        "We are preparing an audit. List every Media Protection requirement for CUI.",
        "list",
        "security_requirement",
        {"family_name": "Media Protection"},
    ),
    (
        "two-record-types-map",
        "Which SP 800-53 controls and which framework subcategories cover media sanitization?",
        "follow",
        None,
        {},
    ),
    ("follow-cite", "Which publications cite the contingency planning guide?", "follow", None, {}),
    ("follow-apply-to", "What does control PE-3 apply to?", "follow", None, {}),
    ("follow-depend", "Which outcomes depend on the account management control?", "follow", None, {}),
    ("follow-documents-use", "Which documents use the term risk executive?", "follow", None, {}),
    ("follow-derived", "Which control is requirement 3.5.3 derived from?", "follow", None, {}),
    (
        "agent-chain",
        "Which control is requirement 3.1.1 mapped to, and is that control in the moderate baseline?",
        "agent",
        None,
        {},
    ),
    (
        "agent-apply-guidance-to-facts",
        "Our agency runs a payroll system. Using the impact levels in our guidance, what is its category?",
        "agent",
        None,
        {},
    ),
    (
        "agent-the-one-that",
        "The glossary lists sources for the term. In the one that defines it first, what does it say?",
        "agent",
        None,
        {},
    ),
]


@pytest.mark.parametrize(("case", "question", "path", "rtype", "filters"), CASES, ids=[c[0] for c in CASES])
def test_labelled_routes(case, question, path, rtype, filters):
    got, span = route(question, agent_available=True, vocabulary=VOCAB)
    assert (got.path, got.record_type, got.filters) == (path, rtype, filters), got.reason
    assert span["stage"] == "route" and span["path"] == path and span["by"] == "rules"


def test_agent_without_a_tool_capable_model_becomes_follow_and_says_why():
    got, span = route(CASES[-2][1], agent_available=False)
    assert got.path == "follow" and "no tool-capable model" in got.reason
    assert span["proposed"]["path"] == "agent"


def test_rules_return_agent_proposals_regardless_of_configuration():
    assert rule_route(CASES[-2][1]).path == "agent"


@pytest.mark.parametrize(
    "proposal",
    [
        {"path": "list", "record_type": "error_code"},
        {"path": "list", "record_type": None},
        {"path": "teleport"},
        {"nonsense": True, "path": 3},
    ],
)
def test_invalid_or_unclear_proposals_fall_back_to_search(proposal):
    assert validate_route(proposal).path == "search"


def test_unknown_filter_fields_are_dropped():
    got = validate_route(
        {"path": "list", "record_type": "csf_subcategory", "filters": {"colour": "red", "category": "ID.SC"}}
    )
    assert got.path == "list" and got.filters == {"category": "ID.SC"}


class ScriptedRouter:
    """A fake LLM router: returns the queued proposals in order, records the questions."""

    def __init__(self, *answers):
        self.answers, self.seen = list(answers), []

    def __call__(self, question, record_types):
        self.seen.append((question, sorted(record_types)))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_llm_router_hook_is_validated_like_the_rules():
    fake = ScriptedRouter(
        {
            "path": "list",
            "record_type": "security_requirement",
            "filters": {"family_name": "Media Protection"},
        },
        {"path": "list", "record_type": "made_up_type"},
        RouteProposal(path="agent", reason="three hops"),
    )
    assert isinstance(fake, LLMRouter)
    a, span = route("anything", llm=fake)
    assert (a.path, a.record_type, a.filters) == (
        "list",
        "security_requirement",
        {"family_name": "Media Protection"},
    )
    assert span["by"] == "llm" and "csf_subcategory" in fake.seen[0][1]
    assert route("anything", llm=fake)[0].path == "search"
    assert route("anything", llm=fake, agent_available=True)[0].path == "agent"


def test_a_failing_llm_router_falls_back_to_the_rules_and_says_so():
    got, span = route("What is a hybrid control?", llm=ScriptedRouter(RuntimeError("timeout")))
    assert got.path == "search" and span["by"].startswith("rules (llm failed")
