"""The page stage's words and drawings, served to the readers that run after it (issue 18PL).

The page loop has each page's text page and ``get_cdrawings()`` at hand; the text-table
reorder and the table readers of the objects stage read the same two things again for the
pages they look at. ``tables_text.held_page`` keeps them for the pages a reader can look at
(a table caption line or rows of role ``table``: see ``pymupdf_backend``); :class:`HeldDoc`
hands them to the readers behind the pymupdf document's own interface, so the readers need
no new argument: ``doc[i]`` of a held page is a :class:`HeldPage`, whose ``get_cdrawings()``
and ``get_text("words")`` (no other argument) return what was kept; everything else is the
page's own. The values are the same calls' results on the same page (the text page's flags
are ``TEXTFLAGS_WORDS``): the readers see identical input. They must not mutate it (none
does: ``tables_free.CachedPage`` already shares one result between readers).
"""

from __future__ import annotations


class HeldPage:
    """A pymupdf page whose words and drawings come from what the page stage kept."""

    def __init__(self, page, held: dict) -> None:
        self._real = page
        self._held = held

    def __getattr__(self, name: str):
        return getattr(self._real, name)

    def get_cdrawings(self, *args, **kw):
        if not args and not kw and "cd" in self._held:
            return self._held["cd"]
        return self._real.get_cdrawings(*args, **kw)

    def get_text(self, option: str = "text", **kw):
        if option == "words" and not kw and "words" in self._held:
            return self._held["words"]
        return self._real.get_text(option, **kw)


class HeldDoc:
    """A pymupdf document whose held pages (page number -> ``held_page``) are :class:`HeldPage`."""

    def __init__(self, doc, held: dict[int, dict]) -> None:
        self._real = doc
        self._held = held

    def __getattr__(self, name: str):
        return getattr(self._real, name)

    def __len__(self) -> int:
        return len(self._real)

    def __iter__(self):
        return (self[i] for i in range(len(self._real)))

    def __getitem__(self, i):
        page = self._real[i]
        if isinstance(i, int):
            kept = self._held.get(page.number + 1)
            if kept:
                return HeldPage(page, kept)
        return page
