"""Numbered provisions: clauses, sub-clauses, articles, paragraphs that carry no heading typography.

Contracts and rule books number their provisions in body type: "1.1 In this Agreement ...",
"Section 6.03 Payment. The Buyer ...", "ARTICLE IV", "[3.1.2]", "(a)(1)", "§ 25.1309".
Heading detection (typography) misses them; this module finds the lines that *open a
paragraph* with such a number and keeps only those the document's own numbering sequence
vouches for:

- a decimal number "N.M" needs its parent "N" (a heading or an accepted provision) or a
  sibling chain ("1.1" then "1.2"), and siblings must rise by one or two, after the parent;
- a keyword number ("Article 4", "SEC. 102.") needs a rising chain of the same keyword;
- a paragraph label "(b)" must continue an open level ("(a)") or start a new one at its
  first value ("(a)", "(1)", "(i)", "(A)"), nested under the provision or heading before it.

Numbers that do not fit the sequence (a "2.5 times" sentence, a list restarting at "(c)",
a cross-reference at a line start) are dropped. Accepted provisions become toc entries with
``source="provision"``: title the run-in title when there is one ("Payment"), else empty
(an untitled sub-clause is not a heading). :func:`docintel.parsing.clauses.clause_objects` turns the clause-like ones
(decimal, keyword and section-sign numbers, and the headings they hang under) into registry
rows of type ``clause``.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.parsing import frame_rows, provision_labels
from docintel.parsing.headings import TITLE_CASE_MIN_FRACTION
from docintel.text import roman_value as _roman_any

_KW = r"(?:(?P<kw>Section|SECTION|Sec\.|SEC\.|Clause|CLAUSE|Article|ARTICLE|Art\.|Rule|RULE|Regulation)\s+)"
_DEC = re.compile(rf"^{_KW}?\[?(?P<num>[0-9]{{1,3}}(?:\.[0-9]{{1,3}}){{1,4}})\]?\.?(?=\s|$)\s*(?P<rest>.*)$")
_KWNUM = re.compile(
    rf"^{_KW}(?P<num>[0-9]{{1,3}}|[IVXLC]{{1,7}})\b\.?(?:\s*[:.\u2014\u2013-])?\s*(?P<rest>.*)$"
)
_SS = re.compile(r"^\u00a7\s*(?P<num>[0-9]+(?:\.[0-9]+)+[a-z]?)\.?\s+(?P<rest>.*)$")
_PAR = re.compile(r"^(?P<labs>(?:\((?:[a-z]{1,3}|[0-9]{1,3}|[A-Z]{1,2})\)){1,4})\s+(?P<rest>\S.*)$")
#: "2. GRANT OF RIGHTS": a one-level number is a provision only with a title in capitals
_TOP = re.compile(r"^(?P<num>[0-9]{1,2})\.\s+(?P<rest>[A-Z][A-Z0-9 ,;:'\u2019&/-]{3,}(?:[.:]\s*.*)?)$")
#: "B. Under Patent Rights: ...": a capital letter and a stop opens a lettered paragraph
_LETTER = re.compile(r"^(?P<lab>[A-Z])\.\s+(?P<rest>[\"\u201c\u2018(\[]?[A-Z].*)$")
#: "2. The controller shall ...": a numbered paragraph of an article (kept only under one)
_NUMPAR = re.compile(r"^(?P<lab>[0-9]{1,2})\.\s+(?P<rest>[\"\u201c\u2018(]?[A-Z].*)$")
#: A line holding only a label ("H.", "(a)", "1.1"), its text set on the same baseline
_BARE = re.compile(r"^(?:\(?[A-Za-z0-9]{1,4}[.)]|[0-9]{1,3}(?:\.[0-9]{1,3})+\.?)$")
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
_KW_FAMILY = {"sec.": "section", "art.": "article"}
_KW_RANK = {"article": 0, "art.": 0, "rule": 0, "regulation": 0, "section": 1, "sec.": 1, "clause": 2}


def roman_value(s: str) -> int | None:
    """'iv' -> 4, 'XII' -> 12; None unless well formed (i v x l c only: "(d)" is a letter)."""
    return _roman_any(s, "ivxlc")


def _par_types(lab: str) -> list[tuple[str, int]]:
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


def _para_starts(c: dict[str, list]) -> list[bool]:
    """Whether each line (column lists in reading order) opens a paragraph: first on its page, after
    a stop, a larger gap, hanging left of the line above, or beside it in the next column (two
    columns read line by line)."""
    pages, texts, roles = c["page"], c["text"], c["role"]
    x0, y0, y1, size = c["x0"], c["y0"], c["y1"], c["size"]
    out = []
    for i in range(len(pages)):
        if i == 0 or pages[i - 1] != pages[i]:
            out.append(True)
        else:
            t = str(texts[i - 1]).rstrip()
            out.append(
                roles[i] == "list_item"
                or t.endswith((".", ":", ";", "!", "?", "]", ")"))
                or _AND_OR.search(t) is not None
                or y0[i] - y1[i - 1] > 0.5 * max(float(size[i]), 4.0)
                or y0[i] < y0[i - 1] - 1  # a new column
                or x0[i] < x0[i - 1] - 2
                or (x0[i] > c["x1"][i - 1] and y0[i] <= y1[i - 1])  # a line of the next column
            )
    return out


#: What one of _DEC, _KWNUM, _SS, _TOP, _LETTER, _PAR needs at the start (one test, not six).
_MAY_PROVISION = re.compile(
    r"[0-9\[(\u00a7]|[A-Z]\.\s|(?:Section|SECTION|Sec\.|SEC\.|Clause|CLAUSE|Article|ARTICLE|Art\.|Rule|RULE"
    r"|Regulation)\s"
)
_AND_OR = re.compile(r"[;,]\s+(?:and|or)$")
#: Columns the candidate scan reads (rows built from these only; see :mod:`frame_rows`).
_COLS = ["page", "line", "text", "role", "x0", "y0", "x1", "y1", "size"]


def _title_of(rest: str, lead: str | None, alone: bool = False) -> str:
    """The run-in title after a provision number, or '' for an untitled provision.

    ``alone``: the line is a paragraph by itself, so a short Title Case rest with no stop
    is a title on its own line ("1.3.1.  Authorization Code" in a monospace RFC).
    """
    rest = rest.strip()
    if isinstance(lead, str) and lead.strip() and rest.startswith(lead.strip()[:10]):
        t = re.split(r"\.\u2014", lead.strip())[0].rstrip(".:\u2014\u2013- ")  # "PLAN.\u2014The term"
        if 0 < len(t) <= 100:
            return t
    # "Payment. The Buyer ...", "AT-RISK COMMUNITY.\u2014The term ..." (a statute's run-in title)
    m = re.match(r"^(?P<t>[A-Z][^.:;!?]{1,80}?)(?:[.:\u2014]\s+|\.\u2014)(?=\S)", rest)
    if alone and (re.fullmatch(r"[^.;,]{2,100}\.", rest) or re.fullmatch(r"[^.a-z]{2,100}\.", rest)):
        rest = rest[:-1]  # "SEC. 101. DEFINITIONS." / "SHORT TITLE; TABLE OF CONTENTS." on a line of its own
    dangling = re.search(r"[.;,]$|\b(?:and|or|the|of|to|in|for|a|an|with|by|on)$", rest)
    cand = m.group("t") if m else (rest if alone and not dangling else "")
    words = cand.split()
    long_words = [w for w in words if len(w) > 3]
    if (
        cand
        and re.search(r"[^\W\d_]{3,}", cand)  # a word, not a formula ("F(x, y) = y2 \u2212x3")
        and 1 <= len(words) <= 10
        and long_words
        and sum(w[0].isupper() for w in long_words) >= TITLE_CASE_MIN_FRACTION * len(long_words)
    ):
        return cand.strip(" .:\u2014\u2013")
    return ""


def _bold_title(rest: str, i: int, cols: dict[str, list], bolds: list[bool]) -> str:
    """A bold section title that wraps ("\u00a7 1307.22 Disposal of controlled sub-" / "stances by
    the Administration."): the bold lines up to the stop, '' when no stop ends them."""
    t, j, pages, texts = rest.strip(), i + 1, cols["page"], cols["text"]
    while not t.endswith(".") and j < len(texts) and j <= i + 2 and pages[j] == pages[i] and bolds[j]:
        nxt = " ".join(str(texts[j]).split())
        t = t[:-1] + nxt if t.endswith("-") and nxt[:1].islower() else f"{t} {nxt}"
        j += 1
    if not t.endswith(".") or len(t) > 160 or not t[:1].isupper():
        return ""
    return t.rstrip(".").strip()


def _caps_title(rest: str, i: int, cols: dict[str, list]) -> str:
    """A title in capitals that wraps ("4. DISCLAIMER OF WARRANTIES AND LIABILITIES; WAIVER AND" /
    "INDEMNIFICATION"): the line and up to two more lines of capitals directly under it, up to
    the one that ends with a stop (or the last); '' when the first line is not capitals."""
    t = rest.strip()
    if not t.isupper() or t.endswith(".") or not re.search(r"[A-Z]{2}", t):
        return ""
    parts, j = [t], i + 1
    while j < len(cols["text"]) and j <= i + 2 and cols["page"][j] == cols["page"][i]:
        nxt = " ".join(str(cols["text"][j]).split())
        if (
            not nxt.isupper()
            or len(nxt.split()) > 8
            or not -0.5 * cols["size"][i] <= cols["y0"][j] - cols["y1"][j - 1] <= cols["size"][i]
        ):
            break
        parts.append(nxt)
        j += 1
        if nxt.endswith("."):
            break
    words = " ".join(parts).rstrip(".:").split()
    return " ".join(words) if len(parts) > 1 and len(words) <= 20 else ""


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


def _candidates(line_df: pd.DataFrame, leads: pd.Series | None) -> list[dict]:
    lines = line_df.sort_values(["page", "line"])[_COLS]
    cols = {c: lines[c].tolist() for c in _COLS}
    bolds = (
        line_df.loc[lines.index, "bold"].fillna(False).astype(bool).tolist()
        if "bold" in line_df
        else [False] * len(lines)
    )
    starts = _para_starts(cols)
    # rows (namedtuples) only for the lines that open a paragraph outside the skipped roles
    recs = frame_rows.Rows(lines)
    out = []
    pages, roles, texts = cols["page"], cols["role"], cols["text"]
    # the leads as a dict once (Series.get per line is pandas indexing)
    lead_of = dict(zip(leads.index.tolist(), leads.tolist(), strict=True)) if leads is not None else None
    absorbed = -1
    for i, start in enumerate(starts):
        if not start or roles[i] in _SKIP_ROLES or i == absorbed:
            continue
        text = " ".join(str(texts[i]).split())
        bare = _BARE.match(text) and i + 1 < len(starts)
        if not bare and not _MAY_PROVISION.match(text):
            continue  # no provision pattern can match this text
        r = recs.take((i,))[0]
        alone = i + 1 >= len(starts) or starts[i + 1] or pages[i + 1] != r.page
        if bare:
            n = recs.take((i + 1,))[0]  # "H." then "“Recipient” means ..." on its baseline
            if n.page == r.page and abs(n.y0 - r.y0) <= 0.3 * max(float(r.size), 4.0) and n.x0 > r.x1:
                text = text + " " + " ".join(str(n.text).split())
                alone = i + 2 >= len(starts) or starts[i + 2] or pages[i + 2] != r.page
            elif _stacked_label(r, n):
                text = text + " ".join(str(n.text).split())  # "(3)" over "(i) Standard: ..."
                absorbed = i + 1
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
                        "title": _title_of(m.group("rest"), lead, alone),
                        "rest": m.group("rest"),
                    }
                )
            continue
        m = _KWNUM.match(text)
        if m:
            raw = m.group("num")
            val = int(raw) if raw.isdigit() else roman_value(raw)
            if val and (not m.group("rest") or _OPEN.match(m.group("rest"))):
                kw = _KW_FAMILY.get(m.group("kw").lower(), m.group("kw").lower())
                title = _title_of(m.group("rest"), lead, alone) or _caps_title(m.group("rest"), i, cols)
                out.append(
                    {
                        **base,
                        "scheme": "kw",
                        "kwrank": _KW_RANK.get(kw, 1),
                        "kw": kw,
                        "val": val,
                        "printed": raw,
                        "title": title,
                        "rest": m.group("rest"),
                    }
                )
            continue
        m = _SS.match(text)
        if m:
            num = tuple(int(x) for x in re.findall(r"[0-9]+", m.group("num")))
            title = _title_of(m.group("rest"), lead, alone)
            if bolds[i] and not title:
                title = _bold_title(m.group("rest"), i, cols, bolds)
            out.append(
                {
                    **base,
                    "scheme": "ss",
                    "num": num,
                    "printed": m.group("num"),
                    "kw": "\u00a7",
                    "title": title,
                    "rest": m.group("rest"),
                    "bold": bolds[i],
                }
            )
            continue
        m = _TOP.match(text)
        if m:
            title = _title_of(m.group("rest"), lead, alone) or _caps_title(m.group("rest"), i, cols)
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
        m = _NUMPAR.match(text)
        if m:
            out.append(
                {
                    **base,
                    "scheme": "par",
                    "labs": [m.group("lab")],
                    "rest": m.group("rest"),
                    "title": "",
                    "dot": True,
                }
            )
            continue
        m = _LETTER.match(text)
        if m:
            out.append(
                {
                    **base,
                    "scheme": "par",
                    "labs": [m.group("lab")],
                    "rest": m.group("rest"),
                    "title": _title_of(m.group("rest"), lead),
                }
            )
            continue
        m = _PAR.match(text)
        if m and re.match(r"[\"\u201c\[(]?[^\W\d_]", m.group("rest")):
            labs = re.findall(r"\(([^)]+)\)", m.group("labs"))
            out.append(
                {
                    **base,
                    "scheme": "par",
                    "labs": labs,
                    "rest": m.group("rest"),
                    "title": _title_of(m.group("rest"), lead, alone),
                }
            )
    return out


#: This many numbered one-line entries in a row are a printed list of contents, not provisions.
LISTING_RUN = 5


def _drop_listings(cands: list[dict]) -> list[dict]:
    """Drop runs of numbered lines that follow each other line by line ("SEC. 101. Definitions."
    / "SEC. 102. ..." in a bill's table of contents): provisions have bodies between them."""
    numbered = [c for c in cands if c["scheme"] != "par"]
    gone: set[int] = set()

    # a number printed twice: the copy with no body under it (a contents line) is not the provision
    def key(c: dict) -> tuple:
        return (c["scheme"], c["kw"], c.get("num") or c.get("val"))

    def bare(i: int) -> bool:
        c, n = numbered[i], numbered[i + 1] if i + 1 < len(numbered) else None
        return n is not None and n["page"] == c["page"] and n["line"] - c["line"] <= 2

    copies: dict[tuple, list[int]] = {}
    for i, c in enumerate(numbered):
        copies.setdefault(key(c), []).append(i)
    for ix in copies.values():
        if len(ix) > 1 and not all(bare(i) for i in ix):
            gone |= {id(numbered[i]) for i in ix if bare(i)}
    run: list[dict] = []
    for c in numbered + [None]:
        if c is not None and run and c["page"] == run[-1]["page"] and c["line"] == run[-1]["line"] + 1:
            run.append(c)
            continue
        if len(run) >= LISTING_RUN:
            gone |= {id(x) for x in run}
        run = [c] if c is not None else []
    return [c for c in cands if id(c) not in gone]


def _accept_chains(
    cands: list[dict],
    known: dict[tuple, tuple[int, int]],
    parts: list[tuple[int, int]] = (),
    signs: list[tuple] = (),
) -> list[dict]:
    """Decimal / section-sign candidates the sequence vouches for (see the module doc).

    ``parts``: positions of "Part N" / "Chapter N" headings; any keyword chain may restart at 1
    after one ("SECTION 1" of each chapter of a regulation).
    """
    accepted: list[dict] = []
    known = dict(known)
    # keyword numbers: rising chains per keyword ("SEC. 101." "SEC. 102.")
    for kw in sorted({c["kw"] for c in cands if c["scheme"] == "kw"}):
        chain, cur = [], None
        for c in (c for c in cands if c["scheme"] == "kw" and c["kw"] == kw):
            v = c["val"]
            last = (chain[-1]["page"], chain[-1]["line"]) if chain else None
            if cur is not None and v == 1 and any(last < p < (c["page"], c["line"]) for p in parts):
                chain.append(c)  # a new chapter restarts its sections
                cur = v
                continue
            # bills number sections by title: SEC. 101 ... then SEC. 201 under TITLE II
            first = v <= 2 or v % 100 == 1
            if (cur is None and first) or (
                cur is not None and (cur < v <= cur + 2 or (v > cur and v % 100 == 1))
            ):
                chain.append(c)
                cur = v
            elif cur is not None and c["val"] <= 2 and c["kw"] in ("article", "rule"):
                chain.append(c)  # a new part restarts the numbering
                cur = c["val"]
        if len(chain) >= 2:
            accepted += chain
            for c in chain:  # "ARTICLE II" is the parent of "Section 2.01"
                known.setdefault((c["val"],), (c["page"], c["line"]))
    for scheme in ("dec", "ss"):
        pool = [c for c in cands if c["scheme"] == scheme]
        have = dict(known) if scheme == "dec" else {}
        for depth in sorted({len(c["num"]) for c in pool}):
            groups: dict[tuple, list[dict]] = {}
            for c in pool:
                if len(c["num"]) == depth and c["num"] not in have:
                    groups.setdefault(c["num"][:-1], []).append(c)
            for parent, group in groups.items():
                ppos = have.get(parent)
                nxt = have.get(parent[:-1] + (parent[-1] + 1,)) if parent else None
                chain, cur = [], None
                for c in sorted(group, key=lambda c: (c["page"], c["line"])):
                    pos = (c["page"], c["line"])
                    if ppos is not None and pos <= ppos or nxt is not None and pos >= nxt:
                        continue
                    v = c["num"][-1]
                    first_ok = v <= 2 or (ppos is not None and v <= 3) or scheme == "ss"
                    if (cur is None and first_ok) or (cur is not None and cur < v <= cur + 2):
                        chain.append(c)
                        cur = v
                if ppos is not None or len(chain) >= 2:
                    for c in chain:
                        have[c["num"]] = (c["page"], c["line"])
                        accepted.append(c)
    accepted += _bold_sections([c for c in cands if c["scheme"] == "ss"], accepted, signs)
    return accepted


def _bold_sections(pool: list[dict], accepted: list[dict], signs: list[tuple]) -> list[dict]:
    """Section-sign provisions set in bold with a title ("\u00a7 1308.21 Application for exclusion
    ..."), each numbered above the section before it: a part's sections skip numbers (1308.15,
    1308.21), so no chain vouches for them, their typography does. ``signs``: (position, number)
    of the section-sign headings."""
    done = {id(c) for c in accepted}
    seen = sorted([*signs, *(((c["page"], c["line"]), c["num"]) for c in accepted if c["scheme"] == "ss")])
    out: list[dict] = []
    for c in pool:
        if id(c) in done or not c.get("bold") or not c["title"]:
            continue
        pos = (c["page"], c["line"])
        before = [n for p, n in seen if p < pos]
        after = [n for p, n in seen if p > pos]
        if (not before or before[-1] < c["num"]) and (not after or c["num"] < after[0]):
            out.append(c)
            seen = sorted([*seen, (pos, c["num"])])
    return out


def find_provisions(line_df: pd.DataFrame, entries: list[dict], leads: pd.Series | None = None) -> list[dict]:
    """New toc entries for the numbered provisions the headings in ``entries`` do not cover.

    ``entries`` are build_toc's ordered heading entries (levels final); the returned entries
    carry the same keys plus ``toc_id`` (path ids: "1.1", "(h)(1)", "1.1(a)").
    """
    if line_df.empty:
        return []
    cands = _candidates(line_df, leads)
    if not cands:
        return []
    taken = {(e["page_start"], ln) for e in entries for ln in (e.get("lines") or [e["line_start"]])}
    cands = [c for c in cands if (c["page"], c["line"]) not in taken]
    known: dict[tuple, tuple[int, int]] = {}
    for e in entries:
        n = e.get("number")
        if isinstance(n, str) and re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3}){0,4}\.?", n.strip()):
            known.setdefault(
                tuple(int(x) for x in n.strip().rstrip(".").split(".")),
                (e["page_start"], e["line_start"] or 0),
            )
    cands = _drop_listings(cands)
    provision_labels.number_labels(entries)
    parts = sorted(
        (e["page_start"], e["line_start"] or 0)
        for e in entries
        if (e.get("kind") == "part" or e.get("part")) and e.get("number")
    )
    signs = [
        (
            (e["page_start"], e["line_start"] or 0),
            tuple(int(v) for v in re.findall(r"[0-9]+", str(e["number"]))),
        )
        for e in entries
        if e.get("kind") == "section_sign" and e.get("number")
    ]
    good_c = _accept_chains(cands, known, parts, signs)
    good = {id(c) for c in good_c}
    # "Article 24" / "SECTION 1" over their title lines: one provision with that title
    absorbed = provision_labels.join_titles(entries, [c for c in good_c if c["scheme"] == "kw"], line_df)
    cands = [c for c in cands if (c["page"], c["line"]) not in absorbed]
    _rank_keywords([c for c in good_c if c["scheme"] == "kw"])
    stream = [("e", (e["page_start"], e["line_start"] or 0), e) for e in entries]
    stream += [("c", (c["page"], c["line"]), c) for c in cands if c["scheme"] == "par" or id(c) in good]
    stream.sort(key=lambda s: (s[1], s[0] == "c"))
    return _assign(stream)


def _rank_keywords(kws: list[dict]) -> None:
    """Rank keywords by how the document nests them (in place): a label directly followed by
    another keyword's label opens it ("SECTION 1" / "GENERAL OBLIGATIONS" / "Article 24": a
    regulation's sections hold articles, a contract's articles hold sections)."""
    votes: dict[tuple[str, str], int] = {}
    kws = sorted(kws, key=lambda c: (c["page"], c["line"]))
    for a, b in zip(kws, kws[1:], strict=False):
        if a["kw"] != b["kw"] and a["page"] == b["page"] and b["line"] - a["line"] <= 3:
            votes[(a["kw"], b["kw"])] = votes.get((a["kw"], b["kw"]), 0) + 1
    rank = {c["kw"]: c["kwrank"] for c in kws}
    for (a, b), n in votes.items():
        if n > votes.get((b, a), 0) and rank[a] >= rank[b]:
            rank[a] = rank[b] - 0.5
    for c in kws:
        c["kwrank"] = rank[c["kw"]]


def _assign(stream: list) -> list[dict]:
    """Levels, path ids and paragraph nesting, walking headings and provisions in reading order."""
    out: list[dict] = []
    ctx_level = 0  # level of the heading / provision the next paragraphs nest under
    head_level = 0  # level of the last heading: numbered provisions with no parent go under it
    nodes: dict[tuple, tuple[int, str]] = {}  # decimal number -> (level, toc_id)
    sib_level: dict[tuple, int] = {}  # parent number -> level of its children seen so far
    kw_stack: list[tuple[int, int]] = []  # (keyword rank, level) of open keyword provisions
    par: list[list] = []  # open paragraph levels: [scheme, value, level, label]
    owner = ""  # toc_id prefix of the open paragraph levels ("1.1" -> "1.1(a)")
    kw_owner = False  # the open provision is a keyword one ("Article 24"): "1." opens its paragraphs
    kw_level: dict[str, int] = {}  # keyword -> level of its provisions so far (one level per keyword)
    in_part = False  # the last heading opens a part ("TITLE I", "CHAPTER IV"): its sections go under it
    for kind, _pos, x in stream:
        n = x.get("number") if kind == "e" else None
        n = n.strip() if isinstance(n, str) else None
        if kind == "e" and x.get("kind") == "paragraph" and n:
            lab = n.strip("()")
            if not _continue(par, lab):
                types = _par_types(lab)
                par[:] = [[types[0][0] if types else "lower", types[0][1] if types else 1, x["level"], lab]]
                owner = ""
            par[-1][2] = x["level"]
            continue
        if kind == "e":
            ctx_level, owner, par, kw_stack = x["level"], x.get("toc_id") or (n or "").rstrip("."), [], []
            head_level = x["level"]
            kw_owner = bool(x.get("toc_id") and x.get("kw"))
            in_part = bool(x.get("part") or x.get("kind") == "part")
            if n and re.fullmatch(r"(?:\u00a7\s*)?[0-9]{1,4}(?:\.[0-9]{1,4}){0,4}\.?", n):
                num = tuple(int(v) for v in re.findall(r"[0-9]+", n))
                nodes[num] = (x["level"], owner)
                sib_level[num[:-1]] = x["level"]
            continue
        c = x
        if c.get("dot") and (not kw_owner or not (par and par[0][0] == "digit" or c["labs"] == ["1"])):
            continue  # "1." opens a paragraph only directly under an article, from 1 on
        if c.get("dot") and par and par[0][0] == "digit":
            del par[1:]  # "2." closes the points "(a)" ... of paragraph 1
        if c["scheme"] == "par":
            path_ok = True
            for i, lab in enumerate(c["labs"]):
                if i == 0 and _continue(par, lab):
                    continue
                used = {p[0] for p in par}
                first = next((t for t, v in _par_types(lab) if v == 1 and t not in used), None)
                if first is None:
                    path_ok = False
                    break
                par.append([first, 1, (par[-1][2] + 1) if par else ctx_level + 1, lab])
            if not path_ok or not par:
                continue
            # "(b)(1) ..." opens paragraph (b) and its (1) on one line: an entry for each label
            k = len(c["labs"])
            for depth in range(len(par) - k, len(par)):
                tid = owner + "".join(f"({p[3]})" for p in par[: depth + 1])
                e = _entry(c, par[depth][2], tid, f"({par[depth][3]})")
                if depth < len(par) - 1:
                    e["title"] = ""
                out.append(e)
            continue
        if c["scheme"] in ("dec", "ss"):
            parent = nodes.get(c["num"][:-1])
            # under its parent; else level with its previous sibling ("§ 1308.13" after "§ 1308.12")
            level = parent[0] + 1 if parent else sib_level.get(c["num"][:-1], head_level + 1)
            sib_level[c["num"][:-1]] = level
            if kw_stack and not parent:
                level = kw_stack[-1][1] + 1
            tid = ("\u00a7 " if c["scheme"] == "ss" else "") + c["printed"]
            nodes[c["num"]] = (level, tid)
        else:
            while kw_stack and kw_stack[-1][0] >= c["kwrank"]:
                kw_stack.pop()
            level = (kw_stack[-1][1] + 1) if kw_stack else head_level + 1
            if not in_part:  # "SECTION 2" after an article's heading: the level of "SECTION 1"
                level = min(level, kw_level.get(c["kw"], level))
            kw_level[c["kw"]] = level
            kw_stack.append((c["kwrank"], level))
            tid = f"{c['kw'].rstrip('.').capitalize()} {c['printed']}"
            nodes[(c["val"],)] = (level, tid)  # "ARTICLE II" parents "Section 2.01"
        e = _entry(c, level, tid, c["printed"])
        ctx_level, owner, par = level, tid, []
        kw_owner = c["scheme"] == "kw"
        out.append(e)
    return out


def _continue(par: list[list], lab: str) -> bool:
    """Continue an open paragraph level with ``lab`` ('(b)' after '(a)'), closing deeper ones."""
    types = _par_types(lab)
    for depth in range(len(par) - 1, -1, -1):
        for t, v in types:
            if par[depth][0] == t and par[depth][1] < v <= par[depth][1] + 2:
                del par[depth + 1 :]
                par[depth][1], par[depth][3] = v, lab
                return True
    return False


def _entry(c: dict, level: int, tid: str, number: str) -> dict:
    return {
        "title": c["title"],
        "number": number,
        "kind": "provision",
        "level": int(level),
        "page_start": c["page"],
        "line_start": c["line"],
        "lines": [c["line"]],
        "source": "provision",
        "style": None,
        "cand": None,
        "toc_id": tid,
        "scheme": c["scheme"],
        "kw": c.get("kw", ""),
        "opening": c["rest"],
    }
