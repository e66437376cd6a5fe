"""Sentences: splitting text and PDF lines into sentences, with spans into the original."""

from papertrail.text.sentences import sentence_spans, split_sentences


def test_sentences_survive_abbreviations_decimals_initials_and_lists():
    text = (
        "Fig. 3 shows 28.4 BLEU, e.g. on WMT. Richard A. Johnson left.\n"
        "1. First item here.\n2. Second item. It ends."
    )
    assert split_sentences(text) == [
        "Fig. 3 shows 28.4 BLEU, e.g. on WMT.",
        "Richard A. Johnson left.",
        "1. First item here.",
        "2. Second item.",
        "It ends.",
    ]


def test_pdf_text_joins_wrapped_lines_and_hyphenation():
    text = "the results are pos-\nsible only with\nmore data. Next one"
    assert split_sentences(text, hard_newlines=False) == [
        "the results are possible only with more data.",
        "Next one",
    ]


def test_spans_point_into_the_original_text():
    text = "One is here.  Two is there."
    assert [text[a:b] for a, b in sentence_spans(text)] == ["One is here.", "Two is there."]


def test_chinese_and_japanese_sentences_end_without_a_space():
    text = "公司董事会保证报告内容真实。本报告未经审计!次の文です。 English follows. 「引用。」"
    assert split_sentences(text, hard_newlines=False) == [
        "公司董事会保证报告内容真实。",
        "本报告未经审计!",
        "次の文です。",
        "English follows.",
        "「引用。」",
    ]


def test_a_manuals_limits_do_not_end_a_sentence():
    text = "Insert ground coffee (max. 16 g) and close the lid. Fill to min. 2 cm. Done now."
    assert split_sentences(text, hard_newlines=False) == [
        "Insert ground coffee (max. 16 g) and close the lid.",
        "Fill to min. 2 cm.",
        "Done now.",
    ]
