"""Arithmetic over figures read from documents, written so it can be shown and re-checked.

A formula is plain arithmetic with numbered placeholders for the figures it
needs: ``"{0} / (({1} + {2}) / 2)"``. ``evaluate`` fills them with values and
works it out with Python's own parser, admitting numbers, ``+ - * /``, unary
minus and brackets, nothing else (no names, calls or powers), so a formula is
data, never code. ``show`` fills them with the cells as printed, for people
("6,489 / ((253 + 282) / 2)"); ``working`` shows a ``Calculation`` that way.
``cell_value`` reads a table cell as a number; ``stated`` says a result as a
``Metric`` asks (decimals, percent, money in millions or billions). It knows
nothing of what the figures mean.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Sequence

from papertrail.types import Calculation, Metric

_SLOT = re.compile(r"\{(\d+)\}")
_SCALES = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


class FormulaError(ValueError):
    """A formula that is not plain arithmetic over its placeholders, or divides by zero."""


def slots(formula: str) -> int:
    """How many figures ``formula`` needs (its highest placeholder + 1)."""
    return max((int(m) + 1 for m in _SLOT.findall(formula)), default=0)


def evaluate(formula: str, values: Sequence[float]) -> float:
    """``formula`` worked out with ``values[i]`` in place of ``{i}``."""
    if slots(formula) > len(values):
        raise FormulaError(f"{formula!r} needs {slots(formula)} figures, got {len(values)}")
    text = _SLOT.sub(lambda m: f"({float(values[int(m.group(1))])!r})", formula)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise FormulaError(f"not arithmetic: {formula!r}") from e
    return _walk(tree.body)


def _walk(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_walk(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise FormulaError("division by zero")
        return _OPS[type(node.op)](left, right)
    raise FormulaError(f"not plain arithmetic: {ast.dump(node)[:60]}")


def show(formula: str, cells: Sequence[str]) -> str:
    """``formula`` with the cells as printed in place of the placeholders."""
    return _SLOT.sub(lambda m: cells[int(m.group(1))], formula)


def rounded(value: float, decimals: int, percent: bool = False) -> str:
    """``value`` as a stated result: ``rounded(0.30845, 1, percent=True)`` -> "30.8%"."""
    if percent:
        value *= 100
    text = f"{value:,.{max(0, decimals)}f}"
    if text.lstrip("-").strip("0.,") == "":
        text = text.lstrip("-")  # -0.0 reads as 0.0
    return text + ("%" if percent else "")


def cell_value(cell: str) -> float | None:
    """A table cell as a number: "6,489" -> 6489.0, "(116)" -> -116.0, "—" -> 0.0."""
    text = cell.strip()
    if text in ("-", "\u2013", "\u2014"):
        return 0.0
    negative = text.startswith("(") and text.endswith(")")
    digits = re.sub(r"[^\d.]", "", text)
    if not digits or digits.count(".") > 1:
        return None
    return -float(digits) if negative or text.startswith("-") else float(digits)


def stated(metric: Metric, value: float, unit: str) -> str:
    """``value`` (in the tables' ``unit``) as ``metric`` asks it: "24.26", "30.8%",
    "$4.60 billion"."""
    if not metric.money:
        return rounded(value, metric.decimals, metric.percent)
    scale = metric.scale or unit
    amount = value * _SCALES.get(unit, 1.0) / _SCALES.get(scale, 1.0)
    text = rounded(abs(amount), metric.decimals)
    return f"{'-' if amount < 0 else ''}${text}" + (f" {scale}" if scale else "")


def working(calc: Calculation, confirmed: bool = True) -> str:
    """How it was worked out, for people: the formula with the cells as printed; ""
    for a line item looked up (nothing to work out)."""
    if len(calc.operands) < 2:
        return ""
    cells = [o.cell.strip("()") if o.term.outflow else o.cell for o in calc.operands]
    named = "; ".join(dict.fromkeys(f"{o.term.name}: {o.label}" for o in calc.operands))
    done = f"{show(calc.metric.formula, cells)} = {calc.result}"
    lead = "Worked out from the cited rows" if confirmed else "Worked out (not confirmed)"
    return f"{lead}: {done} ({named})."
