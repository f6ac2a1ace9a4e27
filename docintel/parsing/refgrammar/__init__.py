"""The reference grammar: one table of reference kinds x label forms x numbering forms.

- :mod:`.kinds`: the kinds (section, article, table, exhibit, page, ...) and their labels in
  the main European languages;
- :mod:`.numbering`: numbering forms (decimal, 4.02, roman, letters, bracketed,
  parenthesized chains) and the expansion of lists and ranges;
- :mod:`.rules`: the compiled rules (one per kind, plus external ids, bracketed ids,
  relative and named pointers);
- :mod:`.scan`: the matcher and the compositions ("paragraph (b)(1) of § 164.312");
- :mod:`.rows`: one row per target.

``docintel.parsing.refpatterns`` is the import point callers use.
"""

from docintel.parsing.refgrammar.kinds import KINDS, Kind
from docintel.parsing.refgrammar.rules import RefPattern
from docintel.parsing.refgrammar.scan import RULES, Mention, scan

__all__ = ["KINDS", "RULES", "Kind", "Mention", "RefPattern", "scan"]
