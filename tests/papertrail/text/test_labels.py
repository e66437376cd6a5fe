from __future__ import annotations

import pytest

from papertrail.text.labels import caption, named


@pytest.mark.parametrize(
    "text, labels",
    [
        ("According to table II, which datasets have three methods?", ("table II",)),
        ("13 TABLE II DOWNSTREAM TASKS AND DATASETS", ("table II",)),
        ("as summarized in Table II. B. Evaluation Target", ("table II",)),
        ("Which items are blue in Table1-1?", ("table 1-1",)),
        ("Table 1.1 Comparison between storage classes", ("table 1-1",)),
        ("What is the title of Figure 7?", ("figure 7",)),
        ("see Fig. 7 and Figure 3a", ("figure 7", "figure 3a")),
        ("Exhibit 10.1 to the report; Chart 4", ("exhibit 10-1", "chart 4")),
        ("Figure 7 and again figure 7", ("figure 7",)),
        ("a table i made for the figure", ()),  # lower-case Roman numerals name nothing
        ("Table 12-month average", ()),  # a number that runs on into a word
        ("the table 2023 figures", ()),  # four digits: a year, not a label
        ("figures 7 and 8", ()),  # the plural is prose
    ],
)
def test_labels_read_alike_in_questions_and_pages(text, labels):
    assert named(text) == labels


@pytest.mark.parametrize(
    "text, label, title",
    [
        ("Figure 1: The Transformer - model architecture. The encoder maps", "figure 1",
         "Figure 1: The Transformer - model architecture."),
        ("13 TABLE II DOWNSTREAM TASKS AND DATASETS OF RAG Task Sub Task Dataset", "table II",
         "TABLE II DOWNSTREAM TASKS AND DATASETS OF RAG"),
        ("new storage class. Table 1-1 Comparison between storage classes Compared Standard",
         "table 1-1", "Table 1-1 Comparison between storage classes"),
        ("the main tasks are summarized in Table II. B. Evaluation", "table II", ""),  # a mention
        ("Table 2 shows that the model is better.", "table 2", ""),  # a sentence about it
        ("Figure 1: The Transformer - model architecture.", "figure 2", ""),  # another label
    ],
)  # fmt: skip
def test_a_caption_is_the_words_a_label_titles(text, label, title):
    assert caption(text, label) == title
