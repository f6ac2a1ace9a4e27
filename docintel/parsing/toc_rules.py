"""Rules that keep headings honest: what is not a section, how back matter nests, how long a title is.

Used by :mod:`toc`. Front matter, repeated form labels and glossary terms are not sections;
appendices nest by their labels; a heading title is at most a sentence.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter

import numpy as np
import pandas as pd

from docintel.parsing.headings import Candidate, first_sentence


def norm(text: str | None) -> str:
    """Lower-case alphanumerics only: for matching titles across sources."""
    return re.sub(r"[^0-9a-z]+", " ", str(text or "").lower()).strip()


#: A keyword label opening a line ("Rule 11. Signing ...", "TITLE III. PLEADINGS", "ARTICLE I"): the
#: start of a heading of its own, never the wrapped end of the bold line above it
LABEL_OPEN = re.compile(
    r"^(?:Article|ARTICLE|Section|SECTION|Sec\.|SEC\.|Rule|RULE|Chapter|CHAPTER|Part|PART|Title|TITLE|Clause|CLAUSE"
    r"|Regulation|REGULATION|Schedule|SCHEDULE|Exhibit|EXHIBIT|Annex|ANNEX|Step|STEP)\s+(?:[0-9]{1,3}[a-z]?|[IVXLC]{1,7})"
    r"(?:[.:\u2014\u2013]|\s*$|\s+[A-Z])"
)


def not_sections(heads: list[Candidate], line_df: pd.DataFrame, title_c: Candidate | None) -> list[Candidate]:
    """Heading-styled lines that are not sections: front matter, form labels, glossary terms.

    - the title's wrapped lines, author names and affiliations: unnumbered lines above an
      "Abstract" heading on its page (a paper's front matter), and lines stacked under the
      title in its size;
    - one label printed several times on a page ("SIGNED BY" in each signature block);
    - a paragraph's last word or two set in bold, one line pitch under the paragraph's
      unfinished line ("... Adrian Agogino, Rory" / "Lipkis" on a licence's cover);
    - a definition list: three or more bold terms at one left edge, each with its regular
      definition on the same baseline starting at one common x (a glossary).
    """
    out: list[Candidate] = []
    abstract = [c for c in heads if re.fullmatch(r"abstract\W*", c.text.strip(), re.I) and c.page <= 2]
    for a in abstract[:1]:
        out += [c for c in heads if c.page == a.page and c.number is None and c.y1 <= a.y0 + 1 and c is not a]
    if title_c is not None:
        y = title_c.y1
        for c in sorted(
            (c for c in heads if c.page == title_c.page and c.y0 >= title_c.y1 - 1), key=lambda c: c.y0
        ):
            if (
                c.y0 - y > 1.2 * title_c.size
                or c.size < 0.8 * title_c.size
                or LABEL_OPEN.match(c.text.strip())
            ):
                break  # "Rule 11. Signing ..." under a rule book's title is the first rule
            out.append(c)
            title_c.lines = title_c.lines + c.lines
            y = c.y1
    out += _paragraph_tails(heads, line_df)
    seen: dict[tuple, list[Candidate]] = {}
    for c in heads:
        if c.number is None:
            seen.setdefault((c.page, norm(c.title or c.text)), []).append(c)
    out += [c for cs in seen.values() if len(cs) >= 2 for c in cs]
    by_page: dict[int, list[Candidate]] = {}
    for c in heads:
        if c.number is None and c.bold and not c.run_in:
            by_page.setdefault(c.page, []).append(c)
    if not any(len(cs) >= 3 for cs in by_page.values()):
        return out
    # numpy columns once; a page's rows by position (no per-candidate frame filtering)
    idx = line_df.groupby("page").indices
    x0s, y0s = line_df["x0"].to_numpy(dtype=float), line_df["y0"].to_numpy(dtype=float)
    lines_ = line_df["line"].to_numpy()
    plain = ~line_df["bold"].fillna(False).astype(bool).to_numpy()
    cols = (
        pd.to_numeric(line_df["column"], errors="coerce").to_numpy(dtype=float)
        if "column" in line_df.columns
        else np.full(len(line_df), np.nan)
    )
    for page, cs in by_page.items():
        if len(cs) < 3 or page not in idx:
            continue
        ix = idx[page]
        px0, py0, pcol, pplain, pline = x0s[ix], y0s[ix], cols[ix], plain[ix], lines_[ix]
        starts = []
        for c in cs:
            right = pplain & (px0 > c.x1) & (np.abs(py0 - c.y0) <= 0.4 * c.size)
            me = np.flatnonzero(pline == c.line)
            col = pcol[me[0]] if len(me) else np.nan
            if not np.isnan(col):
                right &= np.isnan(pcol) | (pcol == col)  # the definition is in the term's column
            starts.append(round(float(px0[right].min()) / 4) if right.any() else None)
        got = [x for x in starts if x is not None]
        if not got or max(Counter(got).values()) < 3:
            continue  # no left edge three terms share: the test below fails (value_counts only then)
        common = pd.Series(got).value_counts()
        if len(common) and common.iloc[0] >= 3:
            terms = [
                c for c, x in zip(cs, starts, strict=True) if x is not None and abs(x - common.index[0]) <= 1
            ]
            left = float(np.median([c.x0 for c in terms]))
            # a term and its definition fused into one line ("Risk Management The process ...")
            out += terms + [
                c for c in heads if c.page == page and c.run_in and c.number is None and abs(c.x0 - left) <= 2
            ]
    return out


def _paragraph_tails(heads: list[Candidate], line_df: pd.DataFrame) -> list[Candidate]:
    """Short unnumbered heading lines that end the paragraph above them (see :func:`not_sections`)."""
    short = [c for c in heads if c.number is None and len(c.lines) == 1 and len(c.text.split()) <= 3]
    if not short:
        return []
    # (page, line) as one integer: the lines just above the short ones, by np.isin, not a Python test per line
    want = np.array([c.page * 1_000_000 + (c.line - 1) for c in short], dtype=np.int64)
    key = line_df["page"].to_numpy().astype(np.int64) * 1_000_000 + line_df["line"].to_numpy().astype(
        np.int64
    )
    cols = [c for c in ("page", "line", "x0", "y0", "text", "bold") if c in line_df.columns]
    sub = line_df.loc[np.isin(key, want), cols]
    bold = sub["bold"].fillna(False).astype(bool).tolist() if "bold" in sub else [False] * len(sub)
    prev = {
        (int(p), int(n)): (float(x), float(y), str(t), b)
        for p, n, x, y, t, b in zip(
            sub["page"], sub["line"], sub["x0"], sub["y0"], sub["text"], bold, strict=True
        )
    }
    out = []
    for c in short:
        pr = prev.get((c.page, c.line - 1))
        if pr is None or pr[3]:
            continue
        x, y, t, _ = pr
        t = t.rstrip()
        if abs(x - c.x0) <= 2 and 0 < c.y0 - y <= 1.3 * c.size and re.search(r"[^\W\d_],?$", t):
            out.append(c)
    return out


_REFS = re.compile(r"(references|bibliography|works cited|literature cited|citations)")
_APPX = re.compile(r"^(appendix|annex|exhibit|schedule|attachment)\b", re.I)
_GROUP = re.compile(r"^(appendices|annexes|exhibits|schedules|attachments)\b", re.I)


def renest_back_matter(entries: list[dict]) -> None:
    """Appendices nest by their labels, not by where an outline or a style rank put them.

    An outline that files "Appendix D" under the last section makes that section run to the
    end; lettered appendices after the References ("A Additional Details", "B. Setup") are
    top-level sections numbered by their letter. Appendices under an "Appendices" group
    heading stay under it.
    """
    if not entries:
        return
    top = min(e["level"] for e in entries)
    refs_level = None
    group_level = None
    for e in entries:
        title = str(e["title"] or "")
        if not e["number"] and _REFS.fullmatch(norm(title)):
            refs_level = e["level"]
            continue
        if e["level"] == top:
            group_level = top if _GROUP.match(title) else None
        if refs_level is not None and not e["number"] and e["source"] == "heading_detection":
            m = re.match(r"^([A-H])\s+([A-Z].*)$", title)
            if m:
                e["number"], e["title"], e["kind"] = m.group(1), m.group(2), "letter"
        lettered = refs_level is not None and re.fullmatch(r"[A-H]\.?", str(e["number"] or ""))
        if (lettered or _APPX.match(title) or e["kind"] == "appendix") and group_level is None:
            e["level"] = top


#: A heading title is at most this long; an outline entry holding a whole paragraph is cut.
MAX_TITLE = 160
MAX_WORDS = 25


def short_title(title: str) -> str:
    """At most a sentence and :data:`MAX_TITLE` characters (cut at a word, marked with an ellipsis)."""
    if len(title) <= MAX_TITLE and len(title.split()) <= MAX_WORDS:
        return title
    t = first_sentence(title)
    if len(t) <= MAX_TITLE and len(t.split()) <= MAX_WORDS:
        return t
    cut = " ".join(t[:MAX_TITLE].split()[:MAX_WORDS])
    return cut.rsplit(" ", 1)[0].rstrip(" ,;:") + "\u2026"


_PLAIN_NO = re.compile(r"^\(?([0-9]{1,3})[.)]?$")
_POINT = re.compile(r"^\([a-z]{1,2}\)\s")


def _plain(e: dict) -> int | None:
    m = _PLAIN_NO.match(str(e.get("number") or "").strip())
    return int(m.group(1)) if m else None


def renest_restarts(entries: list[dict]) -> None:
    """Paragraph numbers that restart under each heading nest under that heading.

    A flat outline (GDPR: "Article 24", "1. Taking into account ...", "2. ...", "Article 25",
    "1. ...", all at one level) puts numbered paragraphs beside the headings they belong to.
    When one level holds two or more runs "1, 2, ..." each opened right after an entry that is
    not part of the sequence (unnumbered, or another numbering), each run nests one level under
    that entry, and the points "(a) ..." inside a run one level further. A level where "1"
    occurs once (a report's chapters after its "Executive Summary") is left alone.
    """
    starts: dict[int, list[int]] = {}
    for i, e in enumerate(entries[1:], start=1):
        p = entries[i - 1]
        if _plain(e) == 1 and p["level"] == e["level"] and _plain(p) is None:
            starts.setdefault(e["level"], []).append(i)
    for level, idx in starts.items():
        if len(idx) < 2:
            continue
        for i in idx:
            head = entries[i - 1]["level"]
            for e in entries[i:]:
                if e["level"] < level or (
                    e["level"] == level and _plain(e) is None and not _POINT.match(str(e["title"] or ""))
                ):
                    break
                if e["level"] == level:
                    e["level"] = head + (1 if _plain(e) is not None else 2)


def running_footers(
    detected: list, bottoms: dict, lines: float, unfit: frozenset | set = frozenset()
) -> set[int]:
    """ids of numbered headings that close two or more pages under one title: a running footer.

    ("Chapter 21. Maintainer script flowcharts" at the foot of every other page of a manual whose
    furniture pass missed it.) A heading sits at a page's foot when its bottom is within ``lines``
    of its line heights of the page's last text; a real heading is not set there twice, unless
    sections of its own level come between (see :func:`_crossed`; ``unfit`` are ids already
    known to be no sections, which cross nothing).
    """
    foot = [
        c
        for c in detected
        if c.number and c.page in bottoms and c.y1 >= float(bottoms[c.page]) - lines * c.size
    ]
    groups: dict[str, list] = {}
    for c in foot:
        groups.setdefault(norm(c.title or c.text), []).append(c)
    out: set[int] = set()
    for group in groups.values():
        if len({c.page for c in group}) < 2 or _crossed(group, [d for d in detected if id(d) not in unfit]):
            continue
        out |= {id(c) for c in group}
    return out


def _depth(c) -> int:
    return c.number.strip().rstrip(".").count(".") + 1


def _crossed(group: list, detected: list) -> bool:
    """True when another numbered heading as shallow as the group's sits between its first and last
    occurrence: the group is a heading repeated by sections of its own ("2 Scope" at the foot of
    a page in each of two procedures bound together), not a footer running through one section."""
    first = min((c.page, c.line) for c in group)
    last = max((c.page, c.line) for c in group)
    depth = min(_depth(c) for c in group)
    numbers = {c.number.strip().rstrip(".") for c in group}
    ids = {id(c) for c in group}
    return any(
        first < (d.page, d.line) < last
        and id(d) not in ids
        and d.kind == "decimal"
        and d.number.strip().rstrip(".") not in numbers
        and _depth(d) <= depth
        for d in detected
        if d.number
    )


def _at(page, line) -> tuple[int, int]:
    return int(page), -1 if line is None else int(line)


def _bare(title: str | None, number: str | None) -> str:
    """A title for comparison: normalised, without its own number ("3.1 access control")."""
    t, n = norm(title), norm(number)
    return t[len(n) :].strip() if n and t.startswith(n + " ") else t


def depth_below(number: str, chapter: str) -> int:
    """Levels a section number sits below its chapter: "2." under Chapter 3 is 1, "1.1" under "1" is 1."""
    parts, head = str(number).strip().rstrip(".").split("."), str(chapter).strip().rstrip(".").split(".")
    if len(parts) > len(head) and parts[: len(head)] == head:
        return len(parts) - len(head)
    return len(parts)


class ChapterScopes:
    """The chapter (a numbered top-level primary entry) each detected heading falls in.

    Rule books number sections afresh in each chapter ("Chapter 2" / "1. General" / "2. Scope"); when
    the outline lists only the chapters, a detected "1." is a section of its chapter, not the outline's
    entry "1": the number is scoped by the chapter. :meth:`restarts` says which detected numbers an
    outline entry already holds are such sections.
    """

    def __init__(self, primary: list[dict]) -> None:
        self.starts: list[tuple[tuple[int, int], dict]] = []
        self.holders: dict[str, list[dict]] = {}
        self.chapter_of: dict[int, dict | None] = {}
        self.top = 0
        self.keys: list[tuple[int, int]] = []
        self.listed: set[int] = set()
        numbered = [e["level"] for e in primary if e["number"]]
        if not numbered:
            return
        top = self.top = min(
            numbered
        )  # the chapters' level (a book's title may stand above them, unnumbered)
        current = None
        for e in sorted(primary, key=lambda e: _at(e["page_start"], e["line_start"])):
            if e["level"] <= top:
                current = e
                self.starts.append((_at(e["page_start"], e["line_start"]), e))
            self.chapter_of[id(e)] = current
            if e["number"]:
                self.holders.setdefault(str(e["number"]).rstrip("."), []).append(e)
        # chapters whose sections the outline lists: their numbering is the outline's, no restart
        self.listed = {id(self.chapter_of[id(e)]) for e in primary if e["level"] > top and e["number"]}
        self.keys = [k for k, _ in self.starts]

    def chapter(self, c: Candidate) -> dict | None:
        """The numbered chapter whose sections the outline does not list that ``c`` falls in."""
        if c.kind != "decimal" or not c.number or LABEL_OPEN.match(c.text or ""):
            return None
        k = bisect_right(self.keys, _at(c.page, c.line)) - 1
        chap = self.starts[k][1] if k >= 0 else None
        if chap is None or not chap["number"] or id(chap) in self.listed or chap["level"] != self.top:
            return None
        if _REFS.fullmatch(norm(chap["title"])):  # a numbered reference list is no sections
            return None
        # a chapter numbered like its sections scopes only deeper numbers ("1 Introduction" over
        # "1.1 Purpose"): a "1." under "3 Methods" is a numbered list the detector took for headings
        depth = len(str(c.number).rstrip(".").split("."))
        if chap.get("kind") == c.kind and depth <= len(str(chap["number"]).rstrip(".").split(".")):
            return None
        return chap

    def restarts(self, c: Candidate) -> dict | None:
        """The chapter ``c`` restarts the numbering in, or None (the same heading as an entry's).

        ``c``'s number is held by a primary entry: it is a section of its own chapter when every
        holder sits in another chapter, or is the chapter itself numbered in another scheme
        ("Chapter 1" and "1. General"), and none has ``c``'s title (a running head, a heading the
        outline placed a page off).
        """
        chap = self.chapter(c)
        if chap is None:
            return None
        title = _bare(c.title or c.text, c.number)
        for h in self.holders.get(c.number.rstrip("."), []):
            if _bare(h["title"], h["number"]) == title:
                return None
            if self.chapter_of.get(id(h)) is chap and (h is not chap or h["kind"] == c.kind):
                return None
        return chap
