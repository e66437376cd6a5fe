"""papertrail.text.formula: arithmetic over placeholders, shown and stated, never run as code."""

from __future__ import annotations

import pytest

from papertrail.text.formula import FormulaError, cell_value, evaluate, rounded, show, stated
from papertrail.types import Metric


def test_placeholders_are_filled_and_worked_out():
    assert evaluate("{0} / (({1} + {2}) / 2)", [6489, 253, 282]) == pytest.approx(24.2579, 1e-4)
    assert evaluate("365 * {0} / ({1} + {2} - {3})", [10, 100, 5, 5]) == pytest.approx(36.5)
    assert evaluate("-{0} + {1}", [2, 3]) == 1.0
    assert evaluate("{0} - {1}", [-116.0, 4]) == -120.0  # a negative value stays one number


@pytest.mark.parametrize(
    "formula",
    ["__import__('os')", "{0} ** 2", "abs({0})", "x + {0}", "{0}; {0}", "[{0}]", "{0} // 2"],
)
def test_anything_but_plain_arithmetic_is_refused(formula):
    with pytest.raises(FormulaError):
        evaluate(formula, [1.0])


def test_division_by_zero_and_missing_figures_are_errors():
    with pytest.raises(FormulaError, match="zero"):
        evaluate("{0} / {1}", [1, 0])
    with pytest.raises(FormulaError, match="needs 2"):
        evaluate("{0} + {1}", [1])


def test_show_puts_the_cells_as_printed():
    assert show("{0} / (({1} + {2}) / 2)", ["6,489", "253", "282"]) == "6,489 / ((253 + 282) / 2)"


def test_cells_read_as_numbers():
    assert cell_value("6,489") == 6489.0
    assert cell_value("(1,600)") == -1600.0
    assert cell_value("-12.5") == -12.5
    assert cell_value("\u2014") == 0.0
    assert cell_value("n/a") is None


def test_results_are_stated_as_asked():
    assert rounded(0.30845, 1, percent=True) == "30.8%"
    assert rounded(-0.0001, 2) == "0.00"
    ratio = Metric("x", "{0}", (), decimals=2)
    assert stated(ratio, 24.2579, "million") == "24.26"
    share = Metric("x", "{0}", (), decimals=1, percent=True)
    assert stated(share, 0.019, "million") == "1.9%"
    billions = Metric("x", "{0}", (), decimals=2, money=True, scale="billion")
    assert stated(billions, 4625.0, "million") == "$4.62 billion"
    millions = Metric("x", "{0}", (), decimals=0, money=True)
    assert stated(millions, -1600.0, "million") == "-$1,600 million"
