"""A quoted answer is cut to the clause that answers, or to the one name asked for."""

from papertrail.answer.extractive import ExtractiveGenerator
from papertrail.answer.short import (
    answer_tail,
    answering_clause,
    asks_one,
    named_answer,
    without_opener,
)
from papertrail.types import Chunk, Hit
from papertrail.verify.verify import verify_answer
from tests.fakes import HashEmbedder

GESTALT = (
    "Gestalt psychology was conceived in the Berlin School of Experimental Psychology, and "
    "tries to understand the laws of our ability to acquire and maintain meaningful perceptions."
)
PKG = (
    "Furthermore, PKG introduces an innovative method for integrating knowledge into "
    "white-box models via directive fine-tuning [75]."
)
BRIDGE = (
    "BGM keeps the retriever and LLM fixed, and trains a bridge Seq2Seq model in between. "
    "The bridge model transforms the retrieved information into a format that LLMs can use."
)


def hits(*texts):
    return [Hit(Chunk("d" * 64, "paper.pdf", i, 1 + i, t, ()), 1.0) for i, t in enumerate(texts)]


def test_keeps_the_clause_that_holds_the_question_and_its_answer():
    question = "Where was Gestalt psychology conceived?"
    assert answering_clause(GESTALT, question) == (
        "Gestalt psychology was conceived in the Berlin School of Experimental Psychology"
    )
    # a question about the other clause keeps the whole sentence: "and tries ..." has no
    # subject of its own
    assert answering_clause(GESTALT, "What does Gestalt psychology try to understand?") == GESTALT


def test_a_clause_is_quoted_alone_only_when_it_stands_alone_and_holds_the_question():
    sentence = "The encoder has six layers; each layer has two sub-layers."
    assert answering_clause(sentence, "How many layers does the encoder have?") == (
        "The encoder has six layers"
    )
    # "each layer ..." opens in lowercase: cut off, it would not read as a sentence
    assert answering_clause(sentence, "How many sub-layers does each layer have?") == sentence
    capital = "The encoder has six layers; Each layer has two sub-layers."
    assert answering_clause(capital, "How many sub-layers does each layer have?") == (
        "Each layer has two sub-layers."
    )
    # neither clause holds the question's words alone: the sentence is quoted whole
    split = "The encoder is a stack of layers; It is described in section 3."
    assert answering_clause(split, "Where is the encoder described?") == split


def test_the_name_a_which_question_asks_for():
    question = "Which method integrates knowledge into white-box models via directive fine-tuning?"
    assert named_answer(without_opener(PKG), question) == "PKG"
    assert named_answer(PKG, "How does PKG integrate knowledge?") is None  # not a which/who
    # two names: which one answers is not clear from the words
    assert named_answer("BGM and PKG keep the retriever fixed.", "Which method keeps it?") is None
    assert named_answer("Table 3 lists the white-box models.", "Which table lists them?") is None


def test_without_opener_drops_a_linking_word_and_the_documents_own_references():
    assert without_opener(PKG).startswith("PKG introduces an innovative method")
    assert "[75]" not in without_opener(PKG)
    assert without_opener("However, it fails.") == "However, it fails."  # says something


def test_short_answers_are_quoted_and_verified():
    h = hits(BRIDGE, PKG, GESTALT)
    gen = ExtractiveGenerator()
    question = "Which method integrates knowledge into white-box models via directive fine-tuning?"
    draft = gen.generate(question, h)
    assert draft.text == "PKG [2]."
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped
    draft = gen.generate("What does Gestalt psychology try to understand in perception?", h)
    assert "tries to understand the laws" in draft.text  # its clause does not stand alone
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped


def test_no_name_for_questions_that_ask_for_several_or_for_a_measure():
    clause = "PKG integrates knowledge into white-box models"
    assert named_answer(clause, "Which methods integrate knowledge into models?") is None
    assert named_answer("At 0.5 PKG integrates knowledge", "Which temperature suits it?") is None
    assert named_answer(clause, "Who integrates knowledge into white-box models?") == "PKG"


def test_lists_stay_whole_and_a_name_must_open_the_clause():
    listing = (
        "We sample pairs from three baselines: ChatGPT (temperature 0.5), LLaMA-7B, and Vicuna."
    )
    assert answering_clause(listing, "Which baselines are sampled?") == listing
    assert not asks_one("What are the uses of the satellites?")
    assert not asks_one("List the error codes.")
    assert asks_one("Which method integrates knowledge?")
    # the name is the object, not the subject: the question may ask about something else
    assert named_answer("In this work we propose the Transformer", "What architecture?") is None
    # a measure is answered by a figure, never by a name
    assert named_answer("English-to-German is 28.4", "What BLEU score does it reach?") is None
    assert without_opener("In addition to X, RAG has Y.") == "In addition to X, RAG has Y."


def test_a_question_that_asks_one_thing_gets_the_best_sentence_alone():
    layers = "The encoder is composed of a stack of six identical layers."
    heads = "Each of the layers of the encoder has eight attention heads."
    h = hits(layers, heads)
    one = ExtractiveGenerator().generate("How many identical layers does the encoder have?", h)
    assert one.text == "The encoder is composed of a stack of six identical layers [1]."
    several = ExtractiveGenerator().generate("What are the layers of the encoder made of?", h)
    assert len(several.text.splitlines()) == 2  # a list question: each sentence may add to it


def test_what_follows_the_restated_question_is_the_answer():
    clause = answering_clause(GESTALT, "Where was Gestalt psychology conceived?")
    question = "Where was Gestalt psychology conceived?"
    assert answer_tail(clause, question) == "in the Berlin School of Experimental Psychology"
    # a heading run in before the restated question is left off too
    headed = "Gestalt Principles of Visual Perception " + clause
    assert answer_tail(headed, question) == "in the Berlin School of Experimental Psychology"
    # the answer inside the restating run: no tail
    proposed = "In this work we propose the Transformer, a model architecture relying on attention"
    assert answer_tail(proposed, "What architecture does this paper propose?") is None
    # the question's words at the end of a long clause: it is about something else
    late = "The launch of 17 satellites is another highlight during the reporting period"
    assert answer_tail(late, "What year is the report for?") is None
    assert answer_tail(clause, "Why was Gestalt psychology conceived?") is None


def test_a_tail_answer_is_verified_as_a_quote():
    h = hits(BRIDGE, GESTALT)
    draft = ExtractiveGenerator().generate("Where was Gestalt psychology conceived?", h)
    assert draft.text == "in the Berlin School of Experimental Psychology [2]."
    checked = verify_answer(draft.text, h)
    assert checked.grounded and not checked.dropped


def test_no_tail_that_would_drop_a_negation_or_take_a_name_for_a_verb():
    question = "Where was the device assembled?"
    assert answer_tail("The device was not assembled in Sweden and Norway", question) is None
    assert answer_tail("The device was assembled Sweden-side in Malmo", question) == (
        "Sweden-side in Malmo"
    )


def test_of_close_sentences_the_one_whose_clause_answers_is_quoted():
    stacks = (
        "The encoder is composed of a stack of N = 6 identical layers, and each layer has two "
        "sub-layers: a multi-head self-attention mechanism and a position-wise feed-forward "
        "network. The decoder is also a stack of six identical layers, with a third sub-layer "
        "that attends over the output of the encoder."
    )
    gen = ExtractiveGenerator(HashEmbedder())
    draft = gen.generate("How many identical layers are in the encoder stack?", hits(stacks))
    assert draft.text == "The encoder is composed of a stack of N = 6 identical layers [1]."


def test_no_tail_when_the_answer_came_with_the_restated_question():
    question = "What BLEU score does the model achieve on English-to-German?"
    both = "Our model achieves 28.4 BLEU on English-to-German, improving by over 2 BLEU"
    assert answer_tail(both, question) is None  # 28.4 is inside: the rest is no answer
    joined = "It reaches BLEU on English-to-German and 41.0 BLEU on English-to-French"
    assert answer_tail(joined, "What BLEU on English-to-German?") is None  # "and ...": more
    assert not asks_one("Who should I mention, and which channel should this be posted in?")


def test_a_tail_keeps_the_sign_and_currency_of_its_figure():
    from papertrail.answer.short import answer_tail

    assert answer_tail("Net income was £1,577,000", "What was the net income?") == "£1,577,000"
    assert answer_tail("The loss was -$3.2 million", "What was the loss?") == "-$3.2 million"


def test_no_tail_that_hangs_on_the_noun_it_leaves_behind():
    clause = "For the small model, we use a learning rate of 0.002"
    assert answer_tail(clause, "What learning rate was used for the small model?") is None
