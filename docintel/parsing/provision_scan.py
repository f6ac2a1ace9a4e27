"""The candidate scan: lines that open a paragraph with a provision number.

One pass over the lines in reading order; a line that opens a paragraph (first on its page,
after a stop, a gap, a hanging indent or a column change) and starts like a provision number
becomes a candidate dict: its scheme ("dec" "1.1", "kw" "Article 4", "ss" "\u00a7 25.1309",
"par" "(a)" / "B." / "2."), its number or labels, its run-in title and opening text.
:mod:`provision_chains` then keeps those the numbering vouches for.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pandas as pd

from docintel.parsing import linecols
from docintel.parsing.provision_starts import _para_starts, _ref_end
from docintel.parsing.provision_titles import DEFINED, bold_title, caps_title, title_of
from docintel.text import roman_value as _roman_any

_KW = r"(?:(?P<kw>Section|SECTION|Sec\.|SEC\.|Clause|CLAUSE|Article|ARTICLE|Art\.|Rule|RULE|Regulation|Line)\s+)"
_DEC = re.compile(rf"^{_KW}?\[?(?P<num>[0-9]{{1,3}}(?:\.[0-9]{{1,3}}){{1,4}})\]?\.?(?=\s|$)\s*(?P<rest>.*)$")
_KWNUM = re.compile(
    rf"^{_KW}(?P<num>[0-9]{{1,3}}[a-z]?|[IVXLC]{{1,7}})\b\.?(?:\s*[:.\u2014\u2013-])?\s*(?P<rest>.*)$"
)
#: "\u00a7 1308.13 ...", and a statute's or a German-style contract's "\u00a7 2 Definitions."
_SS = re.compile(r"^\u00a7\s*(?P<num>[0-9]+(?:\.[0-9]+)*[a-z]?)\.?\s+(?P<rest>.*)$")
_PAR = re.compile(r"^(?P<labs>(?:\((?:[a-z]{1,3}|[0-9]{1,3}|[A-Z]{1,2})\)){1,4})\s+(?P<rest>\S.*)$")
#: "2. GRANT OF RIGHTS": a one-level number is a provision only with a title in capitals
_TOP = re.compile(r"^(?P<num>[0-9]{1,2})\.\s+(?P<rest>[A-Z][A-Z0-9 ,;:'\u2019&/-]{3,}(?:[.:]\s*.*)?)$")
#: "B. Under Patent Rights: ...": a capital letter and a stop opens a lettered paragraph
_LETTER = re.compile(r"^(?P<lab>[A-Z])\.\s+(?P<rest>[\"\u201c\u2018(\[]?[A-Z].*)$")
#: "a) the fee ...", "ii. the expenses", "1) the setup fee": a list label in the closing-bracket
#: or the stop style, read as the label "(a)" / "(1)"; a "1)" is flagged ``half``: it is a
#: provision's paragraph only under a provision (:mod:`provisions`), a guideline's enumerations
#: under its headings stay list items (NIST SP 800-106's "1) Specified in a FIPS ...")
_HALF = re.compile(r"^(?P<lab>[a-z]{1,2}|[ivx]{1,4}|[A-Z]|[1-9][0-9]?)\)\s+(?P<rest>\S.*)$")
_LOWDOT = re.compile(r"^(?P<lab>[a-z]|[ivx]{2,4})\.\s+(?P<rest>[\"\u201c\u2018(]?[A-Za-z].*)$")
#: "2. The controller shall ...": a numbered paragraph of an article (kept only under one)
_NUMPAR = re.compile(r"^(?P<lab>[0-9]{1,2})\.\s+(?P<rest>[\"\u201c\u2018(]?[A-Z].*)$")
#: A line holding only a label ("H.", "(a)", "1.1"), its text set on the same baseline
_BARE = re.compile(r"^(?:\(?[A-Za-z0-9]{1,4}[.)]|[0-9]{1,3}(?:\.[0-9]{1,3})+\.?)$")
#: A short run-in title in sentence case: "Short title. This Act ...", "Term of agreement. The ..."
_SENTENCE_TITLE = re.compile(r"^(?P<t>[A-Z][a-z]+(?:[ -][A-Za-z][a-z]*){0,4})\.\s+(?=[A-Z\"\u201c(])")
_GLUED = re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,3}){1,4}\.?\s+[A-Z][a-z]")
_OPEN = re.compile(r"^[\"\u201c\u2018'\[(]?[A-Z\u00c0-\u024f]")
_SKIP_ROLES = {
    "header",
    "footer",
    "page_number",
    "toc_entry",
    "title",
    "heading",
    "table",
    "figure_text",
    "caption",
}
#: A section-sign line this much larger than the median body line is set as a heading.
BIGGER_BY_PT = 0.8
_KW_FAMILY = {"sec.": "section", "art.": "article"}
_KW_RANK = {
    "article": 0,
    "art.": 0,
    "rule": 0,
    "regulation": 0,
    "section": 1,
    "sec.": 1,
    "clause": 2,
    "line": 2,
}


def roman_value(s: str) -> int | None:
    """'iv' -> 4, 'XII' -> 12; None unless well formed (i v x l c only: "(d)" is a letter)."""
    return _roman_any(s, "ivxlc")


def par_types(lab: str) -> list[tuple[str, int]]:
    """Every (scheme, value) a paragraph label can be: '(i)' is roman 1 or letter 9."""
    out = []
    if lab.isdigit():
        out.append(("digit", int(lab)))
    elif lab.islower():
        if len(lab) == 1:
            out.append(("lower", ord(lab) - 96))
        elif len(set(lab)) == 1:
            out.append(("lower", 26 * (len(lab) - 1) + ord(lab[0]) - 96))  # "(aa)" after "(z)"
        rv = roman_value(lab)
        if rv:
            out.append(("roman", rv))
    elif lab.isupper():
        if len(lab) == 1:
            out.append(("upper", ord(lab) - 64))
        rv = roman_value(lab)
        if rv:
            out.append(("uroman", rv))
    return out


#: What one of _DEC, _KWNUM, _SS, _TOP, _LETTER, _PAR needs at the start (one test, not six).
_MAY_PROVISION = re.compile(
    r"[0-9\[(\u00a7]|[A-Z][.)]\s|[a-z]{1,4}[.)]\s|(?:Section|SECTION|Sec\.|SEC\.|Clause|CLAUSE|Article|ARTICLE|Art\.|Rule|RULE"
    r"|Regulation|Line)\s"
)


def _may_open(raw: str) -> bool:
    """False only for a stripped line whose normalised text (``" ".join(raw.split())``) is no bare
    label (at most five characters, or a number: _MAY_PROVISION's digit), no quoted definition and
    no _MAY_PROVISION match; read before the whitespace is normalised (the pattern's ``\\s`` and
    ``str.split()`` agree on whitespace, and every other character it reads is the same)."""
    return len(raw) <= 5 or raw[:1] in "\"\u201c\u2018'" or _MAY_PROVISION.match(raw) is not None


#: Columns the candidate scan reads (rows built from these only; see :mod:`frame_rows`).
_COLS = ["page", "line", "text", "role", "x0", "y0", "x1", "y1", "size"]
#: ``itertuples``' row of those columns (what ``frame_rows.Rows`` gives).
_Row = collections.namedtuple("Pandas", ("Index", *_COLS), rename=True)


_PAREN_BARE = re.compile(r"^\((?:[a-z]{1,3}|[0-9]{1,3}|[A-Z]{1,2})\)$")


def _stacked_label(r, n) -> bool:
    """A parenthesized label alone on its line, the next line opening with a deeper label right
    of it ("(3)" printed over "(i) Standard: ..."): one paragraph labelled "(3)(i)"."""
    return (
        _PAREN_BARE.match(str(r.text).strip()) is not None
        and n.page == r.page
        and _PAR.match(str(n.text).strip()) is not None
        and n.x0 > r.x0 + 2
        and 0 <= n.y0 - r.y1 <= 2.5 * max(float(r.size), 4.0)
    )


def _text_below(r, n) -> bool:
    """A parenthesized label alone on its line, its text starting on the next line at or right of
    it ("(a)" over "The licence is personal ..."): one paragraph labelled "(a)"."""
    return (
        _PAREN_BARE.match(str(r.text).strip()) is not None
        and n.page == r.page
        and _BARE.match(str(n.text).strip()) is None
        and _OPEN.match(str(n.text).strip()) is not None
        and n.x0 >= r.x0 - 1
        and -0.5 * float(r.size) <= n.y0 - r.y1 <= 1.5 * max(float(r.size), 4.0)
    )


def _in_reading_order(lines: pd.DataFrame) -> bool:
    """Integer (page, line) never decreasing: ``sort_values(["page", "line"])`` (a stable lexsort
    for two keys) would keep every row where it is (line_df usually is in that order)."""
    page, line = lines["page"].to_numpy(), lines["line"].to_numpy()
    if page.dtype.kind not in "iu" or line.dtype.kind not in "iu":
        return False
    step = np.diff(page)
    return bool(((step > 0) | ((step == 0) & (np.diff(line) >= 0))).all())


def candidates(line_df: pd.DataFrame, leads: pd.Series | None) -> list[dict]:
    lines = line_df[_COLS]
    if not _in_reading_order(lines):
        lines = lines.sort_values(["page", "line"])
    cols = {c: linecols.tolist(lines[c]) if c == "text" else lines[c].tolist() for c in _COLS}
    bolds = (
        line_df.loc[lines.index, "bold"].fillna(False).astype(bool).tolist()
        if "bold" in line_df
        else [False] * len(lines)
    )
    starts = _para_starts(cols)
    # a section-sign heading set larger than the body type (an eCFR print's "\u00a7 164.502 Uses
    # ..." in 10 pt over 8.8 pt text) is vouched for by its typography, as a bold one is
    sizes = lines.loc[lines["role"].isin(("body", "list_item")), "size"].dropna()
    body = float(sizes.median()) if len(sizes) else 0.0
    if lines["size"].dtype == np.float64:  # ``float(z or 0)`` is ``z`` (NaN compares False): at once
        big = ((lines["size"].to_numpy() >= body + BIGGER_BY_PT) & bool(body)).tolist()
    else:
        big = [bool(body) and float(z or 0) >= body + BIGGER_BY_PT for z in cols["size"]]
    styled = [b or g for b, g in zip(bolds, big, strict=True)]
    # rows (namedtuples) only for the lines that open a paragraph outside the skipped roles
    # (``frame_rows.Rows(lines)`` from the column lists already read: the same values, no second read)
    make, index = _Row._make, lines.index.tolist()
    listed = [cols[c] for c in _COLS]

    def row_at(k: int):
        return make([index[k], *(c[k] for c in listed)])

    out = []
    pages, roles, texts = cols["page"], cols["role"], cols["text"]
    # the leads as a dict once (Series.get per line is pandas indexing)
    lead_of = dict(zip(leads.index.tolist(), leads.tolist(), strict=True)) if leads is not None else None
    absorbed = joined = -1
    for i, start in enumerate(starts):
        if roles[i] in _SKIP_ROLES or i == absorbed:
            continue
        if not start:
            # a clause number glued to the line above ("... by the other party" / "5.3 Termination
            # ..."): only a decimal number opening a capitalized sentence, the chain vouches for it
            g = _GLUED.match(str(texts[i]).lstrip())
            if not g or _ref_end(str(texts[i - 1]).rstrip()) or str(texts[i - 1]).rstrip().endswith("-"):
                continue
        raw = str(texts[i]).strip()
        if not _may_open(raw):
            continue
        text = " ".join(raw.split())
        bare = _BARE.match(text) and i + 1 < len(starts)
        d = DEFINED.match(text) if text[:1] in "\"\u201c\u2018'" and i != joined else None
        if d:  # '"Business Day" means any weekday ...': an unnumbered definition
            r = row_at(i)
            term = d.group("term").strip()
            out.append(
                {"page": int(r.page), "line": int(r.line), "text": text, "idx": r.Index, "scheme": "def"}
            )
            out[-1].update({"kw": "", "title": "", "term": term, "rest": text})
            continue
        if not bare and not _MAY_PROVISION.match(text):
            continue  # no provision pattern can match this text
        r = row_at(i)
        alone = i + 1 >= len(starts) or starts[i + 1] or pages[i + 1] != r.page
        alone = alone or (bolds[i] and not bolds[i + 1])  # a bold line over plain text is its own
        if bare:
            n = row_at(i + 1)  # "H." then "“Recipient” means ..." on its baseline
            if n.page == r.page and abs(n.y0 - r.y0) <= 0.3 * max(float(r.size), 4.0) and n.x0 > r.x1:
                text = text + " " + " ".join(str(n.text).split())
                joined = i + 1  # its text: no definition of its own
                alone = i + 2 >= len(starts) or starts[i + 2] or pages[i + 2] != r.page
            elif _stacked_label(r, n):
                text = text + " ".join(str(n.text).split())  # "(3)" over "(i) Standard: ..."
                absorbed = i + 1
                alone = i + 2 >= len(starts) or starts[i + 2] or pages[i + 2] != r.page
            elif _text_below(r, n):
                text = text + " " + " ".join(str(n.text).split())  # "(a)" over "The licence is ..."
                joined = i + 1
                alone = i + 2 >= len(starts) or starts[i + 2] or pages[i + 2] != r.page
        base = {"page": int(r.page), "line": int(r.line), "text": text, "idx": r.Index}
        lead = lead_of.get(r.Index) if lead_of is not None else None
        m = _DEC.match(text)
        if m and (m.group("kw") or _OPEN.match(m.group("rest")) or not m.group("rest")):
            num = tuple(int(x) for x in m.group("num").split("."))
            if num[0] > 0:
                kw = (m.group("kw") or "").lower()
                out.append(
                    {
                        **base,
                        "scheme": "dec",
                        "num": num,
                        "printed": m.group("num"),
                        "kw": kw,
                        "title": title_of(m.group("rest"), lead, alone),
                        "rest": m.group("rest"),
                    }
                )
            continue
        m = _KWNUM.match(text)
        if m:
            raw = m.group("num")
            # "Line 1a": a tax form's line 1, its item a (the chain rises 1a, 1b, 2a)
            sub = raw[-1] if raw[-1].islower() else ""
            val = int(raw.rstrip(sub)) if raw.rstrip(sub).isdigit() else roman_value(raw)
            if val and (not m.group("rest") or _OPEN.match(m.group("rest"))):
                kw = _KW_FAMILY.get(m.group("kw").lower(), m.group("kw").lower())
                title = title_of(m.group("rest"), lead, alone) or caps_title(m.group("rest"), i, cols)
                out.append(
                    {
                        **base,
                        "scheme": "kw",
                        "kwrank": _KW_RANK.get(kw, 1),
                        "kw": kw,
                        "val": val,
                        "sub": sub,
                        "printed": raw,
                        "title": title,
                        "rest": m.group("rest"),
                        "bold": styled[i],
                    }
                )
            continue
        m = _SS.match(text)
        if m:
            num = tuple(int(x) for x in re.findall(r"[0-9]+", m.group("num")))
            title = title_of(m.group("rest"), lead, alone)
            if styled[i] and not title:
                title = bold_title(m.group("rest"), i, cols, styled)
            out.append(
                {
                    **base,
                    "scheme": "ss",
                    "num": num,
                    "printed": m.group("num"),
                    "kw": "\u00a7",
                    "title": title,
                    "rest": m.group("rest"),
                    "bold": styled[i],
                }
            )
            continue
        m = _TOP.match(text)
        if m:
            title = title_of(m.group("rest"), lead, alone) or caps_title(m.group("rest"), i, cols)
            out.append(
                {
                    **base,
                    "scheme": "dec",
                    "num": (int(m.group("num")),),
                    "printed": m.group("num"),
                    "kw": "",
                    "title": title,
                    "rest": m.group("rest"),
                }
            )
            continue
        m = _NUMPAR.match(text) or _LETTER.match(text)  # "2. The controller ...", "B. Under ..."
        if m:
            row = {
                **base,
                "scheme": "par",
                "labs": [m.group("lab")],
                "rest": m.group("rest"),
                "title": title_of(m.group("rest"), lead),  # "1. Availability. The Services ..."
            }
            if m.re is _NUMPAR:
                row["dot"] = True
                row["num"], row["printed"] = (int(m.group("lab")),), m.group("lab")
                s = _SENTENCE_TITLE.match(m.group("rest")) if not row["title"] else None
                if s:  # "1. Short title. This Act ...": a title in sentence case, vouched for later
                    row["weak_title"] = s.group("t")
            out.append(row)
            continue
        m = _HALF.match(text) or _LOWDOT.match(text)  # "a) the fee ...", "ii. the expenses ..."
        if m:
            out.append(
                {
                    **base,
                    "scheme": "par",
                    "labs": [m.group("lab")],
                    "rest": m.group("rest"),
                    "title": title_of(m.group("rest"), lead, alone),
                    "half": m.group("lab").isdigit(),
                }
            )
            continue
        m = _PAR.match(text)
        # the text opens with a word or a quoted term ("(1) \u2018personal data\u2019 means ...")
        if m and re.match(r"[\"\u201c\u2018'\[(]?[^\W\d_]", m.group("rest")):
            labs = re.findall(r"\(([^)]+)\)", m.group("labs"))
            out.append(
                {
                    **base,
                    "scheme": "par",
                    "labs": labs,
                    "rest": m.group("rest"),
                    "title": title_of(m.group("rest"), lead, alone),
                }
            )
    return out
