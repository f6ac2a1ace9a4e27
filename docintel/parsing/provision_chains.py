"""Which candidate numbers the document's numbering sequence vouches for.

Printed listings (a bill's contents, one numbered line under the other) are dropped; keyword
numbers must form rising chains per keyword; decimal and section-sign numbers must hang under
their parent or form a sibling chain; bold titled section-sign sections are kept by their
typography when they rise. See :mod:`provisions` for the rules.
"""

from __future__ import annotations

import re

#: This many numbered one-line entries in a row are a printed list of contents, not provisions.
LISTING_RUN = 5
#: A run-in title and a sentence after it ("Term. This Agreement commences on ..."): a clause with
#: a body, which a printed list of contents ("Sec. 2. Purposes.", "4.1 Term 12") never holds
_TITLED_BODY = re.compile(r"^[\"\u201c(]?[A-Z][^.;:]{0,60}[.:]\s+[\"\u201c(]?[A-Z]\S*(?:\s+\S+){2,}")


def drop_listings(cands: list[dict], known: list[dict] | None = None) -> list[dict]:
    """Drop runs of numbered lines that follow each other line by line ("SEC. 101. Definitions."
    / "SEC. 102. ..." in a bill's table of contents): provisions have bodies between them.

    ``known``: per scope, the heading numbers and their positions; a number printed twice keeps
    its copy under its own heading ("3.7.3" between the headings 3.7 and 3.8) over a copy with a
    body elsewhere (the requirement repeated in an appendix's discussion)."""
    numbered = [c for c in cands if c["scheme"] not in ("par", "def")]
    gone: set[int] = set()

    def in_place(c: dict) -> bool:
        return _under_heading(c, known) is not False

    # a number printed twice: the copy with no body under it (a contents line) is not the provision
    def key(c: dict) -> tuple:
        return (c.get("seg", 0), c["scheme"], c["kw"], c.get("num") or c.get("val"))

    def bare(i: int) -> bool:
        c, n = numbered[i], numbered[i + 1] if i + 1 < len(numbered) else None
        return n is not None and n["page"] == c["page"] and n["line"] - c["line"] <= 2

    copies: dict[tuple, list[int]] = {}
    for i, c in enumerate(numbered):
        copies.setdefault(key(c), []).append(i)
    for ix in copies.values():
        placed = [i for i in ix if in_place(numbered[i])] or ix
        if len(ix) > 1 and not all(bare(i) for i in placed):
            gone |= {id(numbered[i]) for i in ix if bare(i)}
    run: list[dict] = []
    for c in numbered + [None]:
        if c is not None and run and c["page"] == run[-1]["page"] and c["line"] == run[-1]["line"] + 1:
            run.append(c)
            continue
        # one-line requirements under their own heading ("3.1.11" ... "3.1.22" between the
        # headings 3.1 and 3.2) are provisions, not a listing
        # short clauses, one line each, with their titles and bodies ("4.1 Term. This Agreement
        # ...") are provisions too: a run most of whose lines hold a body is no listing
        if (
            len(run) >= LISTING_RUN
            and not all(_under_heading(x, known) for x in run)
            and 2 * sum(_TITLED_BODY.match(str(x.get("rest") or "")) is not None for x in run) < len(run)
        ):
            gone |= {id(x) for x in run}
        run = [c] if c is not None else []
    return [c for c in cands if id(c) not in gone]


def _under_heading(c: dict, known: list[dict] | None) -> bool | None:
    """Whether decimal ``c`` lies between its parent's heading and the next one's; None when
    the document has no heading for its parent."""
    have = known[c.get("seg", 0)] if known else {}
    if c["scheme"] != "dec" or len(c["num"]) < 2 or c["num"][:-1] not in have:
        return None
    par = c["num"][:-1]
    nxt = have.get(par[:-1] + (par[-1] + 1,))
    return have[par] < (c["page"], c["line"]) and (nxt is None or (c["page"], c["line"]) < nxt)


def _titled_pair(pool: list[dict], i: int) -> bool:
    """An excerpt starts its chain anywhere ("Rule 11. Signing Pleadings" then "Rule 12. Defenses
    and Objections", "Line 8. ..." then "Line 9. ..."): a provision followed by the next number of
    its keyword, both titled or on the same or the next page."""
    c, n = pool[i], pool[i + 1] if i + 1 < len(pool) else None
    if n is None or (n["val"], n.get("sub", "")) != (c["val"] + 1, ""):
        return False
    return bool(c["title"] and n["title"]) or n["page"] - c["page"] <= 1


def accept_chains(
    cands: list[dict],
    known: dict[tuple, tuple[int, int]],
    parts: list[tuple[int, int]] = (),
    signs: list[tuple] = (),
    printed: set[tuple] = frozenset(),
) -> list[dict]:
    """Decimal / section-sign candidates the sequence vouches for (see the module doc).

    ``parts``: positions of "Part N" / "Chapter N" headings; any keyword chain may restart at 1
    after one ("SECTION 1" of each chapter of a regulation). ``printed``: every decimal number
    that opens a paragraph somewhere, the copies :func:`drop_listings` dropped too; a chain may
    step over numbers printed elsewhere ("3.13.2" then "3.13.5" when 3.13.3 and 3.13.4 were
    read as a listing here and are printed again in an appendix).
    """
    accepted: list[dict] = []
    known = dict(known)
    # keyword numbers: rising chains per keyword ("SEC. 101." "SEC. 102.")
    for kw in sorted({c["kw"] for c in cands if c["scheme"] == "kw"}):
        chain, cur, cur_sub = [], None, ""
        pool = [c for c in cands if c["scheme"] == "kw" and c["kw"] == kw]
        for i, c in enumerate(pool):
            v, sub = c["val"], c.get("sub", "")
            last = (chain[-1]["page"], chain[-1]["line"]) if chain else None
            if cur is not None and v == 1 and any(last < p < (c["page"], c["line"]) for p in parts):
                chain.append(c)  # a new chapter restarts its sections
                cur, cur_sub = v, sub
                continue
            # bills number sections by title: SEC. 101 ... then SEC. 201 under TITLE II
            first = v <= 2 or v % 100 == 1 or _titled_pair(pool, i)
            # instructions explain only some lines ("Line 2a" then "Line 16"), an excerpt of rules
            # skips rules: a bold titled number after a bold titled one is vouched by its typography
            styled = (
                cur is not None
                and c.get("bold")
                and c["title"]
                and chain[-1].get("bold")
                and chain[-1]["title"]
            )
            if (cur is None and first) or (
                cur is not None
                and (
                    cur < v <= cur + 2
                    or (v > cur and (v % 100 == 1 or styled))
                    or (v == cur and sub > cur_sub)
                )
            ):
                chain.append(c)
                cur, cur_sub = v, sub
            elif cur is not None and c["val"] <= 2 and c["kw"] in ("article", "rule"):
                chain.append(c)  # a new part restarts the numbering
                cur, cur_sub = c["val"], sub
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
                    skipped = cur is not None and all(parent + (k,) in printed for k in range(cur + 1, v - 1))
                    if (cur is None and first_ok) or (
                        cur is not None and cur < v and (v <= cur + 2 or skipped)
                    ):
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
