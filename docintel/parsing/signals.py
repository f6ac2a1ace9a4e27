"""Per-page signals that do not depend on the text lines (images, links, drawings)."""

from __future__ import annotations

import functools
import re


def _drawings(page) -> tuple[list, bool]:
    """(the page's drawings, True when they are ``get_cdrawings()``'s).

    get_cdrawings() skips building the Python Rect/Point objects of get_drawings(),
    which is what made vector-heavy pages (attention plots) slow; the count is the same.
    """
    try:
        return page.get_cdrawings(), True
    except Exception:
        try:
            return page.get_drawings(), False
        except Exception:
            return [], False


#: MuPDF's usual internal link: get_links() reads it as page N-1, ``to`` (x, y), zoom 0.0 ("nan" as 0)
_GOTO_URI = re.compile(r"#page=([0-9]+)&zoom=(?:nan|[^,&]*),([^,&]*),([^,&]*)")


def native_links(page) -> list[dict]:
    """``page.get_links()``'s dicts, but ``xref`` is 0 and there is no ``id`` (nothing here reads them).

    get_links() builds each dict with ``pymupdf.utils.getLinkDict``; this reads the same MuPDF link
    chain but skips get_links()'s annotation-xref bookkeeping (Link.next lists the page's annotation
    xrefs twice per link, quadratic in the page's links, and get_links() once more to set ``xref`` /
    ``id``). The two common forms, a web URI and ``#page=N&zoom=z,x,y``, are built here as
    getLinkDict builds them; any other link goes through getLinkDict itself. Every other key and
    value is get_links()'s (tests/test_s15fin_links.py). A PyMuPDF without those internals falls
    back to get_links().
    """
    try:
        import pymupdf
        from pymupdf import Link, mupdf, utils

        load, link_dict, external = mupdf.fz_load_links, utils.getLinkDict, mupdf.fz_is_external_link
        rect_of, Rect, Point = pymupdf.JM_py_from_rect, pymupdf.Rect, pymupdf.Point
        uri_kind, goto_kind = pymupdf.LINK_URI, pymupdf.LINK_GOTO
    except (ImportError, AttributeError):
        return page.get_links()
    doc = page.parent
    out = []
    fz = load(page.this)
    while fz.m_internal:
        uri = fz.m_internal.uri or ""
        if uri and external(uri) and not uri.startswith("file:") and ":" in uri:
            out.append({"kind": uri_kind, "xref": 0, "from": Rect(rect_of(fz.rect())), "uri": uri})
            fz = fz.next()
            continue
        m = _GOTO_URI.fullmatch(uri)
        if m:
            try:
                to = Point(float(m[2]), float(m[3]))
            except ValueError:
                m = None
        if m:
            out.append(
                {
                    "kind": goto_kind,
                    "xref": 0,
                    "from": Rect(rect_of(fz.rect())),
                    "page": int(m[1]) - 1,
                    "to": to,
                    "zoom": 0.0,
                }
            )
        else:
            ln = Link(fz)
            ln.parent = page  # Link.dest reads the document through it
            out.append(link_dict(ln, doc))
        fz = fz.next()
    return out


def text_and_images(page):
    """The page's one text page for every stage, its ``get_image_info()`` and, when it came free, its dict.

    A page whose resources list no image (most text pages) is read once, with images kept as
    blocks but not decoded: when that text page holds no image either (no inline image; its dict,
    read here, has text blocks only), it serves the text as the fast path's ``get_text("dict")``
    would (same flags otherwise), the page has no image info and the dict's blocks are returned for
    the lines (without get_text's ``width`` / ``height``). Otherwise the text page is the fast
    path's own, the image info is ``get_image_info()``'s, as before, and the dict is None (the
    lines read it from the text page).
    Returns (textpage, image_info, page_dict or None).
    """
    import pymupdf

    from docintel.parsing.lines import _fast_flags

    flags = _fast_flags() | vector_flags()
    if not _lists_images(page):
        tp = page.get_textpage(flags=flags | pymupdf.TEXT_PRESERVE_IMAGES)
        # the dict lists every image block extractIMGINFO() would (type 1): none, no image
        d = tp.extractDICT()
        if not any(b.get("type") == 1 for b in d["blocks"]):
            # get_text("dict")'s blocks; its width / height (the cropbox's) only a sideways page
            # reads (lines.extract_page_lines asks the page for them): reading the cropbox of
            # every page cost more than the rest of get_text's wrapper
            del d["width"], d["height"]
            return tp, [], d
    return page.get_textpage(flags=flags), page.get_image_info(), None


def _lists_images(page) -> bool:
    """``bool(page.get_images())``, answered without its resource walk when the page's resources
    have no XObject at all (most text pages): get_images() lists the image XObjects of the page's
    resources and of the Form XObjects in them, so an empty XObject dict means none."""
    try:
        import pymupdf
        from pymupdf import mupdf

        if page.parent.is_pdf:
            pdf = pymupdf._as_pdf_document(page.parent)
            ref = mupdf.pdf_lookup_page_obj(pdf, page.number)
            res = mupdf.pdf_dict_get_inheritable(ref, mupdf.PDF_ENUM_NAME_Resources)
            if not mupdf.pdf_dict_len(mupdf.pdf_dict_get(res, mupdf.PDF_ENUM_NAME_XObject)):
                return False
    except Exception:  # (a PyMuPDF without these internals, a broken page tree: ask pymupdf)
        pass
    return bool(page.get_images())


@functools.cache
def vector_flags() -> int:
    """The page stage's text page also records the page's vector paths (blocks of type 3: box,
    stroked or filled, rectangle or not), in the same interpretation of the page as its text:
    ``get_cdrawings()`` interpreted every page a second time. ``LAZY`` defers each path to the end
    of the text run it falls in, so a rule or a radical's bar does not cut a line of text. A path
    does end MuPDF's text block (``line_df.block`` is finer where rules or cell fills separate
    text); the lines are those of a text page without paths."""
    import pymupdf

    return pymupdf.TEXT_COLLECT_VECTORS | pymupdf.TEXT_LAZY_VECTORS


def vector_blocks(page_dict: dict) -> list[dict]:
    """The vector blocks (type 3) of a text page's dict read with :func:`vector_flags`."""
    return [b for b in page_dict["blocks"] if b.get("type") == 3]


def may_draw_glyphs(vectors: list[dict]) -> bool:
    """Some filled path that is not a plain rectangle: the only kind
    :func:`textlayer.vector_glyphs` can count (a small filled outline with curves), so the only
    pages whose ``get_cdrawings()`` that check needs. Box size is not tested (a vector block's
    box is clipped to the page, a path's rect is not)."""
    return any(not v.get("stroked", True) and not v.get("isrect", True) for v in vectors)


def page_signals(page, page_no: int, *, image_info: list[dict] | None = None, drawings: bool = True) -> dict:
    """Geometry, images (count, clipped area, coverage), vector drawings and links of one page.

    ``image_info``: the page's ``get_image_info()`` when the caller has it (:func:`text_and_images`).
    The private ``_links`` is :func:`native_links` (``get_links()``'s dicts), for the cross-reference stage; ``_cdrawings`` is
    ``_drawings`` when they are ``get_cdrawings()``'s (None otherwise), for the text-table reader.
    ``drawings=False``: ``n_drawings`` is None for the caller to fill and there is no ``_drawings``
    / ``_cdrawings`` (the PyMuPDF page stage counts the vector blocks of its text page instead and
    reads the paths only where they are needed).
    """
    rect = page.rect
    area = max(rect.width * rect.height, 1.0)
    n_images = 0
    image_area = 0.0
    boxes: list[tuple[float, float, float, float]] = []
    for info in page.get_image_info() if image_info is None else image_info:
        bbox = info.get("bbox")
        if not bbox:
            continue
        x0, y0, x1, y1 = bbox
        x0, y0 = max(x0, rect.x0), max(y0, rect.y0)
        x1, y1 = min(x1, rect.x1), min(y1, rect.y1)
        # Images placed off the page or collapsed to a point are not on the page.
        if x1 - x0 > 1 and y1 - y0 > 1:
            n_images += 1
            image_area += (x1 - x0) * (y1 - y0)
            boxes.append((x0, y0, x1, y1))
    out = {
        "page": page_no,
        "width": rect.width,
        "height": rect.height,
        "rotation": page.rotation,
        "n_images": n_images,
        "image_area": image_area,
        "image_coverage": min(image_area / area, 1.0),
        "n_drawings": None,
        "n_links": len(links := native_links(page)),
        "_links": links,
        "_image_boxes": boxes,  # private: full-width pictures split column bands
    }
    if drawings:
        drawn = _drawings(page)
        out["n_drawings"] = len(drawn[0])
        out["_drawings"] = drawn[0]  # private: issue 19's text-layer gap check reads them (textlayer.py)
        out["_cdrawings"] = drawn[0] if drawn[1] else None
    return out
