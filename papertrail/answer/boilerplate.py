"""Boilerplate: sentences a document carries for form, which never answer a question.

Reports repeat set wording that mentions the very figures people ask about
("In our opinion, the consolidated financial statements present fairly, in all
material respects, the financial position ... and the results of its
operations"), or that points elsewhere ("See accompanying notes", "Table of
Contents", "continued on next page"). ``is_boilerplate`` recognises these
standard forms of audit opinions, cross-references, safe-harbour warnings and
copyright lines by their fixed wording, which is the same in any company's
filing or any publisher's book. It does not recognise a document's own
repeated text (running headers are page furniture, see ``render.furniture``).
"""

from __future__ import annotations

import re

from papertrail.text.periods import YEAR

_FORMS = re.compile(
    r"\bpresent(?:s)? fairly,? in all material respects\b"
    r"|\bin (?:our|the auditor's) opinion\b"
    r"|\bin conformity with (?:u\.?s\.? )?generally accepted accounting principles\b"
    r"|\b(?:we|the company) conducted (?:our|its) audits?\b"
    r"|\breasonable assurance about whether\b"
    r"|\b(?:accompanying|the) notes (?:to (?:the )?(?:consolidated )?financial statements )?"
    r"are an integral part\b"
    r"|\bsee (?:the )?accompanying notes\b"
    r"|\btable of contents\b"
    r"|\bcontinued (?:on|from) (?:the )?(?:next|previous) page\b"
    r"|\bforward-looking statements?\b.*\b(?:risks?|uncertaint(?:y|ies)|differ materially)\b"
    r"|\ball rights reserved\b|\u00a9|\(c\) " + YEAR,
    re.I,
)


def is_boilerplate(sentence: str) -> bool:
    """Whether ``sentence`` is set wording (see the module docstring)."""
    return bool(_FORMS.search(sentence))
