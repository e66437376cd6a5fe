"""The child side of ``papertrail check``: what it asks when the generic question finds nothing."""

from papertrail.measure.check_child import question_about


def test_question_about_prefers_words_to_a_tables_figures():
    row = "03/04/2016 05/03/2016 Boeing Company El Segundo 25 Layoff"
    assert (
        question_about(row) == "What does the document say about Boeing Company El Segundo Layoff?"
    )
    assert question_about("2021 3 31") == "What does the document say about 2021 3 31?"
