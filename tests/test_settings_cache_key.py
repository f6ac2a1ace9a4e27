"""The parse cache key is computed from the typed Settings; each default is stated once."""

from __future__ import annotations

import inspect

from docintel.parsing import _ocr_token, parse_document, store
from docintel.settings import DEFAULTS, Settings


def _opts(**kw) -> dict:
    s = Settings(**kw)
    # as parse_document does: the OCR setting enters the key through its token (mode + Tesseract)
    return s.cache_options(parser_version="v", ocr_token=_ocr_token(s.ocr))


def test_parse_defaults_are_the_settings_defaults():
    params = inspect.signature(parse_document).parameters
    for name in ("layout", "ocr", "parser", "eager_refs"):
        assert params[name].default == getattr(DEFAULTS, name), name


def test_every_table_setting_changes_the_key():
    base = store.options_key(_opts())
    for change in ({"layout": "never"}, {"ocr": "never"}, {"eager_refs": True}, {"parser": "docling"}):
        assert store.options_key(_opts(**change)) != base, change


def test_settings_that_do_not_change_tables_leave_the_key_alone():
    base = store.options_key(_opts())
    for change in ({"backend": "openai"}, {"max_loops": 3}, {"top_k": 5}, {"artifacts": "elsewhere"}):
        assert store.options_key(_opts(**change)) == base, change


def test_what_no_setting_states_is_in_the_key_too():
    s = Settings()
    a = s.cache_options(parser_version="v1", ocr_token="auto:tesseract")
    b = s.cache_options(parser_version="v2", ocr_token="auto:tesseract")
    c = s.cache_options(parser_version="v1", ocr_token="auto:none")
    assert len({store.options_key(x) for x in (a, b, c)}) == 3


def test_eager_refs_from_the_environment_is_a_bool(monkeypatch):
    monkeypatch.setenv("DOCINTEL_EAGER_REFS", "1")
    assert Settings.resolve().eager_refs is True
