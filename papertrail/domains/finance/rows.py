"""The rows of the three primary statements that financial metrics are built from.

``ROWS`` maps each line item a metric may need to the statement it is read
from (``terms.INCOME``, ``BALANCE``, ``CASH``), the labels filings print for
it and whether it is money paid out (printed in brackets, its size counts).
The labels are regular expressions matched against the whole label, lower-
cased with punctuation dropped, most specific first ("total net revenues"
before "revenues"), so "Purchases of property and equipment" is never read as
property and equipment. It leaves out the notes to the statements and
segment tables.
"""

from __future__ import annotations

from papertrail.domains.finance.terms import BALANCE, CASH, INCOME

ROWS: dict[str, tuple[str, tuple[str, ...], bool]] = {  # name -> (statement, labels, outflow)
    "revenue": (
        INCOME,
        (
            r"total (?:net )?revenues?",
            r"total net sales(?: and revenues?)?",
            r"net (?:operating )?revenues?",
            r"(?:total )?operating revenues?",
            r"net sales",
            r"revenues?",
            r"sales",
        ),
        False,
    ),
    "cost of sales": (
        INCOME,
        (r"(?:total )?cost of (?:goods )?(?:sales|sold|revenues?|products sold)",),
        False,
    ),
    "operating income": (
        INCOME,
        (
            r"(?:total )?operating (?:income|profit)(?: loss)?",
            r"income(?: loss)? from operations",
        ),
        False,
    ),
    "net income": (
        INCOME,
        (
            # the shareholders' share, not the minority's
            r"(?:consolidated )?net (?:income|earnings) attributable to"
            r" (?!noncontrolling|non controlling)[a-z ]+",
            r"(?:consolidated )?net (?:income|earnings)(?: loss)?",
        ),
        False,
    ),
    "interest expense": (INCOME, (r"interest expense(?: net)?",), False),
    "income tax": (
        INCOME,
        (r"(?:provision for |benefit from )?income taxes?(?: expense)?",),
        False,
    ),
    "pretax income": (
        INCOME,
        (r"(?:income|earnings)(?: loss)? before (?:provision for )?income taxes?(?: expense)?",),
        False,
    ),
    "PP&E": (
        BALANCE,
        (
            r"(?:total )?property(?: plant)? and equipment(?: net)?",
            r"net property(?: plant)? and equipment",
        ),
        False,
    ),
    "inventory": (BALANCE, (r"(?:total |merchandise )?inventor(?:y|ies)(?: net)?",), False),
    "accounts payable": (BALANCE, (r"accounts payable(?: trade)?",), False),
    "total assets": (BALANCE, (r"total assets",), False),
    "current assets": (BALANCE, (r"total current assets",), False),
    "current liabilities": (BALANCE, (r"total current liabilities",), False),
    "equity": (BALANCE, (r"total (?:[a-z]+ )?(?:shareholders|stockholders) equity",), False),
    "depreciation and amortization": (
        CASH,
        (
            r"depreciation(?: depletion)? and amortization(?: expense| of property[a-z ]*)?",
            r"depreciation",
        ),
        False,
    ),
    "capital expenditure": (
        CASH,
        (
            r"capital expenditures?(?: net of [a-z ]+)?",
            r"(?:purchases?|payments?) (?:of|for) property(?: plant)? and equipment.*",
            r"(?:additions to|acquisitions? of) property(?: plant)? and equipment.*",
            r"capital spending",
        ),
        True,  # cash paid out, printed in brackets: its size is what is asked
    ),
    "operating cash flow": (
        CASH,
        (r"net cash (?:provided by|from)(?: used in)? operating activities",),
        False,
    ),
    "dividends paid": (
        CASH,
        (r"(?:cash )?dividends paid(?: to (?:common )?(?:share|stock)holders)?", r"dividends"),
        True,
    ),
}
