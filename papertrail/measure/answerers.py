"""Which offline rule answered each question, how often each fired and how often it was right.

``tally`` counts, over the answerable questions of a run, per rule
(``Answer.by``: "quote", "table figure", "finance metric", ...): how many
questions it answered, how many of those were right (``metrics.is_wrong``
false), and how many were wrong yet kept a verified citation (the worst kind).
"closest passage" counts the answers shown as closest passages (the quote did
not state what was asked), "refused" the refusals. ``print_tally`` prints it
per data file and per source (the ``source`` of each question), so a rule that
helps only on the documents it was written for shows as such. It leaves out
retrieval, which the main table scores.
"""

from __future__ import annotations

import sys
from collections import defaultdict

CLOSEST = "closest passage"
REFUSED = "refused"


def rule_of(record: dict) -> str:
    """The rule a record's answer came from, or what happened instead."""
    if record.get("by"):
        return record["by"]
    if any(n.startswith("Closest passage (may not answer)") for n in record.get("notes", ())):
        return CLOSEST
    return REFUSED if record.get("refusal") else "model"


def tally(records: list[dict]) -> dict[str, dict[str, int]]:
    """{rule: {"fired", "right", "verified_wrong"}} over the answerable questions answered."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: dict(fired=0, right=0, verified_wrong=0))
    for r in records:
        if "answer" not in r or "error" in r or not r.get("answerable", True):
            continue
        row = out[rule_of(r)]
        row["fired"] += 1
        answered = not r["refusal"]
        row["right"] += int(answered and not r.get("wrong", False))
        row["verified_wrong"] += int(answered and r["grounded"] and r.get("wrong", False))
    return dict(out)


def print_tally(name: str, records: list[dict]) -> None:
    """The per-rule table of one data file, then one per source when it has several."""
    groups = {name: records}
    sources = sorted({r.get("source", "") for r in records} - {""})
    if len(sources) > 1:
        groups |= {f"{name} [{s}]": [r for r in records if r.get("source") == s] for s in sources}
    for label, rs in groups.items():
        table = tally(rs)
        if not table:
            continue
        print(f"\nanswerers, {label}: answerable questions by the rule that answered")
        print(f"{'rule':<24}{'fired':>8}{'right':>8}{'verified wrong':>16}")
        for rule, row in sorted(table.items(), key=lambda kv: -kv[1]["fired"]):
            cells = f"{row['fired']:>8}{row['right']:>8}{row['verified_wrong']:>16}"
            print(f"{rule:<24}{cells}")


def warn_unknown(without: list[str] | tuple[str, ...]) -> None:
    """Say on stderr which ``--without`` names no answerer or retrieval rule has (they may
    name a check)."""
    from papertrail.answer.answerers import names
    from papertrail.domains import KNOWN
    from papertrail.retrieve.rules import RULES

    known = [*names(KNOWN), *RULES]
    for n in without:
        if n not in known:
            print(
                f"--without {n!r}: no answerer or retrieval rule has that name "
                f"({', '.join(known)}); unless a check has it, nothing is switched off",
                file=sys.stderr,
            )
