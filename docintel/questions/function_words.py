"""Function words of the other languages the corpora hold (es, fr, de, pt, it), for questions
written in them: "¿Cuándo debe el empleador completar la Sección 2?" searches for "empleador
completar sección", not for "el" and "la", and its phrases do not run across "el".

A language's list applies only when the question holds at least :data:`MIN_HITS` of its words,
so an English question keeps an "en" or "la" it happens to contain ("La Jolla", "the EN 301"):
English function words are ``docintel.text.STOP_WORDS``.
"""

from __future__ import annotations

from collections.abc import Iterable

from docintel.text import STOP_WORDS


def _words(block: str) -> frozenset[str]:
    return frozenset(block.split())


#: Articles, pronouns, prepositions, conjunctions, auxiliaries and question words per language.
#: Words that are also English words or codes ("de" in the CSF's DE.DP, "die", "para" for
#: paragraph, "son", "come") are left out, and English function words ("in", "was") do not count.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "es": _words(
        """el la los las lo un una unos unas del al que qué y o en por con sobre
        se su sus es está están ser debe deben tiene tienen tengo cuándo cuál cuáles cómo
        dónde quién quiénes cuánto cuánta cuántos cuántas le les mi mis tu nos este esta estos
        estas ese esa antes después"""
    ),
    "fr": _words(
        """le la les un une des du au aux et ou en dans par pour avec sans sur que
        qui quoi quel quelle quels quelles est sont doit doivent peut il elle ils elles ce cette
        ces son sa ses leur leurs comment quand où combien pourquoi ne pas"""
    ),
    "de": _words(
        """der das den dem des ein eine einen einem einer und oder in im mit von
        für auf aus bei nach zu zum zur ist sind wird werden muss müssen kann wie wann wo was
        welche welcher welches wer warum sich nicht"""
    ),
    "pt": _words(
        """os as um uma do da dos das no na nos nas ao aos que e ou em por com sem
        sobre se seu sua é são deve devem tem quando qual quais como onde quem quanto"""
    ),
    "it": _words(
        """il lo gli la le un una del della dei degli delle al alla che e o in con
        per su si è sono deve devono quando quale quali quanto"""
    ),
}
#: Words of one language a question must hold for that language's list to apply.
MIN_HITS = 2


def foreign_function_words(words: Iterable[str]) -> frozenset[str]:
    """The function words to ignore in a question made of ``words`` (lower case): those of
    every language it holds at least :data:`MIN_HITS` function words of."""
    ws = [w.lower() for w in words if w.lower() not in STOP_WORDS]
    out: set[str] = set()
    for fw in FUNCTION_WORDS.values():
        if sum(w in fw for w in ws) >= MIN_HITS:
            out |= fw
    return frozenset(out)


__all__ = ["FUNCTION_WORDS", "MIN_HITS", "foreign_function_words"]
