"""Search in scripts written without spaces: a string present in the document is found and cited."""

from __future__ import annotations

import pymupdf
import pytest

from docintel import api
from docintel.text import terms, words


def test_no_space_runs_become_character_bigrams_and_latin_is_unchanged():
    assert words("数据安全") == ["数据", "据安", "安全"]
    assert words("ABC中文") == ["abc", "中文"]
    assert words("日本語") == ["日本", "本語"]
    assert words("表") == ["表"]
    latin = "The rv_length_indicator is 28.4, don't split sine/cosine or english-to-german."
    assert words(latin) == ["the", "rv_length_indicator", "is", "28.4", "don't", "split", "sine", "cosine",
                            "or", "english", "to", "german"]  # fmt: skip
    assert terms("营业收入") == ["营业", "业收", "收入"]  # not stemmed, all content


def _cjk_pdf(path, lines_by_page):
    doc = pymupdf.open()
    for lines in lines_by_page:
        page = doc.new_page()
        for i, (text, font) in enumerate(lines):
            page.insert_text((72, 90 + 22 * i), text, fontsize=12, fontname=font)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    ("question", "needle"),
    [
        ("经营活动产生的现金流量净额是多少？", "经营活动产生的现金流量净额"),
        ("耐震設計の基準は何ですか？", "耐震設計の基準"),
    ],
)
def test_a_cjk_string_present_in_the_document_is_found_and_cited(tmp_path, question, needle):
    pdf = _cjk_pdf(
        tmp_path / "cjk.pdf",
        [
            [("第一节 重要提示", "china-s"), ("本公司董事会保证季度报告内容的真实、准确、完整。", "china-s")],
            [("第二节 主要会计数据", "china-s"), ("营业收入为四百七十五万元。", "china-s")],
            [("第三节 现金流量", "china-s"), ("经营活动产生的现金流量净额为负四百万元。", "china-s")],
            [("第四章 建築物", "japan"), ("耐震設計の基準は建築基準法に定められている。", "japan")],
        ],
    )
    res = api.ask(pdf, question, backend="offline", out_dir=tmp_path / "art", write_trace=False)
    assert res.answer.answer_completeness != "not_found"
    assert needle in res.answer.answer
    tables = api.parse(pdf, out_dir=tmp_path / "art")
    hit = tables.line_df[tables.line_df["text"].str.contains(needle)].iloc[0]
    cited = {(c.page, ln) for c in res.answer.citations for ln in range(c.line_start, c.line_end + 1)}
    assert (int(hit["page"]), int(hit["line"])) in cited
