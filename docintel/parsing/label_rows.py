"""Row-aligned label layouts: a narrow column of short labels, each beside the start of its text.

Glossaries (a term in a narrow left column, its definition in a wide right column starting on
the term's baseline), definition lists, form instructions and data dictionaries set a label
beside the first line of its text block. Read column by column, a page of them gives all the
labels, then all the texts; the page reads label, its text down to the next label, next label.

The layout is told from two text columns (one gutter) by every one of these, so two-column
prose, tables and margin line numbers keep their column order:

- the left column is narrow: its lines' extent under :data:`MAX_WIDTH_RATIO` of the right's;
- its lines start at one x, and most of the right column's at another (a table's cells do not);
- its lines are short (at most :data:`MAX_LABEL_WORDS` words) and hold letters (not line numbers);
- they form at least :data:`MIN_LABELS` labels (a label wrapped over lines close together is
  one), and most labels' first line has a right-column line starting at its height;
- the right column holds more lines than there are labels (texts run over lines).

:func:`grid_rows` tells the other row-aligned layout, a table the text layer gives as lines: cells
sharing baselines at three or more recurring column edges (heading detection reads its rows'
pieces as table cells, not headings).
"""

from __future__ import annotations

#: A label line holds at most this many words.
MAX_LABEL_WORDS = 6
#: The label column's extent is at most this share of the text column's.
MAX_WIDTH_RATIO = 0.7
#: Labels start at one x (within this many points), and so do most text lines ...
ALIGN_X = 3.0
#: ... at least this share of them (a bulleted or indented line may start further right).
MIN_TEXT_ALIGNED = 0.7
#: Lines of one label are this close (gap over the line's height).
WRAP_GAP = 0.5
#: A text line starts "at" a label's height within this share of the label's line height (or 1 pt): a
#: bold term set a point larger than its text sits up to ~3 pt off its first line.
ALIGN_SHARE = 0.3
#: A label column holds at least this many labels with their text beside them ...
MIN_LABELS = 3
#: ... and at least this share of its labels has it.
MIN_ALIGNED_SHARE = 0.75


def _labels(left: list[dict]) -> list[list[dict]]:
    """The left column's lines grouped into labels, top to bottom (a wrapped label stays one)."""
    out: list[list[dict]] = []
    for r in sorted(left, key=lambda r: r["y0"]):
        if out:
            prev = out[-1][-1]
            if r["y0"] - prev["y1"] <= WRAP_GAP * max(prev["y1"] - prev["y0"], 0.1):
                out[-1].append(r)
                continue
        out.append([r])
    return out


def interleave(left: list[dict], right: list[dict]) -> list[dict] | None:
    """``left`` labels each followed by its ``right`` text, or None when the layout is not one.

    ``left`` / ``right``: one band's lines of the left and right column, ``right`` in reading
    order (top to bottom). A left line above all the text (a heading) or below it (a footer)
    needs no text beside it and keeps its place.
    """
    if len(left) < 2 or len(right) <= 2:
        return None
    rx = min(r["x0"] for r in right)
    # the text lines: those at the text column's edge (a page number or footer set further right is not)
    text = [r for r in right if r["x0"] - rx <= ALIGN_X]
    if len(text) < MIN_TEXT_ALIGNED * len(right):
        return None
    starts = [r["y0"] for r in text]
    top, bottom = min(starts), max(r["y1"] for r in text)
    head: list[list[dict]] = []
    tail: list[list[dict]] = []
    labels: list[list[dict]] = []
    tops: list[float] = []
    aligned = 0
    for lab in _labels(left):
        first = lab[0]
        tol = max(1.0, ALIGN_SHARE * (first["y1"] - first["y0"]))
        if lab[-1]["y1"] <= top and not labels:
            head.append(lab)
        elif lab[0]["y0"] >= bottom:
            tail.append(lab)
        else:
            # (a few labels sit a little off their text's first line: a cell centred vertically)
            aligned += any(abs(y - first["y0"]) <= tol for y in starts)
            labels.append(lab)
            tops.append(first["y0"] - tol)
    if aligned < max(MIN_LABELS, MIN_ALIGNED_SHARE * len(labels)) or len(right) <= len(labels):
        return None
    lines = [r for lab in labels for r in lab]
    lx = min(r["x0"] for r in lines)
    for r in lines:
        words = r["text"]
        # labels start at one edge (a table's cells in the narrow column start at several)
        if (
            r["x0"] - lx > ALIGN_X
            or len(words.split()) > MAX_LABEL_WORDS
            or not any(c.isalpha() for c in words)
        ):
            return None
    if max(r["x1"] for r in lines) - lx > MAX_WIDTH_RATIO * (max(r["x1"] for r in right) - rx):
        return None
    out: list[dict] = [r for lab in head for r in lab]
    k = 0  # next right line
    n = len(right)
    # text above the first label: the previous page's last definition, read first
    while k < n and right[k]["y0"] < tops[0]:
        out.append(right[k])
        k += 1
    for i, lab in enumerate(labels):
        out.extend(lab)
        end = tops[i + 1] if i + 1 < len(labels) else float("inf")
        while k < n and right[k]["y0"] < end:
            out.append(right[k])
            k += 1
    out.extend(right[k:])
    out.extend(r for lab in tail for r in lab)
    return out


#: Lines start "at" one column edge within this many points.
GRID_ALIGN_PT = 2.0
#: A page's shared baselines form a grid when at least this many column edges each start a
#: line on two or more baselines of three or more lines (a two-column glossary, term |
#: definition, or a two-column page has two; a table in one column of it has its own).
GRID_MIN_EDGES = 3


def grid_rows(groups: list[list[dict]]) -> set[int]:
    """The baseline groups (by position) that are rows of a grid: a table the text layer gives
    as lines, its cells sharing baselines at three or more column edges that recur row after
    row (SP 800-161 Table 2-2: "Terrorists" | "Unauthorized access" | "Terrorists seek ...").

    The edges are those of rows of three or more lines; a row of two or more lines counts when
    each line starts at one of them, in one type size (a heading larger than the text beside it
    is no cell). Its pieces are table cells, not headings.
    """
    # (each line's edge is the first one within GRID_ALIGN_PT of its x0, found by an inline scan:
    # the heading stage calls this for every page, ~38k groups on the three NIST SPs)
    edges: list[float] = []
    counts: list[int] = []
    for g in groups:
        if len(g) < 3:
            continue
        at = set()
        for r in g:
            x = r["x0"]
            for k, e in enumerate(edges):
                if abs(e - x) <= GRID_ALIGN_PT:
                    at.add(k)
                    break
            else:  # no edge yet: a new one
                at.add(len(edges))
                edges.append(x)
                counts.append(0)
        if len(at) >= 3:
            for k in at:
                counts[k] += 1
    shared = [e for e, n in zip(edges, counts, strict=True) if n >= 2]
    if len(shared) < GRID_MIN_EDGES:
        return set()
    rows = set()
    for i, g in enumerate(groups):
        if len(g) < 2:
            continue
        at = set()
        for r in g:
            x = r["x0"]
            for k, e in enumerate(shared):
                if abs(e - x) <= GRID_ALIGN_PT:
                    at.add(k)
                    break
            else:  # at no shared edge
                at.add(-1)
        sizes = [r["size"] for r in g]
        if -1 not in at and len(at) >= 2 and max(sizes) - min(sizes) <= 0.5:
            rows.add(i)
    return rows
