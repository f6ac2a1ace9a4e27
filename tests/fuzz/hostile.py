"""Hand-made hostile and damaged PDFs, as bytes (small enough for CI, bounded by the budgets).

Each generator returns the bytes of one file; :data:`HOSTILE` maps a name to
``(generator, expectation)`` where the expectation is ``"error"`` (one clear ``Error:`` line and
exit 1 expected), ``"parse"`` (exit 0 expected) or ``"flagged"`` (exit 0 with the damaged page
recorded in page_df.error). ``scripts/make_hostile.py`` writes them to a folder.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable


def build_pdf(objects: list[bytes], *, root: int = 1, trailer_extra: bytes = b"") -> bytes:
    """A PDF from object bodies (object i+1 = objects[i]) with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        root,
        trailer_extra,
        xref,
    )
    return bytes(out)


def stream(data: bytes, extra: bytes = b"", *, deflate: bool = False) -> bytes:
    if deflate:
        data = zlib.compress(data, 9)
        extra = b"/Filter /FlateDecode " + extra
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def text_pdf(pages: int = 2, *, deflate: bool = True) -> bytes:
    """An honest document: ``pages`` pages of a few text lines each."""
    n_fixed = 3  # catalog, pages, font
    kids = b" ".join(b"%d 0 R" % (n_fixed + 1 + 2 * i) for i in range(pages))
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        FONT,
    ]
    for i in range(pages):
        body = b"".join(
            b"BT /F1 11 Tf 72 %d Td (Page %d line %d: the quick brown fox jumps over the lazy dog.) Tj ET\n"
            % (720 - 16 * k, i + 1, k + 1)
            for k in range(12)
        )
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % (n_fixed + 2 + 2 * i)
        )
        objs.append(stream(body, deflate=deflate))
    return build_pdf(objs)


def xobject_bomb(levels: int = 9, fanout: int = 10) -> bytes:
    """ "Billion laughs": form XObject k draws XObject k-1 ``fanout`` times (fanout**levels glyphs)."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]
    first = 5  # object number of X0
    objs.append(
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /XObject << /X 5 0 R >> >> >>".replace(b"5 0 R", b"%d 0 R" % (first + levels))
    )
    objs.append(stream(b"/X Do\n"))
    objs.append(
        stream(
            b"BT /F1 9 Tf 10 10 Td (lol) Tj ET",
            b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> "
            % (first + levels + 1),
        )
    )
    for k in range(1, levels + 1):
        objs.append(
            stream(
                b"/X Do " * fanout,
                b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X %d 0 R >> >> "
                % (first + k - 1),
            )
        )
    objs.append(FONT)
    return build_pdf(objs)


def content_bomb(repeats: int = 3_000_000) -> bytes:
    """A few KB of deflated content stream that inflates to millions of text-showing operators."""
    body = b"BT /F1 1 Tf 0 0 Td " + b"(a) Tj 0.001 0 Td " * repeats + b"ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        stream(body, deflate=True),
        FONT,
    ]
    return build_pdf(objs)


def deep_outline(depth: int = 1000) -> bytes:
    """An outline nested ``depth`` levels deep (each item the only child of the one above)."""
    base = text_pdf(2)
    # append outline objects after the honest document's objects, with a new Catalog
    n = int(re.search(rb"/Size (\d+)", base).group(1)) - 1
    objs = _objects(base)
    outlines = n + 1
    objs[0] = b"<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R >>" % outlines
    objs.append(
        b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (outlines + 1, outlines + 1, depth)
    )
    page1 = 4
    for k in range(depth):
        me = outlines + 1 + k
        parent = outlines if k == 0 else me - 1
        child = b" /First %d 0 R /Last %d 0 R /Count 1" % (me + 1, me + 1) if k < depth - 1 else b""
        objs.append(
            b"<< /Title (Level %d) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]%s >>"
            % (k + 1, parent, page1, child)
        )
    return build_pdf(objs)


def _objects(pdf: bytes) -> list[bytes]:
    """The object bodies of a PDF written by :func:`build_pdf`, in order."""
    return [m.group(1) for m in re.finditer(rb"\d+ 0 obj\n(.*?)\nendobj\n", pdf, flags=re.S)]


def bad_page_count() -> bytes:
    """A page tree whose /Count is negative: MuPDF's page count raises."""
    objs = _objects(text_pdf(2))
    objs[1] = re.sub(rb"/Count \d+", b"/Count -7", objs[1])
    return build_pdf(objs)


def junk_prefix(junk: int = 2048) -> bytes:
    """A valid PDF after ``junk`` bytes of junk (a mail or HTTP wrapper): MuPDF opens it."""
    return b"X-Junk: " + b"j" * (junk - 9) + b"\n" + text_pdf(2)


def no_contents() -> bytes:
    """Page 2 lost its /Contents entry."""
    objs = _objects(text_pdf(2))
    objs[5] = re.sub(rb" /Contents \d+ 0 R", b"", objs[5])
    return build_pdf(objs)


def wrong_filter(filter_name: bytes = b"/LZWDecode") -> bytes:
    """Page 2's content stream claims another filter (LZWDecode) but is deflated."""
    objs = _objects(text_pdf(2))
    objs[6] = objs[6].replace(b"/FlateDecode", filter_name)
    return build_pdf(objs)


def image_filter() -> bytes:
    """Page 2's content stream claims DCTDecode: MuPDF refuses it without an error, only a note."""
    return wrong_filter(b"/DCTDecode")


def halved_streams() -> bytes:
    """Every content stream cut to half its bytes (the /Length left as it was)."""
    objs = _objects(text_pdf(2))
    for i, body in enumerate(objs):
        m = re.match(rb"(<<.*?>>\nstream\n)(.*)(\nendstream)$", body, flags=re.S)
        if m:
            objs[i] = m.group(1) + m.group(2)[: len(m.group(2)) // 2] + m.group(3)
    return build_pdf(objs)


def bad_keyword() -> bytes:
    """Page 1's content stream holds a number-like keyword with a non-UTF-8 byte, which MuPDF
    quotes in its message (``unknown keyword: '-\\xb0.6'``)."""
    body = b"BT /F1 11 Tf 72 700 Td -\xb0.6 (Hello there, the quick brown fox.) Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        stream(body),
        FONT,
    ]
    return build_pdf(objs)


def encrypted() -> bytes:
    import pymupdf

    doc = pymupdf.open(stream=text_pdf(2), filetype="pdf")
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "xobject_bomb": (xobject_bomb, "error"),
    "content_bomb": (content_bomb, "error"),
    "deep_outline": (deep_outline, "parse"),
    "bad_page_count": (bad_page_count, "error"),
    "junk_prefix": (junk_prefix, "parse"),
    "no_contents": (no_contents, "flagged"),
    "wrong_filter": (wrong_filter, "flagged"),
    "image_filter": (image_filter, "flagged"),
    "halved_streams": (halved_streams, "flagged"),
    "bad_keyword": (bad_keyword, "flagged"),
    "encrypted": (encrypted, "error"),
}
