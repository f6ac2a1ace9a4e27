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

import bisect
import re

import pandas as pd

from docintel.parsing import provision_forms, provision_labels
from docintel.parsing.provision_chains import accept_chains, drop_listings
from docintel.parsing.provision_scan import candidates, par_types, roman_value
from docintel.text import to_roman


def find_provisions(line_df: pd.DataFrame, entries: list[dict], leads: pd.Series | None = None) -> list[dict]:
    """New toc entries for the numbered provisions the headings in ``entries`` do not cover.

    ``entries`` are build_toc's ordered heading entries (levels final); the returned entries
    carry the same keys plus ``toc_id`` (path ids: "1.1", "(h)(1)", "1.1(a)").
    """
    if line_df.empty:
        return []
    cands = candidates(line_df, leads)
    taken = {(e["page_start"], ln) for e in entries for ln in (e.get("lines") or [e["line_start"]])}
    # a form's numbered lines ("1a ... 1a"): their box labels vouch for them
    forms = provision_forms.form_lines(line_df, taken)
    if not cands and not forms:
        return []
    cands = [c for c in cands if (c["page"], c["line"]) not in taken]
    # a schedule / exhibit / annex numbers its provisions afresh: each scope has its own chains
    scopes = provision_labels.mark_scopes(entries)
    for c in cands:
        c["seg"] = bisect.bisect_right(scopes, (c["page"], c["line"]))
    known: list[dict[tuple, tuple[int, int]]] = [{} for _ in range(len(scopes) + 1)]
    for e in entries:
        n = e.get("number")
        if isinstance(n, str) and re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3}){0,4}\.?", n.strip()):
            known[bisect.bisect_right(scopes, (e["page_start"], e["line_start"] or 0))].setdefault(
                tuple(int(x) for x in n.strip().rstrip(".").split(".")),
                (e["page_start"], e["line_start"] or 0),
            )
    _article_parents(entries, scopes, known)
    printed = {c["num"] for c in cands if c["scheme"] == "dec"}
    cands = drop_listings(cands, known)
    # "1. Services. The Consultant ...": a numbered paragraph with a run-in title is also read as
    # a top-level clause; where the chain of such clauses vouches for it, the clause replaces it
    promoted = {
        id(c): {
            **c,
            **{"scheme": "dec", "kw": "", "promoted": True, "dot": False},
            **{"title": c["title"] or c.get("weak_title"), "weak": not c["title"]},
        }
        for c in cands
        if c.get("dot") and (c["title"] or c.get("weak_title"))
    }
    # three or more on consecutive lines are a list ("1. Hiperendémica" / "2. Mesoendémica ..."):
    # clauses have bodies
    pos = {(c["page"], c["line"]) for c in promoted.values()}
    for k, c in list(promoted.items()):
        p, ln = c["page"], c["line"]
        near = sum((p, ln + d) in pos for d in (-2, -1, 1, 2))
        if ((p, ln - 1) in pos or (p, ln + 1) in pos) and near >= 2:
            del promoted[k]
    cands += list(promoted.values())
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
    good_c = []
    for k, seg_known in enumerate(known):
        good_c += accept_chains([c for c in cands if c["seg"] == k], seg_known, parts, signs, printed)
    # a clause titled in sentence case ("1. Short title.") needs the document to number its clauses
    # so: a Title Case clause in the same chain, or a sub-clause "1.1" of it
    sure = {(c["seg"], c["num"][0]) for c in good_c if c["scheme"] == "dec" and not c.get("weak")}
    strong = {c["seg"] for c in good_c if c.get("promoted") and not c.get("weak")}
    subs = {
        (s, n)
        for s, n in sure
        if any(c["seg"] == s and c.get("num", ())[:1] == (n,) and len(c.get("num", ())) > 1 for c in good_c)
    }
    good_c = [c for c in good_c if not c.get("weak") or c["seg"] in strong or (c["seg"], c["num"][0]) in subs]
    good = {id(c) for c in good_c}
    # a promoted clause the chain kept stands for its paragraph reading; one it dropped is gone
    twins = {k for k, c in promoted.items() if id(c) in good}
    cands = [c for c in cands if id(c) not in twins and not (c.get("promoted") and id(c) not in good)]
    # "Article 24" / "SECTION 1" over their title lines: one provision with that title
    absorbed = provision_labels.join_titles(entries, [c for c in good_c if c["scheme"] == "kw"], line_df)
    cands = [c for c in cands if (c["page"], c["line"]) not in absorbed]
    provision_labels.nest_scopes(entries)
    _rank_keywords([c for c in good_c if c["scheme"] == "kw"])
    stream = [("e", (e["page_start"], e["line_start"] or 0), e) for e in entries]
    stream += [
        ("c", (c["page"], c["line"]), c) for c in cands if c["scheme"] in ("par", "def") or id(c) in good
    ]
    at = {s[1] for s in stream}
    stream += [("c", (c["page"], c["line"]), c) for c in forms if (c["page"], c["line"]) not in at]
    stream.sort(key=lambda s: (s[1], s[0] == "c"))
    out = _defined_terms(_assign(stream))
    form = [e for e in out if e.get("form")]
    flat = min((e["level"] for e in form), default=0)
    for e in form:  # a form's lines are one flat list, whatever furniture headings sit between them
        e["level"] = flat
    return out


def _article_parents(entries: list[dict], scopes: list, known: list[dict]) -> None:
    """An "ARTICLE VII" (or "Article 7") label heading is the parent of "Section 7.01" (in place in
    ``known``): a contract's article may hold one section only, vouched for by its article."""
    for e in entries:
        m = provision_labels.LABEL.match(" ".join(str(e.get("title") or "").split()))
        if m is None or m.group("kw").lower().rstrip(".") not in ("article", "art"):
            continue
        num = m.group("num")
        val = int(num) if num.isdigit() else roman_value(num)
        if val:
            pos = (e["page_start"], e["line_start"] or 0)
            known[bisect.bisect_right(scopes, pos)].setdefault((val,), pos)


def _defined_terms(out: list[dict]) -> list[dict]:
    """Keep definitions only where two or more stand under one provision (a definitions list);
    a lone quoted term opening a paragraph is prose, and the points nested under it move back up."""
    n: dict[str, int] = {}
    for e in out:
        if "owner" in e:
            n[e["owner"]] = n.get(e["owner"], 0) + 1
    keep, lone = [], None
    for e in out:
        if lone is not None and e["level"] > lone:
            e["level"] -= 1
        elif lone is not None:
            lone = None
        if "owner" in e and n[e.pop("owner")] < 2:
            lone = e["level"]
            continue
        keep.append(e)
    return keep


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
    def_of: tuple[str, int | None] = ("", None)  # (owner, level) of the open list of definitions
    # the open context is a provision ("Section 5.01 Fees. ...", a keyword heading "RULE 7."): its
    # "1)" items are its paragraphs; under a plain heading they are a list's items
    in_prov = False
    for k, (kind, _pos, x) in enumerate(stream):
        n = x.get("number") if kind == "e" else None
        n = n.strip() if isinstance(n, str) else None
        if kind == "e" and x.get("kind") == "paragraph" and n:
            lab = n.strip("()")
            if not _continue(par, lab):
                types = par_types(lab)
                par[:] = [[types[0][0] if types else "lower", types[0][1] if types else 1, x["level"], lab]]
                owner = ""
            par[-1][2] = x["level"]
            continue
        if kind == "e":
            ctx_level, owner, par, kw_stack = x["level"], x.get("toc_id") or (n or "").rstrip("."), [], []
            head_level = x["level"]
            kw_owner = bool(x.get("toc_id") and x.get("kw"))
            in_prov = kw_owner
            in_part = bool(x.get("part") or x.get("kind") == "part")
            if n and re.fullmatch(r"(?:\u00a7\s*)?[0-9]{1,4}(?:\.[0-9]{1,4}){0,4}\.?", n):
                num = tuple(int(v) for v in re.findall(r"[0-9]+", n))
                nodes[num] = (x["level"], owner)
                sib_level[num[:-1]] = x["level"]
            continue
        c = x
        if c.get("promoted") and kw_owner:
            c = {**c, "scheme": "par", "dot": True}  # under an article "1. Scope. ..." is its paragraph 1
        if c["scheme"] == "def":  # a definition: a row under the open provision, its points under it
            if def_of[0] != owner or def_of[1] is None:
                def_of = (owner, ctx_level + 1)
            # untitled (a definition is no heading), keyed by its term: '1.1 "Business Day"'
            e = _entry(c, def_of[1], f'{owner} "{c["term"]}"'.strip(), "")
            e["number"], e["owner"] = None, owner
            out.append(e)
            ctx_level, par = def_of[1], []
            continue
        if c.get("dot") and (not kw_owner or not (par and par[0][0] == "digit" or c["labs"] == ["1"])):
            continue  # "1." opens a paragraph only directly under an article, from 1 on
        if c.get("dot") and par and par[0][0] == "digit":
            del par[1:]  # "2." closes the points "(a)" ... of paragraph 1
        if c.get("half") and not in_prov:
            continue
        if c["scheme"] == "par":
            path_ok = True
            for i, lab in enumerate(c["labs"]):
                if i == 0 and _continue(par, lab, _roman_next(stream, k, lab)):
                    continue
                used = {p[0] for p in par}
                first = next((t for t, v in par_types(lab) if v == 1 and t not in used), None)
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
            if c["scheme"] == "ss" and c["num"][:-1] in sib_level:
                # "\u00a7 164.502" takes the level of the section headings before it ("\u00a7 164.501"
                # under its subpart), not one below the part number "164"
                level = sib_level[c["num"][:-1]]
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
        ctx_level, owner, par = level, tid, _run_in(c, level)
        kw_owner = c["scheme"] == "kw"
        in_prov = True
        out.append(e)
    return out


#: A first paragraph run into its provision's line after the title ("Section 7.01 Limitations.
#: (a) Seller shall ..."): the "(b)" on a line of its own continues it.
_RUN_IN_FIRST = re.compile(r"^(?:[^()]{0,120}?[.:\u2014]\s+)?\((?P<lab>a|1|A)\)\s+\S")


def _run_in(c: dict, level: int) -> list[list]:
    """The open paragraph levels after provision ``c``: its run-in "(a)" (no row of its own: the
    provision's line holds it), else none."""
    m = _RUN_IN_FIRST.match(str(c.get("rest") or ""))
    if m is None:
        return []
    types = par_types(m.group("lab"))
    return [[types[0][0], types[0][1], level + 1, m.group("lab")]] if types else []


#: How far ahead :func:`_roman_next` looks for the label that tells "(i)" the letter from "(i)" one.
LOOKAHEAD = 40


def _roman_next(stream: list, k: int, lab: str) -> bool:
    """Whether ambiguous "(i)" / "(v)" / "(x)" at ``stream[k]`` is a roman number: the next
    paragraph label that continues it is its roman successor ("(ii)") before its letter
    successor ("(j)"): "(h)" then "(i)", "(ii)" opens a roman level under (h)."""
    if lab not in ("i", "v", "x", "I", "V", "X"):
        return False
    rv = roman_value(lab.lower())
    roman = to_roman(rv + 1, upper=lab.isupper())
    letter = chr(ord(lab) + 1)
    for kind, _pos, x in stream[k + 1 : k + 1 + LOOKAHEAD]:
        if kind == "e" and x.get("kind") != "paragraph":
            return False  # a heading closes the list
        labs = x.get("labs") if kind == "c" else [str(x.get("number") or "").strip("()")]
        if not labs:
            continue
        if labs[0] == roman:
            return True
        if labs[0] == letter:
            return False
    return False


def _continue(par: list[list], lab: str, roman: bool = False) -> bool:
    """Continue an open paragraph level with ``lab`` ('(b)' after '(a)'), closing deeper ones;
    ``roman``: read an ambiguous label as a roman number only ("(i)" before "(ii)")."""
    types = par_types(lab)
    if roman:
        types = [(t, v) for t, v in types if t in ("roman", "uroman")]
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
        "form": bool(c.get("form")),
    }
