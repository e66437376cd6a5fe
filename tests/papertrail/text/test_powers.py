"""Powers of ten as answers and PDFs write them."""

import pytest

from papertrail.text.powers import claim_powers, excerpt_powers


@pytest.mark.parametrize(
    "claim,value,decimals",
    [("lr 3e-4", 3e-4, 4), ("eps 1E-9", 1e-9, 9), ("a rate of 2.5 × 10^-5", 2.5e-5, 6)],
)
def test_a_claims_power_of_ten_keeps_its_precision(claim, value, decimals):
    ((_, _, _, got, places),) = claim_powers(claim)
    assert got == pytest.approx(value) and places == decimals


def test_an_excerpts_power_of_ten_may_lose_its_superscript_minus():
    assert excerpt_powers("rate 3 × 10-4, ε = 10-9") == pytest.approx([3e-4, 1e-9])
    assert excerpt_powers("revenue of 10.4 million in 2023") == []
