"""Session 16 (an): a window is not widened onto a list that a heading closes off above it.

Set 7 sp37-authorization-package (SP 800-37r2 draft, p84): the seed "TASK R-1 Assemble the
authorization package ..." opens a new unit under the heading "AUTHORIZATION PACKAGE"; the task
table's bullets end four lines above it ("• Authorization decisions ... are", the "Quick link"
line, the heading). ``list_span`` took that table for the window's list and widened the window
over it: 23 of the 14 lines, and the footnote the question asks about ("85 Organizations are
encouraged to maximize the use of automated tools ...") got no window."""

from __future__ import annotations

from docintel.generation.offline.backend import OfflineBackend
from docintel.generation.offline.spans import list_span
from docintel.questions import parse_question
from docintel.schema.evidence import EvidenceLine, Passage

_PAGE = [
    ("TABLE 7: AUTHORIZE TASKS AND OUTCOMES", "caption"),
    ("TASK R-1", "body"),
    ("• An authorization package is developed for submission to the", "list_item"),
    ("AUTHORIZATION PACKAGE", "body"),
    ("authorizing official.", "body"),
    ("TASK R-2", "body"),
    ("• A risk determination by the authorizing official that reflects the", "list_item"),
    ("risk management strategy including risk tolerance, is rendered.", "body"),
    ("TASK R-3", "body"),
    ("• Risk responses for determined risks are provided.", "list_item"),
    ("TASK R-4", "body"),
    ("• Authorization decisions, significant vulnerabilities, and risks are", "list_item"),
    ("reported to organizational officials.", "body"),
    ("Quick link to summary table for RMF tasks, responsibilities, and supporting roles.", "body"),
    ("AUTHORIZATION PACKAGE", "heading"),
    (
        "TASK R-1 Assemble the authorization package and submit the package to the authorizing official for an",
        "body",
    ),
    ("authorization decision.", "body"),
    ("Potential Inputs: Security and privacy plans; assessment reports; plans of action and", "body"),
    ("milestones; supporting assessment evidence or other documentation, as required.", "body"),
    (
        "Potential Outputs: Authorization package (with an executive summary), which may be generated from a",
        "body",
    ),
    ("security or privacy management tool85 for submission to the authorizing official.", "body"),
    (
        "Primary Responsibility: System Owner; Common Control Provider; Senior Agency Official for Privacy.86",
        "body",
    ),
    (
        "85 Organizations are encouraged to maximize the use of automated tools in the preparation, assembly, and",
        "body",
    ),
    (
        "transmission of authorization packages and security- and privacy-related information supporting the",
        "body",
    ),
    (
        "authorization process. Many commercially available governance, risk, and compliance (GRC) tools",
        "body",
    ),
    ("can be employed to reduce or eliminate hard copy documentation.", "body"),
]


def _passage() -> Passage:
    lines = [EvidenceLine(page=84, line=k, text=t, role=r) for k, (t, r) in enumerate(_PAGE, 13)]
    return Passage(doc_id="d", page=84, line_start=13, line_end=13 + len(_PAGE) - 1, lines=lines)


def test_the_footnote_on_automated_tools_is_quoted():
    q = parse_question(
        "Can the authorization package given to the authorizing official be a report from an automated tool?"
    )
    gen = OfflineBackend().generate(q, [_passage()], pass_no=1, instructions=[])
    assert "maximize the use of automated tools" in gen.answer.answer


class _Row:
    def __init__(self, text, role):
        self.ln = EvidenceLine(page=1, line=1, text=text, role=role)


def test_a_list_above_a_heading_is_not_the_windows():
    rows = [_Row(t, r) for t, r in _PAGE]
    at = 15  # "TASK R-1 Assemble ...", under the heading
    assert list_span(rows, at, at + 1) == (at, at + 1)
    # without the heading the bullets four lines up are the window's list, as before
    flat = [_Row(t, "body" if r == "heading" else r) for t, r in _PAGE]
    assert list_span(flat, at, at + 1)[0] < at
