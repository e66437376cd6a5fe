"""Figures: a claim's numbers found in an excerpt in another notation, unit or scale."""

import pytest

from papertrail.text.figures import claim_figures, excerpt_numbers, figure_in


def _found(claim: str, excerpt: str) -> list[bool]:
    numbers = excerpt_numbers(excerpt)
    return [figure_in(f, numbers) for f in claim_figures(claim)]


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        ("Revenue was 1,577 dollars.", "Revenue 1577"),
        ("Revenue was $1,577.00.", "Revenue 1,577"),
        ("Revenue was 1577.", "Revenue $1,577.00"),
        ("Revenue was $1.6 billion.", "Revenue (in millions) 1,577"),
        ("It generated $382.00 million in cash.", "Net cash provided 381,603 465,699"),
        ("It paid out $0.40 billion in dividends.", "Dividends paid (389) (353) (319)"),
        ("Liabilities (in USD millions) were $5466.00.", "Total liabilities 5,466,312"),
        ("About 16.1 million votes were against.", "Johnson 54,484,293 16,105,005"),
        ("Sales grew 24.3% this year.", "Sales 24.3 26.1"),
        ("Sales grew 24.3 percent.", "growth of 24.3%"),
        ("Margin was 20% of sales.", "Net earnings 5,144 $ 20.0"),
        ("The dividend was 0.01$ per share.", "an annual dividend of $.01 per share"),
        ("It was trained for 12 hours.", "trained for twelve hours on eight GPUs"),
        ("The encoder has N=6 layers.", "a stack of N = 6 identical layers"),
        ("Worldwide sales were $94,900 million.", "sales of $94.9 billion"),
        ("Revenue was 450mn euros.", "Revenue EUR 450 million"),  # a glued scale suffix
        ("Revenue was EUR 450 million.", "Revenue EUR 450mn"),
        ("Net profit was $1.2bn.", "Net profit (in millions) 1,200"),
        ("Revenue was Rs 3,02,16,492.", "Revenue 30,216,492"),  # Indian digit grouping
        ("Revenue was 30,216,492 rupees.", "Revenue Rs 3,02,16,492"),
        ("Revenue was 3.02 crore rupees.", "Revenue Rs 3,02,16,492"),
        ("Revenue was Rs 302.16 lakh.", "Revenue (Rs in lakhs) 302.16"),
        ("Revenue was 1,234,567.89 euros.", "Umsatz 1.234.567,89 EUR"),  # continental grouping
    ],
)
def test_same_figure_in_other_notation_or_unit(claim, excerpt):
    assert _found(claim, excerpt) == [True] * len(claim_figures(claim))
    assert claim_figures(claim)


@pytest.mark.parametrize(
    ("claim", "excerpt"),
    [
        ("The model achieves 28.4 BLEU.", "Our model achieves 41.0 BLEU."),
        ("The model achieves 24.8 BLEU.", "Our model achieves 28.4 BLEU."),
        ("The encoder has N=12 layers.", "a stack of N = 6 identical layers"),
        ("It generated $328.00 million.", "Net cash provided 381,603"),
        ("It paid out $4.00 billion.", "Dividends paid (389) (353) (319)"),
        ("The dividend was $0.01 per share.", "Net revenues $ 10,477,542 and 6,733,048"),
        ("Sales grew 12.5%.", "Sales 12 13"),
        ("It uses 2 heads.", "the two mechanisms perform similarly"),  # "two" is not evidence
        ("The rate was 0.01.", "a rate of 0.006"),  # a smaller magnitude rounded up
        ("Revenue was $12 million.", "Revenue grew 12%"),  # a percentage is not an amount
        ("Revenue was Rs 3,02,16,492.", "Revenue 3 02 16 492"),
        ("The ratio was 1.234.", "the ratio 1,234"),  # a lone "1.234" is a decimal
    ],
)
def test_changed_or_absent_figure_is_not_found(claim, excerpt):
    assert False in _found(claim, excerpt)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("In FY2019 and fiscal 2020 revenue rose.", []),  # years are not required figures
        ("Revenue rose 5% in 2021 [1].", ["5"]),  # citation markers are not figures
        ("(1) Revenue rose 5%.", ["5"]),  # list markers neither
        ("1. Revenue rose 5%.", ["5"]),
        ("COVID-19 costs fell in Q2 per the 10-K.", []),  # names, not counts
        ("Trained on 8 P100 GPUs with 40K sentences.", ["8"]),
        ("It costs $2019 in total.", ["2019"]),  # with a currency sign it is an amount
        ("The 4-layer model scored 91.3 F1.", ["4", "91.3"]),
        ("Sales were 450mn; 40K users joined.", ["450"]),  # a scale suffix counts
        ("It was pre-trained on 3.3B words.", ["3.3"]),  # a decimal with a scale letter counts
        ("It was pre-trained on 1.4T tokens.", ["1.4"]),
        ("In Q4'22 free cash flow was $1.1 billion.", ["1.1"]),  # '22 is a year written short
    ],
)
def test_claim_figures_leave_out_years_markers_and_names(claim, expected):
    assert [f.text for f in claim_figures(claim)] == expected


def test_trailing_zeros_are_not_precision():
    (fig,) = claim_figures("It was $382.00 million.")
    assert (fig.value, fig.decimals, fig.scale, fig.digits) == (382.0, 0, 1e6, 3)
    (fig,) = claim_figures("It was $0.40 billion.")
    assert (fig.decimals, fig.digits) == (1, 1)


def test_a_time_is_stated_only_in_its_own_unit():
    from papertrail.text.figures import claim_figures, excerpt_numbers, figure_in

    (seconds,) = claim_figures("The base model took 10 seconds to train.")
    assert not figure_in(seconds, excerpt_numbers("checkpoints written at 10-minute intervals"))
    assert figure_in(seconds, excerpt_numbers("each step took 10 seconds on 8 GPUs"))
    (hours,) = claim_figures("It trained for 12 hours.")
    assert figure_in(hours, excerpt_numbers("for a total of 100,000 steps or 12 hours"))
    assert figure_in(hours, excerpt_numbers("12 (hours)"))  # a unit the excerpt does not name


def test_an_amount_is_marked_by_a_currency_or_a_scale_not_by_what_the_money_is_for():
    amount = {f.text: f.amount for f in claim_figures("Product revenue rose 84% to $394M.")}
    assert amount == {"84": False, "394": True}
    (euros,) = claim_figures("It paid 450 euros.")
    (table,) = claim_figures("Costs were 1,250 (in millions).")
    assert euros.amount and table.amount and table.scale == 1e6
    # a count beside a word about money is still a count: it may not be read in thousands
    (count,) = claim_figures("Customers with revenue above the bar rose to 77.")
    assert not count.amount
    (months,) = claim_figures("It can take 6 months before revenue is recognised.")
    assert not months.amount


def test_figures_and_numbers_keep_their_offsets():
    from papertrail.text.figures import claim_figures_at, figure_text, numbers_at

    claim = "Sales rose 18.2% to $3.2 billion [1]."
    text = figure_text(claim)
    assert [text[a:b] for a, b, _ in claim_figures_at(claim)] == ["18.2", "3.2"]
    plain = "up 7% in 2023, to 1,204"
    assert [plain[a:b] for a, b, _ in numbers_at(plain)] == ["7", "2023", "1,204"]


def test_a_decimal_with_a_scale_letter_matches_the_amount_spelled_out():
    (fig,) = claim_figures("It was pre-trained on 3.3B words.")
    assert figure_in(fig, excerpt_numbers("a corpus of 3.3 billion words"))
    assert not figure_in(fig, excerpt_numbers("a corpus of 3.5 billion words"))
    (tokens,) = claim_figures("It was pre-trained on 1.4T tokens.")
    assert figure_in(tokens, excerpt_numbers("on 1.4 trillion tokens of public data"))


def test_spelled_numbers_one_word_on_compounds_and_percentages():
    (gpus,) = claim_figures("Training ran on 8 GPUs.")
    assert figure_in(gpus, excerpt_numbers("We trained on eight P100 GPUs."))
    assert not figure_in(gpus, excerpt_numbers("We trained eight models on P100 GPUs."))
    (share,) = claim_figures("62% of respondents use the tools weekly.")
    assert figure_in(share, excerpt_numbers("Sixty-two percent of respondents said so."))
    assert not figure_in(share, excerpt_numbers("Sixty-three percent of respondents said so."))


def test_the_day_of_a_date_is_required_only_where_the_excerpt_writes_dates():
    from papertrail.text.coverage import coverage

    claim = "For the quarter ended June 30, 2023, revenue was $812 million."
    assert [f.day for f in claim_figures(claim)] == [True, False]
    assert not any(f.day for f in claim_figures("Its FCF margin was 21%, its margin 12 points."))
    assert [f.day for f in claim_figures("It launched on 28 Sept. 2015 with 5 payloads.")] == [
        True,
        False,
    ]
    named = "Second-quarter 2023 revenue was $812 million."
    assert "30" not in coverage(claim, named)[1]  # the same quarter, named not dated
    dated = "For the quarter ended June 29, 2023, revenue was $812 million."
    assert "30" in coverage(claim, dated)[1]  # another day where the excerpt gives one


def test_powers_of_ten_as_claims_and_pdfs_write_them():
    excerpt = excerpt_numbers("a peak learning rate of 3 × 10−4 and ε = 10−9")
    for claim in ("The learning rate is 3e-4.", "The learning rate is 3 × 10^-4.", "ε is 1e-9."):
        (fig,) = claim_figures(claim)
        assert figure_in(fig, excerpt), claim
    (wrong,) = claim_figures("The learning rate is 3e-5.")
    assert not figure_in(wrong, excerpt)
