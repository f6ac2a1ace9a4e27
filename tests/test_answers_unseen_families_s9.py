"""Session 9 rules for answers on unseen families (held-out set 4, see BENCHMARKS.md)."""

from __future__ import annotations

from docintel.questions import parse_question
from docintel.retrieval.firstpass import through_list
from docintel.schema.evidence import EvidenceLine, Passage
from tests.test_answers_unseen_families_s8 import _build, _passage

# -- a window that stops inside a list reads on to the list's end ------------------------------


_ARTICLE = [
    (1, 1, "3.", "body"),
    (1, 2, "The notification referred to in paragraph 1 shall at least:", "body"),
    (1, 3, "(a) describe the nature of the personal data breach including where possible, the", "list_item"),
    (1, 4, "categories and approximate number of data subjects concerned;", "body"),
    (1, 5, "(b) communicate the name and contact details of the data protection officer;", "list_item"),
    (1, 6, "(c) describe the likely consequences of the personal data breach;", "list_item"),
    (1, 7, "(d) describe the measures taken or proposed to be taken by the controller.", "list_item"),
    (1, 8, "4.", "body"),
    (1, 9, "Where it is not possible to provide the information at the same time, it may follow.", "body"),
]


def test_a_window_ending_on_an_open_list_member_reads_through_the_list():
    tables = _build(_ARTICLE)
    window = _passage(1, [(n, t) for _, n, t, _ in _ARTICLE[:4]])  # ends on "...concerned;"
    got = through_list(tables, window)
    assert [ln.line for ln in got.lines] == list(range(1, 8)) and got.line_end == 7
    # the member's own ";" with no member after it (the next line is prose) stays as it is
    prose = [
        (1, 1, "The controller shall keep records;", "body"),
        (1, 2, "These are kept five years.", "body"),
    ]
    assert through_list(_build(prose), _passage(1, [(1, prose[0][2])])).line_end == 1
    # a window that ends its sentence before the list is left alone
    assert through_list(tables, _passage(1, [(1, "3.")])).line_end == 1


def test_an_open_member_followed_by_a_lettered_line_without_a_list_role_reads_on():
    rows = [(p, n, t, "body") for p, n, t, _ in _ARTICLE]
    got = through_list(_build(rows), _passage(1, [(n, t) for _, n, t, _ in rows[:4]]))
    assert got.line_end == 7


# -- the question's answer type -----------------------------------------------------------------


def test_the_answer_type_is_read_from_the_question_wording():
    assert (
        parse_question("How soon must a business associate notify the covered entity?").answer_type
        == "duration"
    )
    assert parse_question("Within how many days must the samples be analyzed?").answer_type == "duration"
    assert parse_question("How long must records be kept?").answer_type == "duration"
    assert parse_question("How often must the Secretary issue a report?").answer_type == "frequency"
    # a length, a date, a topic: no answer type
    assert parse_question("How long must the random value rv be?").answer_type is None
    assert parse_question("By when must a person file a notice of intention?").answer_type is None
    assert parse_question("What must the label of an exempt preparation show?").answer_type is None
    # the considerations behind a span are asked for, not the span
    ask = "What should an organization consider when deciding how long to retain evidence?"
    assert parse_question(ask).answer_type is None


_SECTION = [
    "(a) Standard —",
    "(1) General rule. A business associate shall, following the discovery of a breach of unsecured",
    "protected health information, notify the covered entity of such breach.",
    "(2) Breaches treated as discovered. A breach shall be treated as discovered by a business associate",
    "as of the first day on which such breach is known to the business associate, or by exercising",
    "reasonable diligence would have been known to the business associate. A business associate shall",
    "be deemed to have knowledge of a breach if the breach is known to any person, other than the person",
    "committing the breach, who is an employee, officer, or other agent of the business associate.",
    "(b) Timeliness of notification. A business associate shall provide the notification required by",
    "paragraph (a) of this section without unreasonable delay and in no case later than 60",
    "calendar days after discovery of a breach.",
    "(c) Content of notification. The notification to the covered entity of a breach shall include the",
    "identification of each individual whose information has been breached by the business associate.",
]


def test_a_duration_question_opens_its_answer_with_the_line_that_states_a_time():
    from docintel.generation.offline import OfflineBackend

    window = _passage(16, [(i + 1, t) for i, t in enumerate(_SECTION)])
    ask = "How soon must a business associate notify the covered entity of a breach?"
    text = OfflineBackend(max_windows=1, max_lines=4).generate(
        parse_question(ask), [window], pass_no=1, instructions=[]
    )
    assert text.answer.answer.startswith("(b) Timeliness of notification.")
    assert "no case later than 60 calendar days" in text.answer.answer
    # the same words asked without a time: the keyword window, as before
    plain = "Must a business associate notify the covered entity of a breach?"
    text = OfflineBackend(max_windows=1, max_lines=4).generate(
        parse_question(plain), [window], pass_no=1, instructions=[]
    )
    assert not text.answer.answer.startswith("(b) Timeliness")


def test_how_long_soon_often_name_no_topic():
    # the provision says "72 hours"; a recital's "as soon as possible" is not the topic
    assert (
        "soon" not in parse_question("How soon must a controller notify the supervisory authority?").keywords
    )
    assert "long" not in parse_question("How long can a preliminary injunction last?").keywords
    assert "often" not in parse_question("How often must the Secretary issue a report?").keywords
    # "long" as a topic word stays
    assert (
        "long" in parse_question("What is a long-term debt?").keywords
        or "long-term" in parse_question("What is a long-term debt?").keywords
    )
    # "how long-term ..." is "how" + an adjective, not "how long": neither a span nor a dropped word
    assert "long" in parse_question("Describe how long-term leases are reported.").keywords
    assert parse_question("How long-term contracts are accounted for?").answer_type is None


# -- a caption under its table: the rows the question names ---------------------------------------


def test_a_window_on_a_caption_under_its_table_starts_at_the_first_row_the_question_names():
    from docintel.generation.offline import OfflineBackend

    cells = ["method", "top-1 err.", "plain-34", "28.54", "ResNet-34 B", "24.52", "ResNet-50", "22.85"]
    cells += ["ResNet-101", "21.75", "ResNet-152", "21.43"]
    lines = [(i + 1, t) for i, t in enumerate(cells)]
    ev = [EvidenceLine(page=6, line=n, text=t, role="table") for n, t in lines]
    ev.append(
        EvidenceLine(
            page=6, line=13, text="Table 3. Error rates (%, 10-crop testing) on validation.", role="caption"
        )
    )
    ev.append(EvidenceLine(page=6, line=14, text="The deeper models are more accurate.", role="body"))
    window = Passage(doc_id="d", page=6, line_start=1, line_end=14, lines=ev)
    ask = "How much lower are the 10-crop testing error rates of the 50-, 101- and 152-layer ResNets than the 34-layer ones?"
    text = OfflineBackend().generate(parse_question(ask), [window], pass_no=1, instructions=[]).answer.answer
    assert text.startswith("plain-34") and "24.52" in text and "21.43" in text


def _table_page(rows: list[tuple[str, str]]) -> Passage:
    ev = [EvidenceLine(page=3, line=i + 1, text=t, role=r) for i, (t, r) in enumerate(rows)]
    return Passage(doc_id="d", page=3, line_start=1, line_end=len(ev), lines=ev)


def test_a_caption_over_the_next_table_does_not_reach_back_into_the_table_above():
    # the caption-above style of most standards: Table 2's caption sits right under Table 1's
    # rows; a window seeded on it is about Table 2, the rows above are another table's
    from docintel.generation.offline import OfflineBackend

    rows = [("Table 1. Model sizes (parameters, millions).", "caption")]
    for k in range(18):
        rows += [(f"Model-{k}", "table"), (str(k), "table")]
    rows += [("ResNet-50", "table"), ("25.6", "table")]
    rows += [("Table 2. Top-1 error rates (%) on the validation set.", "caption")]
    for name, err in [
        ("ResNet-18", "30.2"),
        ("ResNet-34", "26.7"),
        ("ResNet-50", "24.0"),
        ("ResNet-101", "22.4"),
    ]:
        rows += [(name, "table"), (err, "table")]
    rows += [("Deeper networks reach lower error.", "body")]
    ask = "What is the top-1 error rate of ResNet-50 on the validation set?"
    got = (
        OfflineBackend().generate(parse_question(ask), [_table_page(rows)], pass_no=1, instructions=[]).answer
    )
    assert "ResNet-18 30.2" in got.answer
    assert "Model-9 " not in got.answer and "Model-1 " not in got.answer


def test_a_caption_under_its_table_reaches_back_over_its_rows_whatever_follows_it():
    # the papers' style: rows, "Table 3." under them, the table's note (read as table lines) and
    # Table 4's rows right after; and two tables in a row, each captioned under its rows
    from types import SimpleNamespace

    from docintel.generation.offline.tablerows import rows_above_caption

    def row(role: str, hits: set | None = None) -> SimpleNamespace:
        return SimpleNamespace(ln=SimpleNamespace(role=role), hits=hits or set())

    rows = [row("body"), row("table", {"resnet-34"})] + [row("table") for _ in range(9)]
    rows += [row("caption", {"crop"}), row("table"), row("table"), row("table", {"resnet-34"})]
    assert rows_above_caption(rows, 11, 5) == 1
    rows = [row("table") for _ in range(6)] + [row("caption"), row("caption")]  # Table 1, under its rows
    rows += [row("table", {"resnet-50"})] + [row("table") for _ in range(5)] + [row("caption", {"error"})]
    assert rows_above_caption(rows, 14, 10) == 8
    # the standards' style: Table 1's caption above its rows, Table 2's caption under them
    rows = [row("body"), row("caption")] + [row("table", {"resnet-50"}) for _ in range(6)]
    rows += [row("caption", {"error"}), row("table")]
    assert rows_above_caption(rows, 8, 4) == 4


def test_a_window_ending_its_sentence_reads_no_lines_after_it(monkeypatch):
    # only a window ending on ":" or an open member (";", ", and") can continue into a list; the
    # lines after any other window are not looked up at all
    import docintel.retrieval.firstpass as firstpass

    calls = []
    real = firstpass.evidence_after
    monkeypatch.setattr(firstpass, "evidence_after", lambda *a: calls.append(a) or real(*a))
    tables = _build(_ARTICLE)
    assert through_list(tables, _passage(1, [(9, _ARTICLE[8][2])])).line_end == 9
    assert calls == []
    assert through_list(tables, _passage(1, [(n, t) for _, n, t, _ in _ARTICLE[:4]])).line_end == 7
    assert len(calls) == 1


def test_a_refusal_names_the_question_words_not_the_answer_type():
    from docintel.generation.offline import OfflineBackend

    rows = [
        "Section 9. Insurance.",
        "The tenant shall insure the contents.",
        "The landlord insures the building.",
    ]
    ev = [EvidenceLine(page=2, line=i + 1, text=t, role="body") for i, t in enumerate(rows)]
    p = Passage(doc_id="d", page=2, line_start=1, line_end=3, lines=ev)
    q = parse_question("How soon must the deposit be returned?")
    assert q.answer_type == "duration"
    got = OfflineBackend().generate(q, [p], pass_no=1, instructions=[]).answer
    assert got.answer_completeness == "not_found"
    assert "deposit" in got.answer and "answer type" not in got.answer and "duration" not in got.answer


# -- a question's answer type, read from its wording only --------------------------------------


def test_length_clock_time_weekday_and_band_questions_ask_for_no_span():
    for ask in (
        "How long is the cable between the sensor and the controller?",  # a length
        "How long is the key used by AES-256?",
        "How long are the lists of approved algorithms?",
        "What time does the polling place open?",  # a clock time
        "What time zone is used for the deadline?",
        "What days of the week is the office open?",
        "What frequency band does the radio use?",  # a band, a rate
        "What frequency is the clock signal?",
    ):
        assert parse_question(ask).answer_type is None, ask
    for ask in (
        "How long does the review take?",
        "How long are the records kept?",
        "How long is the notice period?",
        "So how long is the term of the agreement?",
        "For how long is the licence valid?",
        "Within what time must the agency respond?",
        "How long after the breach must the notice be sent?",
        "How much time does a player have to make a move?",
    ):
        assert parse_question(ask).answer_type == "duration", ask
    for ask in ("How often must the plan be reviewed?", "At what intervals is the meter read?"):
        assert parse_question(ask).answer_type == "frequency", ask


def test_a_time_stated_on_one_topic_word_does_not_lead_a_many_word_question():
    # four topic words: the answer needs two of them; a line on "landlord" alone that gives a time
    # (another provision's) is not the answer to the deposit question
    from docintel.generation.offline import OfflineBackend

    rows = [
        ("7. Deposit", "heading"),
        ("At the end of the tenancy the landlord shall return the security deposit to the tenant,", "body"),
        ("less any amount needed to repair damage beyond normal wear.", "body"),
        ("8. Entry", "heading"),
        ("The landlord may enter the premises on 24 hours' notice to make repairs.", "body"),
    ]
    q = parse_question("How soon must the landlord return the security deposit?")
    assert q.answer_type == "duration"
    for backend in (OfflineBackend(), OfflineBackend(max_windows=1, max_lines=4)):
        got = backend.generate(q, [_table_page(rows)], pass_no=1, instructions=[]).answer.answer
        assert got.startswith("7. Deposit") and "24 hours" not in got
