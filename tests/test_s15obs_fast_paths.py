"""Session 15 (obs): the structure stages' fast paths give what the plain code gave."""

from __future__ import annotations

import re

import pytest

from docintel.parsing import crossrefs, refmatch
from docintel.parsing.refpatterns import classify_reference, find_references

# every gated rule's examples, as its description prints them, and texts around them
_EXAMPLES = [
    "14 CFR 25.1707, 45 CFR part 164, 45 C.F.R. Sec. 164.501, 21 CFR Ch. II and 21 C.FR 3 and 21 CF.R 4",
    "44 U.S.C. 3542, 44 U.S.C., Sec. 3542, 5 U.S.C. \u00a7 552a, 5 U. S. C. 301",
    "83 FR 63561, 66 Fed. Reg. 753, 94 Stat. 3305",
    "SP 800-161, NIST SP 800-53 Rev. 5, SP 800-57 Part 1, Special Publication 800-37",
    "NISTIR 7298 Rev. 2, NIST IR 8011, NIST Interagency Report 7628, FIPS 180-4, FIPS Publication 199",
    "ISO 27001, ISO/IEC 27001:2013, IEEE Std 802.11, IEC 62443-3-3, ANSI/ISA 99, EN 50600, BS 7799, DIN 66399",
    "RFC 2119, AC 25-7D, AC 25.1701-1, AD 2018-23-51, TSO 142-1, SFAR 88-2",
    "Public Law 107-347, Pub. L. 104-191, Pub. L. 115\u201397, OMB Circular A-130, Circular No. A-11",
    "OMB Memorandum M-17-12, OMB M-19-03, Executive Order 13636, E.O. 12866, HSPD-12, PPD-21, PDD-63",
    "Directive 95/46/EC, Regulation (EU) 2016/679, Regulation (EC) No 45/2001, Framework Decision 2008/977/JHA",
    "Form 8949, Form 1099-DIV, Form W-2, forms 10-K, Form I-9, Pub. 550, Publication 17",
    "Fed. R. Civ. P. 12(b)(6), Fed. R. Evid. 702, FRCP 56",
    "the Qualified Dividends and Capital Gain Tax Worksheet, the Credit Limit Worksheet, line 22",
    "see Section 4.2 and Table 3 row (E); 2.5 times the rate in 2019; Appendix B of SP 800-53",
    "1.1 Purpose and Scope ................................................................1-1",
]


def _ungated(monkeypatch, text):
    with monkeypatch.context() as m:
        m.setattr(refmatch, "_holds", lambda rule, text: True)
        return refmatch.scan(text)


def _key(ms):
    return [
        (x.start, x.end, x.rule.name, x.kind, x.label, tuple(map(str, x.ids)), x.sub, x.scope) for x in ms
    ]


def test_the_gated_rules_are_rules_of_the_grammar():
    names = {r.name for r in refmatch.RULES}
    assert set(refmatch._HOLDS) <= names


@pytest.mark.parametrize("text", _EXAMPLES)
def test_every_match_of_a_gated_rule_holds_its_literals(text):
    # a literal missing from a match would make the gate skip a rule that matches
    for rule in refmatch.RULES:
        if rule.name not in refmatch._HOLDS:
            continue
        for m in rule.regex.compiled.finditer(text):
            assert refmatch._holds(rule, m.group(0)), (rule.name, m.group(0))


@pytest.mark.parametrize("text", _EXAMPLES)
def test_the_gates_change_no_mention(monkeypatch, text):
    found = refmatch.scan(text)
    assert _key(found) == _key(_ungated(monkeypatch, text))
    assert found or text.startswith("1.1")  # the examples are read (the contents line holds none)


def test_a_gate_skips_its_rule_where_the_literal_is_missing():
    # a year and a page number: the prefilter lets the external rules try any text with a digit
    holds = {r.name: refmatch._holds(r, "the 2019 plan, page 12") for r in refmatch.RULES}
    assert not any(holds[n] for n in ("cfr", "usc", "nist_sp", "iso", "form", "named_worksheet"))
    assert holds["section"]  # ungated rules stay


def _classify_link_plain(anchor, line_text, target_page, bib_pages):
    """crossrefs._classify_link before session 15 (the window read even when it is the anchor)."""
    a = anchor.strip("[](),.;: ")
    if re.fullmatch(r"[0-9]{1,4}", a) and target_page in bib_pages:
        return "bib", a, None
    ref_type, target, sub = classify_reference(anchor)
    if ref_type != "unknown":
        return ref_type, target, sub
    pos = line_text.find(anchor) if anchor else -1
    if pos >= 0:
        lo = max(0, pos - 20)
        for r in find_references(line_text[lo : pos + len(anchor) + 1]):
            if (
                r["start"] <= pos - lo + len(anchor)
                and r["end"] >= pos - lo
                and (not a or r["ref_target"] == a)
            ):
                return r["ref_type"], r["ref_target"], r["sub_selector"]
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)+", a):
        return "section", a, None
    return "unknown", a or None, None


@pytest.mark.parametrize(
    ("anchor", "line"),
    [
        ("1.1 Purpose and Scope ....... 1-1", "1.1 Purpose and Scope ....... 1-1"),
        ("3.2", "3.2"),
        ("3.2", "as described in Section 3.2 of this guide"),
        ("1", "shown in Figure 1 and Table 2"),
        ("12", "12"),
        ("12", "[12, 14]"),
        ("AC-2", "AC-2"),
        ("Appendix B", "Appendix B"),
        ("", "nothing"),
        ("operations6", "the operations6 "),
    ],
)
@pytest.mark.parametrize("target", [3, 40])
def test_classify_link_is_the_plain_reading(anchor, line, target):
    bib = {40}
    assert crossrefs._classify_link(anchor, line, target, bib) == _classify_link_plain(
        anchor, line, target, bib
    )


@pytest.mark.parametrize("seed", range(12))
def test_body_size_on_numpy_columns_is_headings_body_size(seed):
    import numpy as np
    import pandas as pd

    from docintel.parsing import objects
    from docintel.parsing.headings import body_size

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    sizes = rng.choice([8.4, 8.5, 9.5, 10.0, 10.5, 11.49, 12.0, np.nan], n).astype(
        np.float32 if seed % 2 else np.float64
    )
    words = ["", "a", "text line", "a longer line of body text", None]
    df = pd.DataFrame(
        {
            "text": pd.array([words[k] for k in rng.integers(0, len(words), n)], dtype="str"),
            "size": sizes,
            "role": rng.choice(["body", "body", "heading", "header", "caption"], n).astype(object),
        }
    )
    keep = ~df["role"].isin(objects._FURNITURE).to_numpy(dtype=bool)
    usable = df[keep]
    if not len(usable):
        return
    want = body_size(usable.loc[usable["role"] == "body", ["text", "size"]])
    assert objects._body_size(df, usable, keep, df["text"].tolist()) == want
