"""The values that flow through the pipeline: Ask, Block -> Chunk -> Hit -> Citation -> Answer.

All frozen dataclasses. Pages are 1-based physical page numbers (page ``n`` is
``doc[n - 1]`` in PyMuPDF). Rectangles are PDF points in the coordinate space of
the page *as displayed* (after ``/Rotate``), origin top-left, so a renderer can
scale them by its zoom factor and draw them without further transformation.
Nothing here knows about Chroma, Slack or Discord.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ask:
    """A question read once (``text.ask.read``): what every answerer and check looks at."""

    text: str  # as asked (a follow-up already made standalone), whitespace collapsed
    body: str  # without the "According to the report," preamble
    preamble: str = ""  # the stripped "according to / in / based on ..." lead-in
    kind: str = "other"  # figure, name, definition, yes-no, list, comparison, explain, other
    parts: tuple[Ask, ...] = ()  # the questions a compound one asks, each read; () for one
    subject: str = ""  # what it is about: ``body`` without its question words
    years: tuple[int, ...] = ()  # years it names ("FY2019", "2019", "FY19")
    quarters: tuple[int, ...] = ()  # quarters it names ("Q3", "third quarter")
    unit: str = ""  # "million", "billion", "thousand", "percent", "usd" when it asks one
    quoted: str = ""  # a term it quotes: 'Contact.Meet'
    term: str = ""  # what it asks to be defined ("What is meant by checksum?")
    acronym: str = ""  # what it asks to be spelled out ("What does NARL stand for?")
    code: str = ""  # the one code a what/which question names ("EPS Code AR01")
    field: str = ""  # the label a "What is the <label>?" question asks the value of
    one: bool = True  # asks for one thing, not several (a list, two questions in one)
    amount: bool = False  # asks for an amount outright ("how much", "total", "in millions")
    explains: bool = False  # asks why or how, or to describe: no one figure answers it
    figures: bool = False  # asks for a quantity, so a sentence with a figure answers better
    tail: bool = False  # where/when/who/which/what: its answer may follow its words restated
    name: bool = False  # which/who asking for one name, not a measure ("which method")
    plain: str = ""  # ``body`` without a domain's answer-format instructions
    asking: str = ""  # its sentences that ask ("... ?"), without "Return me an integer."
    defined: str = ""  # a metric it defines itself: "X is defined as: A / B" -> "A / B"
    counted: str = ""  # what "how many N" counts: "levels" ("" for "how many times")
    change: bool = False  # asks by how much something changed
    which_year: bool = False  # asks in which year
    who: bool = False  # opens with which/who: asks for a name as often as not
    caption: str = ""  # the table or figure it asks what shows ("What does Fig. 2 show?")

    @property
    def questions(self) -> tuple[Ask, ...]:
        """The questions it asks: its ``parts``, or itself alone."""
        return self.parts or (self,)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned box in points on the displayed page."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def union(self, other: Rect) -> Rect:
        return Rect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )


@dataclass(frozen=True)
class Line:
    """One text line as extracted: original text and its box."""

    text: str
    rect: Rect


@dataclass(frozen=True)
class Block:
    """A block of text on one page, in reading order.

    ``text`` keeps the original characters (control characters stripped) for
    display; ``norm`` is the NFKC form used for matching and search.
    """

    page: int
    text: str
    norm: str
    rect: Rect
    lines: tuple[Line, ...]
    ocr: bool = False  # True when the text came from OCR, not the text layer
    heading: bool = False  # a short line set larger or bold than the body: a section title
    picture: bool = False  # read by OCR inside a picture on a page that has a text layer


@dataclass(frozen=True)
class Chunk:
    """A retrievable passage: never crosses a page.

    ``rects`` are the boxes of exactly the lines whose text is in ``text``,
    overlap included, and ``lines`` where each of those lines starts in ``text``
    (empty in indexes built before it was stored). ``section`` is the nearest
    heading above the chunk, if any.
    """

    doc_id: str  # sha256 hex of the PDF bytes
    doc_name: str
    index: int  # position of the chunk within its document
    page: int
    text: str
    rects: tuple[Rect, ...]
    section: str = ""
    lines: tuple[int, ...] = ()  # offset in ``text`` where each line of ``rects`` starts

    @property
    def id(self) -> str:
        return f"{self.doc_id}:{self.index}"


@dataclass(frozen=True)
class Identity:
    """What a document says it is, read from its opening pages when it is indexed.

    The period is kept twice: as the issuer labels it (fiscal: "Q1 2023" on an
    earnings call of a company whose year ends in January) and as the calendar
    period its end date falls in ("quarterly period ended June 30, 2023": Q2 2023).
    """

    title: str = ""  # e.g. "Q1 2023 Snowflake Inc. Earnings Call"
    issuer: str = ""  # the company or author that issued it, when it says
    kind: str = ""  # e.g. "quarterly report (10-Q)", "earnings call"; "" when unknown
    domain: str = ""  # the domain whose rules apply ("finance"), "" for none
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    calendar_year: int | None = None
    calendar_quarter: int | None = None
    end: str = ""  # ISO date the period ended, else the document's own date
    period: str = ""  # the period as shown to people, e.g. "Q1 fiscal 2023 (as of 2022-05-26)"
    aliases: tuple[str, ...] = ()  # other names it gives itself: trading symbols, short names


@dataclass(frozen=True)
class Document:
    """A PDF indexed for one channel."""

    channel: str
    doc_id: str  # sha256 hex of the PDF bytes
    name: str  # file name as uploaded, sanitised
    pages: int
    chunks: int
    status: str = "ready"  # "indexing" until every chunk is stored, then "ready"
    no_text_pages: tuple[int, ...] = ()  # pages with no usable text (after OCR, if any)
    ocr_pages: tuple[int, ...] = ()  # pages whose text came from OCR
    created: float = 0.0  # unix seconds
    identity: Identity | None = None  # None in indexes built before identities were kept


@dataclass(frozen=True)
class Hit:
    """A chunk retrieved for a question, with the evidence for its rank."""

    chunk: Chunk
    score: float  # fused score, higher is better
    dense_rank: int | None = None  # 1-based rank in the vector search, None if absent
    lexical_rank: int | None = None  # 1-based rank in BM25, None if absent
    dense_score: float | None = None  # cosine similarity to the question


@dataclass(frozen=True)
class Term:
    """One figure a worked-out answer needs: a table row in one period."""

    name: str  # what it is, for people: "revenue"
    # regular expressions a row label must match whole, lower-cased with punctuation
    # dropped ("property and equipment net"), most specific first
    labels: tuple[str, ...]
    year: int  # the period's column: fiscal year as the table heads it
    section: str = ""  # the kind of section its table is in (a ``Domain``'s kinds), "" any
    outflow: bool = False  # money paid out, printed in brackets: its size is what counts


@dataclass(frozen=True)
class Metric:
    """A figure worked out from table rows, as a domain reads a question to ask for it."""

    name: str  # for people: "fixed asset turnover ratio for FY2019"
    formula: str  # arithmetic over ``terms``: "{0} / (({1} + {2}) / 2)" (``text.formula``)
    terms: tuple[Term, ...]  # what each placeholder stands for
    decimals: int = 2  # digits after the point in the stated result
    percent: bool = False  # stated as a percentage (the formula gives a fraction)
    money: bool = False  # an amount in the table's currency and unit
    scale: str = ""  # "million" or "billion" when the question asks for money in that unit


@dataclass(frozen=True)
class Operand:
    """A term as found: the row, the cell and the excerpt that states it."""

    term: Term
    hit: int  # 1-based index of the excerpt in the answer's hits
    label: str  # the row label as printed
    cell: str  # the cell as printed: "6,489", "(1,600)"
    value: float  # the cell's value in the table's unit
    claim: str  # the sentence the excerpt must state: "Net revenues in 2019 were $6,489 million"


@dataclass(frozen=True)
class Calculation:
    """A worked-out answer: the verifier re-reads every operand and redoes the arithmetic."""

    metric: Metric
    operands: tuple[Operand, ...]  # one per placeholder of ``metric.formula``
    result: str  # the result as stated in ``Draft.text``: "24.26", "30.8%", "$4,625 million"
    unit: str = ""  # the tables' unit: "million" when they say "(in millions)"


@dataclass(frozen=True)
class Draft:
    """What a generator wrote: text with ``[n]`` markers that index ``hits`` from 1."""

    text: str
    mode: str  # "extractive" or the model name
    notes: tuple[str, ...] = ()  # user-facing remarks, e.g. a fallback to extractive
    calculation: Calculation | None = None  # when ``text`` is one worked-out figure
    by: str = ""  # the answerer that wrote it ("table figure", "quote"), "" for a model


@dataclass(frozen=True)
class Evidence:
    """The part of a cited chunk that supports a claim: sentence(s) or a table row.

    ``rects`` are the boxes of exactly the lines (or line parts) that hold
    ``text``, in the same frame as ``Chunk.rects``; for a table figure they
    include the column header that names the value's period.
    """

    text: str
    rects: tuple[Rect, ...]


@dataclass(frozen=True)
class Citation:
    """One ``[n]`` marker judged against the sentence it is attached to."""

    n: int  # number shown in the final answer (surviving citations renumbered 1..k)
    marker: int  # number the generator wrote (index into the hits, 1-based)
    sentence: str  # the claim the marker was attached to, markers removed
    chunk: Chunk | None  # None when the marker pointed at no excerpt
    supported: bool
    reason: str  # why it was kept or dropped, for people
    scores: tuple[tuple[str, float], ...] = ()  # (name, value) signals behind the verdict
    evidence: Evidence | None = None  # the supporting span of ``chunk``, when one was found
    level: str = ""  # how sure the checker is: "verified", "partly supported", "not stated"


@dataclass(frozen=True)
class Unsupported:
    """A claim of the answer that no retrieved excerpt states: shown marked, never cited."""

    sentence: str  # the claim, markers removed
    at: int  # offset in the answer's text just after the claim (where a citation would be)


@dataclass(frozen=True)
class Snippet:
    """A rendered PNG of the region a verified citation points to."""

    n: int  # citation number it illustrates
    chunk_id: str
    doc_name: str
    page: int
    png: bytes
    width: int
    height: int


@dataclass(frozen=True)
class Answer:
    """The reply to a question, after verification."""

    question: str
    text: str  # answer text; only verified markers remain, renumbered
    citations: tuple[Citation, ...]  # verified, one per displayed number
    dropped: tuple[Citation, ...]  # markers removed and why
    grounded: bool  # False when no claim kept a citation (a refusal is grounded)
    refusal: bool  # the answer says the documents do not contain the answer
    mode: str  # "extractive" or the model name
    hits: tuple[Hit, ...] = ()
    snippets: tuple[Snippet, ...] = ()
    notes: tuple[str, ...] = ()
    unsupported: tuple[Unsupported, ...] = ()  # claims no excerpt states
    calculation: Calculation | None = None  # the worked-out figure ``text`` states, if any
    by: str = ""  # the offline rule that answered (``Draft.by``), "" for a model or none
