"""Page furniture and printed page labels, decided over the whole document.

- ``page_number``: a lone number ("12", "iv", "Page 3", "- 7 -", "3 of 9") in the top or
  bottom band of the page, with nothing between it and the page edge.
- ``header`` / ``footer``: text in the top / bottom band that repeats, digits
  normalised, on several pages (running heads, "VerDate ... Frm 00003" print lines).
  Rotated text beside the text area (arXiv and Federal Register margin stamps) is
  already ``header`` from :mod:`lines`: margin furniture, not content.
- ``footnote``: a run of lines at the bottom of a column in a smaller size than the
  column's own text, starting with a marker ("10 A flight control...", "*Equal ...").
- ``printed_label``: read off the page-number lines (and numbers at the end of running
  heads); accepted when at least two pages agree on the same offset to the physical
  page (a sequence), filled between two agreeing pages (``label_source='inferred'``),
  else the PDF's /PageLabels when they agree with the printed numbers (``pdf_labels``).
- ``image_only``: images but no text beyond furniture: the content needs OCR.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pandas as pd

#: Share of the page height that counts as the top / bottom band.
BAND = 0.12
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I)
_PAGE_NO = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(?P<n>\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s+of\s+\d{1,5})?$", re.I
)
_EDGE_NO = re.compile(r"(?:^(?P<a>\d{1,5})\s)|(?:\s(?P<b>\d{1,5})$)")
_MARKER = re.compile(r"^(\d{1,3}|[*∗†‡§¶⋆])\s*\S")
FURNITURE = ("header", "footer", "page_number")
#: A page mostly covered by images with less own text than this is an image page.
IMAGE_PAGE_CHARS = 600


def _roman_value(s: str) -> int | None:
    if not s or not _ROMAN.match(s):
        return None
    vals = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    s = s.lower()
    total = 0
    for i, ch in enumerate(s):
        v = vals[ch]
        total += -v if i + 1 < len(s) and vals[s[i + 1]] > v else v
    return total


def _to_roman(n: int, upper: bool) -> str:
    out = ""
    for v, sym in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while n >= v:
            out, n = out + sym, n - v
    return out.upper() if upper else out


def _norm(text: str) -> str:
    t = re.sub(r"\d+", "#", text.lower())
    t = " ".join("#" if _ROMAN.match(w) else w for w in t.split())
    return t


def _label_value(token: str) -> tuple[str, int] | None:
    """('arabic'|'roman'|'ROMAN', value) of a page-number token."""
    if token.isdigit():
        return "arabic", int(token)
    v = _roman_value(token)
    if v is None:
        return None
    return ("ROMAN" if token.isupper() else "roman"), v


def mark_furniture(
    line_df: pd.DataFrame,
    page_df: pd.DataFrame,
    *,
    pdf_labels: list[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mark header/footer/page_number/footnote lines; fill printed_label, label_source, image_only.

    ``pdf_labels``: the PDF's /PageLabels per physical page (index 0 = page 1), if any.
    """
    line_df = line_df.copy()
    page_df = page_df.copy()
    page_df["printed_label"] = None
    page_df["label_source"] = None
    if line_df.empty:
        _image_only(line_df, page_df)
        return line_df, page_df
    heights = dict(zip(page_df["page"], page_df["height"], strict=False))
    role = line_df["role"].to_numpy(copy=True)
    h = line_df["page"].map(heights).astype(float)
    flat = ~line_df.get("_rot", pd.Series(False, index=line_df.index)).fillna(False).astype(bool)
    top = flat & (line_df["y1"] <= BAND * h)
    bottom = flat & (line_df["y0"] >= (1 - BAND) * h)
    n_pages = int(page_df["n_lines"].fillna(0).gt(0).sum())

    # Repeated text in the bands: running heads and print lines.
    keys = pd.Series([_norm(t) for t in line_df["text"]], index=line_df.index)
    zone = pd.Series(None, index=line_df.index, dtype=object)
    zone[top] = "top"
    zone[bottom] = "bottom"
    in_band = zone.notna()
    pages_per_key = line_df[in_band].groupby([zone[in_band], keys[in_band]])["page"].nunique()
    min_repeat = max(2, int(0.3 * n_pages + 0.5))
    repeated = {k for k, v in pages_per_key.items() if v >= min_repeat}

    candidates: dict[int, list[tuple[int, str, int]]] = defaultdict(list)  # page -> (priority, token, idx)
    for i in line_df.index[in_band]:
        text = str(line_df.at[i, "text"]).strip()
        z = zone[i]
        m = _PAGE_NO.match(text)
        if m and _label_value(m.group("n")) and _at_edge(line_df, i, z, flat):
            role[line_df.index.get_loc(i)] = "page_number"
            candidates[int(line_df.at[i, "page"])].append((0, m.group("n"), i))
        elif (z, keys[i]) in repeated:
            role[line_df.index.get_loc(i)] = "header" if z == "top" else "footer"
            e = _EDGE_NO.search(text)
            if e:
                candidates[int(line_df.at[i, "page"])].append((1, e.group("a") or e.group("b"), i))
    line_df["role"] = role
    _mark_footnotes(line_df)
    _labels(page_df, candidates, pdf_labels)
    _image_only(line_df, page_df)
    return line_df, page_df


def _at_edge(df: pd.DataFrame, i, z: str, flat: pd.Series) -> bool:
    """Nothing but same-row text lies between line ``i`` and the page edge of its band."""
    same = df[(df["page"] == df.at[i, "page"]) & flat]
    y0, y1 = df.at[i, "y0"], df.at[i, "y1"]
    if z == "top":
        beyond = same[same["y1"] < y0 + 0.3 * (y1 - y0)]
    else:
        beyond = same[same["y0"] > y1 - 0.3 * (y1 - y0)]
    return beyond.empty


def _mark_footnotes(df: pd.DataFrame) -> None:
    """Small-type runs at the bottom of a column that start with a footnote marker."""
    marker = df["_marker"] if "_marker" in df.columns else pd.Series(False, index=df.index)
    for (_page, _col), grp in df[df["role"].isin(["body", "list_item"])].groupby(["page", "column"]):
        if len(grp) < 2:
            continue
        weights = Counter()
        for s, t in zip(grp["size"], grp["text"], strict=False):
            weights[round(float(s), 1)] += len(t)
        local = weights.most_common(1)[0][0]
        run: list = []
        for i in grp.sort_values("y0", ascending=False).index:
            if float(df.at[i, "size"]) <= 0.92 * local:
                run.append(i)
            else:
                break
        if not run:
            continue
        starts = [i for i in run if bool(marker.get(i, False)) or _MARKER.match(str(df.at[i, "text"]))]
        chars = sum(len(str(df.at[i, "text"])) for i in run)
        if starts and chars < 0.5 * sum(len(t) for t in grp["text"]):
            # The run starts at its topmost marker line; small lines above it are not footnotes.
            first = min(float(df.at[i, "y0"]) for i in starts)
            for i in run:
                if float(df.at[i, "y0"]) >= first - 0.5:
                    df.at[i, "role"] = "footnote"


def _labels(page_df: pd.DataFrame, candidates: dict, pdf_labels: list[str] | None) -> None:
    """Accept printed labels that form a sequence; fill gaps between agreeing pages."""
    parsed: dict[int, tuple[str, int, str, int]] = {}  # page -> (style, value, token, priority)
    for page, cands in candidates.items():
        for prio, token, _i in sorted(cands, key=lambda c: c[0]):
            lv = _label_value(token)
            if lv:
                parsed[page] = (lv[0], lv[1], token, prio)
                break
    support = Counter((s, v - p) for p, (s, v, _t, _pr) in parsed.items())
    accepted = {
        p: (s, v, t)
        for p, (s, v, t, prio) in parsed.items()
        if support[(s, v - p)] >= 2 or (prio == 0 and len(parsed) <= 2)
    }
    labels: dict[int, tuple[str, str]] = {p: (t, "printed") for p, (s, v, t) in accepted.items()}
    pages = sorted(int(p) for p in page_df["page"])
    known = sorted(accepted)
    for p in pages:
        if p in labels:
            continue
        before = [k for k in known if k < p]
        after = [k for k in known if k > p]
        if before and after:
            (s0, v0, _), (s1, v1, _) = accepted[before[-1]], accepted[after[0]]
            if s0 == s1 and v0 - before[-1] == v1 - after[0]:
                v = v0 + (p - before[-1])
                text = str(v) if s0 == "arabic" else _to_roman(v, s0 == "ROMAN")
                labels[p] = (text, "inferred")
    if pdf_labels and _plausible(pdf_labels, accepted):
        for p in pages:
            if p not in labels and p - 1 < len(pdf_labels) and pdf_labels[p - 1]:
                labels[p] = (pdf_labels[p - 1], "pdf_labels")
    page_df["printed_label"] = [labels.get(int(p), (None, None))[0] for p in page_df["page"]]
    page_df["label_source"] = [labels.get(int(p), (None, None))[1] for p in page_df["page"]]


def _plausible(pdf_labels: list[str], accepted: dict) -> bool:
    """/PageLabels are trusted when they match the printed numbers (or say more than the index)."""
    if accepted:
        agree = sum(
            1 for p, (_s, _v, t) in accepted.items() if p - 1 < len(pdf_labels) and pdf_labels[p - 1] == t
        )
        return agree >= 0.8 * len(accepted)
    return any(lab and lab != str(i + 1) for i, lab in enumerate(pdf_labels))


def _image_only(line_df: pd.DataFrame, page_df: pd.DataFrame) -> None:
    """Flag pages whose content is essentially raster images, so empty text is never silent.

    A page is ``image_only`` when it has images and at most furniture text, or when images
    cover a quarter of it and its own text is no more than a caption-sized note
    (a figure page with "(4) In the Operating Procedures chapter..." above the picture).
    """
    if line_df.empty:
        content = pd.Series(dtype=float)
    else:
        real = line_df[~line_df["role"].isin(FURNITURE)]
        content = real.groupby("page")["text"].apply(lambda s: sum(len(t.replace(" ", "")) for t in s))
    n_images = page_df["n_images"].fillna(0)
    coverage = page_df["image_coverage"].fillna(0.0)
    chars = page_df["page"].map(content).fillna(0)
    page_df["image_only"] = (n_images > 0) & (
        (chars < 20) | ((coverage >= 0.25) & (chars < IMAGE_PAGE_CHARS))
    )
    for i in page_df.index:
        note = None
        if page_df.at[i, "image_only"]:
            note = f"image_only: {coverage[i]:.0%} of the page is raster images; their text needs OCR"
        elif coverage[i] >= 0.05:
            note = f"raster_images: {coverage[i]:.0%} of the page; text inside them is not extracted"
        if note:
            prev = page_df.at[i, "escalation_signals"] if "escalation_signals" in page_df.columns else None
            page_df.at[i, "escalation_signals"] = (
                f"{prev}; {note}" if isinstance(prev, str) and prev else note
            )
