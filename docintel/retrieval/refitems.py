"""Numbered items a reference names through its section's number, and lettered section ids.

A rule book or constitution numbers the paragraphs under a section "1.", "2.", "3." and cites
them by appending the item to the section's number: "§4.2.1" is paragraph 1 of section 4.2,
"§A.3.4" paragraph 4 of A.3 (the Debian Constitution's style; court and exchange rules cite "Rule
4.2.1" the same way when the items carry no number of their own). When no unit of the document
has the whole id, the id less its last part is the section and the last part the item, read as
a sub-selector ("paragraph (1)") by the section's resolution. Only ids of three or more parts are
read so: "4.2" of a document that lacks it is not item 2 of section 4 (a two-level id is a
section far more often than an item).

An appendix's sections are numbered after its letter ("A.1. Discussion and Amendment",
"B.2 ..."): :data:`LETTERED` is that id, looked up like a numbered heading.
"""

from __future__ import annotations

import re

#: A section id led by an appendix letter: "A.5", "B.2.1".
LETTERED = re.compile(r"[A-Z](?:\.[0-9]{1,3}){1,3}")
_ITEM = re.compile(r"((?:[A-Z]|[0-9]{1,3})(?:\.[0-9]{1,3}){1,3})\.([0-9]{1,3})")


def list_item_of(target: str | None) -> tuple[str, str] | None:
    """(section, item) of a three-part or longer id ("4.2.1": ("4.2", "1"); "A.3.4": ("A.3",
    "4")), else None."""
    m = _ITEM.fullmatch(str(target or ""))
    return (m.group(1), m.group(2)) if m else None
