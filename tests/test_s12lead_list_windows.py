"""A list question over several passages reads a member's lead-in on through its list (session 12).

Corpus mode hands the offline backend several first-hop passages, so a list-shaped question takes
``_list_windows``: each passage gives one window of a share of the list budget. That window stopped at
the budget even when the passage's best line announced a list ("Some items to include in the review
are:"), so the answer quoted the lead-in without its items (NIST corpus d-s10, engineer cs).
"""

from __future__ import annotations

from docintel.generation.offline import OfflineBackend
from docintel.questions import parse_question
from tests.test_answers_unseen_families_s8 import _passage

_REVIEW = [
    "Contingency plans are living documents and are reviewed at least annually.",
    "The plan owner coordinates the review with the system owner and the information",
    "system security officer, and records the date of the review in the plan.",
    "Staff turnover and changes to the system architecture are common causes for updates.",
    "Some items to include in the review of the contingency plan are:",
    "- Operational requirements of the system;",
    "- Security requirements of the system;",
    "- Technical procedures for recovery;",
    "- Hardware, software, and other equipment types and quantities;",
    "- Names and contact information of team members;",
    "- Names and contact information of vendors, including alternate and off-site vendors;",
    "- Alternate and off-site facility requirements;",
    "- Vital records (electronic and hardcopy) needed for recovery;",
    "- Memoranda of understanding with partner organizations;",
    "- Recovery time objectives and recovery point objectives;",
    "- Backup schedules and storage locations;",
    "- Notification and escalation procedures;",
    "- Test and exercise schedules;",
    "- Training requirements for recovery personnel;",
    "- Dependencies on other systems and interconnections;",
    "- Power and environmental requirements;",
    "- Order of succession and delegations of authority;",
    "- Plan distribution list and version history.",
    "Reviews after a change are recorded the same way.",
]
_OTHER = [
    "A contingency plan review is scheduled by the plan coordinator.",
    "The review results are reported to the authorizing official.",
]


def test_a_list_lead_in_is_read_through_its_items_when_several_passages_answer():
    question = parse_question("List the items to include in a contingency plan review.")
    assert question.shape == "list"
    passages = [
        _passage(12, [(i + 1, t) for i, t in enumerate(_REVIEW)]),
        _passage(30, [(i + 1, t) for i, t in enumerate(_OTHER)]),
    ]
    text = OfflineBackend().generate(question, passages, pass_no=1, instructions=[]).answer.answer
    assert "Some items to include in the review" in text
    assert "Plan distribution list" in text
