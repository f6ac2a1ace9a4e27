"""The reference kinds, as data: what a pointer may name and how its label is written.

One row per kind. ``ref_type`` is the coarse type the callers and ``cross_ref_df`` know
(``docintel.schema.tables.REF_TYPES``); ``name`` is the finer kind the grammar reports in
each match's ``kind`` field. Label words are regex fragments matched case-insensitively
(full words, with their plurals, in the main European languages); abbreviations may be
written with or without their period ("Fig. 5", "Fig 5"); symbols ("§", "¶") need no
space before the number. ``numbering`` names the numbering forms
(:mod:`docintel.parsing.refnumbering`) that may follow the label.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """One kind of reference target."""

    name: str
    ref_type: str
    #: (language, regex of the full label word, singular and plural)
    words: tuple[tuple[str, str], ...]
    #: abbreviations without their period ("Fig" matches "Fig 5" and "Fig. 5")
    abbrevs: tuple[str, ...] = ()
    #: abbreviations that must carry their period ("p." but never "p 5")
    dotted: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    numbering: tuple[str, ...] = ("decimal",)
    #: a sub-selector may follow ("Table 3 row (E)", "[5.2.3], item ii")
    selectors: bool = False
    example: str = ""
    #: the id means something only with its label: "line 16" of a form is not section 16, so
    #: the resolver matches the label and id together (a "Line 16." heading), never the bare number
    own_label: bool = False
    #: an own-label target is the labelled line nearest the reference ("step 2": a document has
    #: several numbered lists); False: the first heading that carries it (a document's one "Task 1-3")
    nearest: bool = True


_SEC_NUM = (
    "num_letter",
    "rule_hyphen",
    "decimal_paren",
    "letter_decimal",
    "roman_letter",
    "roman",
    "letter",
    "word",
)
_OBJ_NUM = ("chapter_hyphen", "decimal", "letter_decimal", "roman")
_TABLE_NUM = ("chapter_hyphen", "number4", "decimal", "letter_decimal", "roman")
_BACK_NUM = ("letter_decimal", "letter", "decimal", "roman")

#: The numbered statements of a paper, a standard or lecture notes (name, words, example): each label
#: counts its own (or a shared) sequence, so "Definition 3" is the line printed "Definition 3." and
#: never "Theorem 3" or section 3.
_STATEMENTS = (
    # the words a sentence uses in lower case ("for example 5 days", "the definition 2 of") are
    # read capitalized only; a paper's text layer may keep the "fi" ligature ("De\ufb01nition 3":
    # PyMuPDF preserves ligatures)
    ("theorem", r"theorems?", "Theorem 2, Theorem 3.1, Theorems 1 and 2"),
    ("lemma", r"lemm(?:as?|ata)", "Lemma 4, Lemmas 2 and 3"),
    ("proposition", r"propositions?", "Proposition 5"),
    ("corollary", r"corollar(?:y|ies)", "Corollary 1"),
    (
        "definition",
        "(?-i:Definitions?|De\ufb01nitions?|DEFINITIONS?)",
        "see Definition 3 (never 'the definition 2')",
    ),
    ("example", r"(?-i:Examples?|EXAMPLES?)", "Example 3 (never 'for example 5 days')"),
    ("remark", r"(?-i:Remarks?|REMARKS?)", "Remark 2"),
    ("algorithm", r"algorithms?", "Algorithm 1"),
)

#: The kind table (order = priority when two kinds match the same span).
KINDS: tuple[Kind, ...] = (
    Kind(
        "table",
        "table",
        (
            ("en", r"tables?"),
            ("fr", r"tableaux?"),
            ("de", r"tabellen?"),
            ("es", r"tablas?|cuadros?"),
            ("pt", r"tabelas?|quadros?"),
            ("it", r"tabell[ae]"),
        ),
        abbrevs=("tab", "tbl"),
        numbering=_TABLE_NUM,
        selectors=True,
        example="Table 3 row (E), Tab 4, Tables 1 and 2, Table 2-1, Table 1041, tableau 2, Tabelle 4, cuadro 3",
    ),
    Kind(
        "figure",
        "figure",
        (
            ("en", r"figures?|charts?"),
            ("de", r"abbildung(?:en)?"),
            ("es", r"figuras?|gr[áa]ficos?"),
            ("it", r"figur[ae]"),
        ),
        abbrevs=("figs", "fig"),
        dotted=("abb",),
        numbering=_OBJ_NUM,
        selectors=True,
        example="Figure 7-27, Fig 5, Fig. 5, Figs. 3 and 4, Abbildung 2, figura 4, Gráfico 1.1",
    ),
    Kind(
        "equation",
        "equation",
        (
            ("en", r"equations?"),
            ("fr", r"[ée]quations?"),
            ("de", r"gleichung(?:en)?"),
            ("es", r"ecuaci[óo]n(?:es)?"),
            ("pt", r"equa[çc](?:[ãa]o|[õo]es)"),
        ),
        abbrevs=("eqs", "eqn", "eq"),
        dotted=("gl",),
        numbering=("equation",),
        example="Eq. (1), Eq 2, equation (3), Equations 2 and 3, Gleichung (4)",
    ),
    Kind(
        "appendix",
        "appendix",
        (
            ("en", r"appendix|appendices"),
            ("fr", r"appendices?"),
            ("de", r"anh[äa]nge?"),
            ("es", r"ap[ée]ndices?"),
            ("pt", r"ap[êe]ndices?"),
        ),
        dotted=("app", "appx"),
        numbering=_BACK_NUM,
        selectors=True,
        example="Appendix C.2, App. B, Appendices A and B, Anhang B, Apêndice A",
    ),
    Kind(
        "annex",
        "annex",
        (
            ("en", r"annex(?:es)?"),
            ("fr", r"annexes?"),
            ("es", r"anexos?"),
            ("it", r"allegat[oi]"),
        ),
        numbering=_BACK_NUM,
        selectors=True,
        example="Annex B, l'annexe A, anexo II, allegato 3",
    ),
    Kind(
        "exhibit",
        "appendix",
        (("en", r"exhibits?"),),
        numbering=("letter_decimal", "letter", "decimal_tagged", "decimal"),
        selectors=True,
        example="Exhibit B, Exhibit 2, Exhibit 2.1(a), Exhibit A-1 (an attachment: the resolver reads it as an appendix)",
    ),
    Kind(
        "schedule",
        "appendix",
        (("en", r"schedules?"),),
        numbering=(
            "roman",
            "letter_decimal",
            "letter",
            "number4",
            "decimal_tagged",
            "number_letter",
            "decimal",
            "caps_id",
        ),
        selectors=True,
        example="Schedule 1, Schedule II, Schedule SE, Schedule 2.1(a), Schedules I through V, Schedule 8812 (a form's four digits, never a"
        " year), Schedule K-1, Schedule 1-A",
    ),
    Kind(
        "attachment",
        "appendix",
        (("en", r"attachments?|enclosures?"), ("de", r"anlagen?")),
        numbering=("letter_decimal", "letter", "decimal", "roman"),
        selectors=True,
        example="Attachment 1, Attachment C, Enclosure 2, Anlage 3",
    ),
    Kind(
        "clause",
        "clause",
        (("en", r"clauses?"), ("fr", r"clauses?"), ("de", r"klauseln?"), ("es", r"cl[áa]usulas?")),
        dotted=("cl",),
        numbering=("num_letter", "decimal_paren", "paren", "letter"),
        example="Clause 8.6, Cl. 4, clauses 4 and 5, clause 5.F., cláusula 3",
    ),
    Kind(
        "article",
        "section",
        (
            ("en", r"articles?"),
            ("de", r"artikel[n]?"),
            ("es", r"art[íi]culos?"),
            ("pt", r"artigos?"),
            ("it", r"articol[oi]"),
        ),
        dotted=("arts", "art"),
        numbering=("decimal_paren", "roman", "word"),
        example="Article 8(1), Art. 5, Articles 12 to 22, l'article 5, artículo 5, articolo 3",
    ),
    Kind(
        "chapter",
        "section",
        (
            ("en", r"chapters?"),
            ("fr", r"chapitres?"),
            ("de", r"kapiteln?"),
            ("es", r"cap[íi]tulos?"),
            ("it", r"capitol[oi]"),
        ),
        dotted=("chap", "ch", "kap"),
        numbering=("decimal", "roman", "letter", "word"),
        example="Chapter 3, Ch. 2, chapitre IV, Kapitel 5, capítulo 2, Chapter Three (a number spelled out is"
        " its digit: target 3)",
    ),
    Kind(
        "subsection",
        "section",
        (
            # "sub- section (c)": a bill hyphenates the word over a line end
            (
                "en",
                r"sub-?sections?|sub-?paragraphs?|sub-?clauses?|sub-?divisions?"
                r"|sub-\s+(?:sections?|paragraphs?|clauses?|divisions?)",
            ),
            ("de", r"unterabschnitte?n?"),
        ),
        numbering=("decimal_paren", "paren"),
        example="subsection (b), Subsection 2.3.1, subparagraph (A), subclause (B)(ii), sub- section (c),"
        " subdivision (b)(2) (a court rule's paragraph)",
    ),
    Kind(
        "subpart",
        "section",
        (("en", r"subparts?"),),
        numbering=("letter", "roman", "decimal"),
        example="subpart C, Subparts A through E",
    ),
    Kind(
        "part",
        "section",
        (("en", r"parts?"), ("fr", r"partie"), ("de", r"teile?"), ("es", r"partes?")),
        dotted=("pt",),
        numbering=("decimal_paren", "roman_letter", "roman", "word"),
        example="Part II, part 164, Part II-A, Parts 1 and 2, parte 3, Pt.4 (class rules: 'Pt.4 Ch.8 Sec.1'; never 'pt' without"
        " its period, '12 pt'; not 'Part B': a letter after 'part' is mostly a name)",
    ),
    Kind(
        "section",
        "section",
        (
            ("en", r"sections?"),
            ("de", r"abschnitte?n?"),
            ("es", r"secci[óo]n(?:es)?"),
            ("pt", r"sec[çc](?:[ãa]o|[õo]es)|se[çc](?:[ãa]o|[õo]es)"),
            ("it", r"sezion[ei]"),
        ),
        abbrevs=("secs", "sects", "sect", "sec"),
        dotted=("abschn",),
        symbols=("\u00a7\u00a7", "\u00a7"),
        numbering=_SEC_NUM,
        example="Section 4.02(c), Sec. 3, Sections 3.2 through 3.5, § 25.1309(b), §§ 1308.42-1308.51",
    ),
    Kind(
        "paragraph",
        "section",
        (
            ("en", r"paragraphs?"),
            ("fr", r"paragraphes?|alin[ée]as?"),
            ("de", r"abs[äa]tze?"),
            ("es", r"p[áa]rrafos?|apartados?"),
            ("pt", r"par[áa]grafos?"),
            ("it", r"paragraf[oi]"),
        ),
        dotted=("paras", "para", "abs"),
        symbols=("\u00b6\u00b6", "\u00b6"),
        numbering=("paren", "num_letter", "decimal_paren", "letter"),
        example="paragraph (q)(1), paragraphs (g) through (l), ¶ 12, para. 4.2, Paragraph B.",
    ),
    Kind(
        "requirement",
        "section",
        (("en", r"requirements?"),),
        dotted=("req",),
        numbering=("decimal_multi",),
        selectors=True,
        example="Requirement 3.1.2, [3.1.2] (a bracketed decimal is a numbered requirement, not a citation)",
    ),
    Kind(
        "rule",
        "section",
        (("en", r"rules?"), ("fr", r"r[èe]gles?")),
        dotted=("r",),
        numbering=("rule_hyphen", "letter_decimal", "chapter_hyphen", "decimal_paren"),
        example="Rule 5.2, Rule 12(b)(6), R. 3.1, Rules 4 to 7, Rule 10b-5 and Rule 3-05 (one rule, not a range),"
        " Rule 14a-8(i)(7), Rule G-17, FINRA Rule 2111 (the body's acronym kept in the reference: a rule book's"
        " provisions; never 'Rules 1998', a year)",
    ),
    Kind(
        "regulation",
        "section",
        (("en", r"regulations?"),),
        dotted=("regs", "reg"),
        numbering=("decimal_paren",),
        example="Regulation 4.2, reg. 12(3), Regulations 3 and 4 (not 'Regulation (EU) 2016/679': an external act)",
    ),
    Kind(
        "item",
        "section",
        (("en", r"items?"),),
        numbering=("item",),
        own_label=True,
        example="Item 7, Item 1A, Items 7 and 7A (a filing's items; 'item ii' written alone stays a selector)",
    ),
    Kind(
        "line",
        "section",
        (("en", r"lines?"),),
        numbering=("decimal",),
        own_label=True,
        example="line 16, lines 1 through 7, line 5a (a form's lines: 'line 5a of Schedule B' is Schedule B's)",
    ),
    Kind(
        "box",
        "section",
        (("en", r"box(?:es)?"),),
        numbering=("decimal",),
        own_label=True,
        example="box 1, Boxes 12a and 12b, Box 2.1 (a form's boxes, a report's boxed text)",
    ),
    Kind(
        "worksheet",
        "section",
        (("en", r"worksheets?"),),
        numbering=("letter_decimal", "chapter_hyphen", "decimal", "letter"),
        own_label=True,
        example="Worksheet A, Worksheet 2, Worksheets 1 and 2, Worksheet 1-1 (IRS Pub. 505: one id per chapter)",
    ),
    Kind(
        "step",
        "section",
        (("en", r"steps?"),),
        numbering=("decimal",),
        own_label=True,
        example="Step 2, steps 3 through 5, go to step 6 (an instruction's or an algorithm's steps)",
    ),
    Kind(
        "task",
        "section",
        (("en", r"tasks?"),),
        numbering=("letter_decimal", "chapter_hyphen", "decimal"),
        own_label=True,
        nearest=False,
        example="Task 1-3, TASK P-3, Task 4 (a process guide's numbered tasks: the heading that opens the task)",
    ),
    *(
        Kind(
            name,
            "section",
            (("en", words),),
            numbering=("decimal",),
            own_label=True,
            nearest=False,
            example=example,
        )
        for name, words, example in _STATEMENTS
    ),
    Kind(
        "recital",
        "section",
        (("en", r"recitals?"), ("fr", r"consid[ée]rants?")),
        numbering=("decimal", "letter"),
        own_label=True,
        example="Recital C, recital 26 (a contract's or an act's preamble)",
    ),
    Kind(
        "note",
        "footnote",
        (("en", r"notes?|footnotes?|endnotes?"),),
        numbering=("decimal", "letter"),
        example="Note 3, see footnote 12 (notes to financial statements, table notes, footnotes)",
    ),
    Kind(
        "page",
        "page",
        (
            ("en", r"pages?"),
            ("de", r"seiten?"),
            ("es", r"p[áa]ginas?"),
            ("it", r"pagin[ae]"),
        ),
        dotted=("pp", "p", "pág", "pag"),
        numbering=("page",),
        example="on page 31, p. 12, pp. 3-5, page iv, page A-3, Seite 89, página 4",
    ),
)

#: The numbered-statement kinds (Theorem, Definition, ...): read with their number only, never as a
#: relative pointer's word ("the following definitions" of a contract is no pointer).
STATEMENT_KINDS = tuple(name for name, _, _ in _STATEMENTS)

#: Security control families of a control catalogue (SP 800-53: "AC-2", "SI-4(2)"): the same codes as
#: ``docintel.identifiers.kinds.CONTROL_FAMILIES`` (a test keeps them equal), kept here so the
#: grammar imports nothing from the identifier kernel (a cached ask loads only what it uses).
CONTROL_FAMILIES = ("AC", "AT", "AU", "CA", "CM", "CP", "IA", "IR", "MA", "MP", "PE", "PL", "PM", "PS", "PT", "RA",
                    "SA", "SC", "SI", "SR")  # fmt: skip

#: Words that select inside a target ("row (E)", "item ii", "column 3").
SELECTOR_WORDS = r"rows?|columns?|lines?|items?|entr(?:y|ies)|steps?|cells?|cols?\."

#: Words that name a direction for a relative reference ("the preceding paragraph").
DIRECTION_WORDS = {
    "previous": "previous",
    "preceding": "previous",
    "prior": "previous",
    "foregoing": "previous",
    "above": "previous",
    "aforementioned": "previous",
    "last": "previous",
    "following": "next",
    "next": "next",
    "subsequent": "next",
    "below": "next",
    "supra": "previous",
    "infra": "next",
    "ci-dessus": "previous",
    "ci-dessous": "next",
    "oben": "previous",
    "unten": "next",
}
