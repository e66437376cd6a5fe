"""Looking up what a question names by its code, label or acronym, where a document lists it.

"What does NARL stand for?" is answered by the long form an excerpt defines
("National Atmospheric Research Laboratory (NARL)"; ``acronym_answer``, from
``text.acronyms``), quoted as written; "What is the CA Bar no?" by the label
as printed with the number after it ("CA. Bar No. 239516"; ``field_answer``).

Listings in manuals and reports pair a code with a name on one printed line
("1. Little Rock AR01", "E-12 Water tank empty"). When a question asks what
(or which) something is for one code, ``lookup_answer`` finds the line of a
retrieved excerpt that starts or ends with that code and quotes the rest of
the line, its list number left off, with the line before when the name runs
over two lines ("1. Albuquerque and" / "Northern New Mexico NM01"). The
answer is a verbatim piece of the excerpt, so the verifier checks it as a
quote. It does not read tables whose cells the text layer runs together with
other columns' text (a line with more than a name and the code is not
quoted), answer yes/no or "which of the two" questions, or compare rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papertrail.text.acronyms import expansions
from papertrail.text.ask import CODE, as_ask
from papertrail.text.sentences import normalize
from papertrail.types import Ask, Hit

MAX_HITS = 25  # excerpts searched in rank order: the best ones and the rest of their pages
MAX_WORDS = 10  # a name beside a code is short; a longer rest of line is prose
_CODE = CODE  # a code as printed on a listing's line ("AR01", "E-12")
MAX_TERM_WORDS = 80  # what a listing says beside a quoted term: a definition, a template
# 239516, AB-1234, (313) 226-9125
_VALUE = r"\(\d{2,4}\)\s?\d[\d-]*\d|[A-Z0-9][A-Z0-9/-]*\d[A-Z0-9/-]*|\d[\d-]*"
MAX_LABEL_WORDS = 5  # "CA Bar no", "model number", "serial no": labels are short
HANGING = 2.0  # points: a line set further right than the term's line continues its entry
_LIST_MARK = re.compile(r"^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|[-*\u2022\u25aa\u25cf])\s+")


def lookup_answer(question: Ask | str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """(what a listing prints beside the code or quoted term the question names,
    1-based hit), or None."""
    ask = as_ask(question)
    code = ask.code
    if not code:
        return _entry(ask.quoted, hits) if ask.quoted else None
    for n, hit in enumerate(hits[:MAX_HITS], 1):
        lines = _lines(hit.chunk.text, hit.chunk.lines)
        if not _listing(lines, code):
            continue  # one line ending in a code is prose wrapped there, not a listing
        for i, line in enumerate(lines):
            value = _beside(line, code)
            if value is None:
                continue
            if value and not _LIST_MARK.match(line) and i and _LIST_MARK.match(lines[i - 1]):
                above = _LIST_MARK.sub("", lines[i - 1]).strip()
                if not _CODE.search(above):  # the name began on the line above
                    value = f"{above} {value}"
            if value and len(value.split()) <= MAX_WORDS and re.search(r"[^\W\d_]", value):
                return value, n
    return None


def field_answer(question: Ask | str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """(the label the question names with the number or identifier printed after it,
    1-based hit), or None: "What is the CA Bar no of the report?" -> "CA. Bar No. 239516".

    As on a form or a letterhead: the label's words in a row (punctuation aside),
    then one value with a digit. Not for questions naming a period, nor when a second
    figure follows (a table row: which column is asked?).
    """
    label = re.findall(r"[^\W_]+", as_ask(question).field)
    if not 2 <= len(label) <= MAX_LABEL_WORDS:
        return None
    glue = r"[\s.,:;#()-]*"
    field = re.compile(
        r"(?<![\w])" + glue.join(re.escape(w) for w in label) + r"\.?[\s.:#-]*"
        rf"(?P<value>{_VALUE})"
        r"(?![\w.,-]*\d)(?!\s*[(\$]?\d)",
        re.I,
    )
    for n, hit in enumerate(hits[:MAX_HITS], 1):
        text = " ".join(normalize(hit.chunk.text).split())
        if found := field.search(text):
            return text[found.start() : found.end()].strip(), n
    return None


def _entry(term: str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """The entry a listing gives for ``term``: the rest of the line that opens with it and
    the lines below set further right (a hanging indent), as in a glossary or a table of
    labels and templates."""
    for n, hit in enumerate(hits[:MAX_HITS], 1):
        chunk = hit.chunk
        if len(chunk.lines) != len(chunk.rects):
            continue
        lines = _lines(chunk.text, chunk.lines)
        for i, line in enumerate(lines):
            if not line.startswith(term + " "):
                continue
            parts, left = [line[len(term) :].strip()], chunk.rects[i].x0
            kin = _word_shape(term.split()[0])
            others = [
                k
                for k, other in enumerate(lines)
                if k != i
                and other.split()
                and abs(chunk.rects[k].x0 - left) <= HANGING
                and _word_shape(other.split()[0]) == kin
            ]
            if not others:
                continue  # one line opening with the term is prose, not an entry of a list
            for j in range(i + 1, len(lines)):
                if chunk.rects[j].x0 <= left + HANGING:
                    break
                parts.append(lines[j])
            value = " ".join(p for p in parts if p)
            if value and len(value.split()) <= MAX_TERM_WORDS and re.search(r"[^\W\d_]", value):
                return value, n
    return None


def _listing(lines: list[str], code: str) -> bool:
    """Whether another line starts or ends with a code of the same shape ("AR02" beside
    "AR01": letters and digits in the same places), as rows of a listing do."""
    shape = _shape(code)
    for line in lines:
        words = _LIST_MARK.sub("", line.strip()).split()
        ends = {w.strip(".,;:") for w in words[:1] + words[-1:]}
        if any(e != code and _shape(e) == shape and _CODE.fullmatch(e) for e in ends):
            return True
    return False


def _word_shape(word: str) -> str:
    """Runs of capitals, small letters and digits as A, a and 9: "Contact.Meet" and
    "Life.Marry" are both "Aa.Aa", as the labels of one listing are."""
    return re.sub(r"[a-z]+", "a", re.sub(r"[A-Z]+", "A", re.sub(r"\d+", "9", word)))


def _shape(code: str) -> str:
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", code))


def _lines(text: str, starts: Sequence[int]) -> list[str]:
    """The printed lines of an excerpt, single-spaced; its sentences when it has no
    line offsets."""
    if not starts:
        return [text]
    ends = [*starts[1:], len(text)]
    return [" ".join(text[a:b].split()) for a, b in zip(starts, ends, strict=True)]


def _beside(line: str, code: str) -> str | None:
    """The rest of ``line`` when it starts or ends with ``code`` (list number off), else
    None."""
    body = _LIST_MARK.sub("", line.strip()).strip()
    words = body.split()
    if not words:
        return None
    if words[-1].strip(".,;:") == code:
        rest = body[: body.rfind(words[-1])]
    elif words[0].strip(".,;:") == code:
        rest = body[len(words[0]) :]
    else:
        return None
    rest = rest.strip(" .,;:-\u2013\u2014|")
    return rest if rest and not _CODE.fullmatch(rest) else None


def acronym_answer(question: Ask | str, hits: Sequence[Hit]) -> tuple[str, int] | None:
    """(the long form of the acronym the question asks about, 1-based hit), or None: the
    first the best-ranked excerpts spell out ("National Atmospheric Research Laboratory")."""
    acronym = as_ask(question).acronym
    if not acronym:
        return None
    for n, hit in enumerate(hits[:MAX_HITS], 1):
        if found := expansions(hit.chunk.text, acronym):
            return found[0], n
    return None
