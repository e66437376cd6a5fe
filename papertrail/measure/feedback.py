"""``papertrail feedback export``: people's 👍/👎 on answers as regression cases.

The bots keep every answer they give and every vote on it (one per person
per answer) in ``chat.sqlite`` in the data directory: the ``answers`` table
(``id``, ``channel``, ``record`` as JSON, ``expires``) and the ``votes`` table
(``answer``, ``user``, ``verdict`` "up"/"down", ``at``), written by
``adapters/chat/feedback.py``. This reads them for one channel and writes
JSONL on stdout in the formats the measuring commands read:

* ``--format eval`` (default): one QA case per voted answer for
  ``papertrail eval``: ``doc`` is the stored copy of the PDF the answer cited
  (or was asked about), ``question``; a 👍'd answer keeps its text and cited
  pages as the expected answer, a 👎'd one has none (``answer`` "" and no
  ``evidence_pages``) until someone writes the right one in; ``meta`` holds the
  votes, the bot's answer and its citations with their verdicts.
* ``--format verifier``: one pair per verified citation of a voted answer for
  ``papertrail eval-verifier``: ``claim`` (the sentence), ``chunk_text`` (the
  cited passage), ``supported`` (True under a 👍, False under a 👎: the checker
  let it through and a person disagreed), ``kind`` "positive" or "hard".
  A 👎 may be about the answer rather than one citation: review before
  adding such pairs to a labelled set.

An answer with votes both ways counts as 👎 (someone found it wrong). Answers
whose document was forgotten are gone with their votes. Several workers keep
these in Redis instead: export there with ``python -m bot feedback export``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import TextIO

from papertrail.errors import PaperTrailError
from papertrail.settings import Settings
from papertrail.store.pdf_files import PdfFiles

FORMATS = ("eval", "verifier")


def read_local(data_dir: Path, channel: str) -> list[dict]:
    """Every vote on an answer given in ``channel``: the answer's record plus ``user``
    and ``verdict``, oldest vote first; [] when nothing was ever voted."""
    path = Path(data_dir) / "chat.sqlite"
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT a.record, v.user, v.verdict FROM answers a JOIN votes v ON v.answer = a.id "
            "WHERE a.channel = ? ORDER BY v.at",
            (channel,),
        ).fetchall()
    except sqlite3.OperationalError:  # no answers table yet: no feedback was ever given
        return []
    finally:
        db.close()
    return [dict(json.loads(r), user=u, verdict=v) for r, u, v in rows]


def by_answer(votes: list[dict]) -> list[dict]:
    """One entry per answer: its record and the tally of its votes."""
    answers: dict[str, dict] = {}
    for vote in votes:
        entry = answers.setdefault(vote["id"], {**vote, "up": 0, "down": 0})
        entry[vote["verdict"]] += 1
    for entry in answers.values():
        entry.pop("user", None)
        entry["verdict"] = "down" if entry["down"] else "up"
    return list(answers.values())


def eval_cases(votes: list[dict], files: PdfFiles) -> list[dict]:
    """QA cases (``papertrail eval``'s format) from the voted answers."""
    cases = []
    for a in by_answer(votes):
        kept = [c for c in a["citations"] if c["verdict"] == "verified"]
        doc_id = (kept or a["citations"] or [{"doc_id": (a["doc_ids"] or [""])[0]}])[0]["doc_id"]
        if not doc_id:
            continue  # nothing to replay it on
        right = a["verdict"] == "up"
        cases.append(
            {
                "id": f"feedback-{a['id']}",
                "doc": str(files.path(a["channel"], doc_id)),
                "question": a["question"],
                "answer": a["answer"] if right else "",
                "evidence_pages": sorted({c["page"] for c in kept if c["doc_id"] == doc_id})
                if right
                else [],
                "answerable": True,
                "meta": {
                    "source": "feedback",
                    "channel": a["channel"],
                    "votes": {"up": a["up"], "down": a["down"]},
                    "bot_answer": a["answer"],
                    "mode": a.get("mode", ""),
                    "citations": [
                        {k: c[k] for k in ("n", "claim", "doc_name", "page", "verdict", "reason")}
                        for c in a["citations"]
                    ],
                },
            }
        )
    return cases


def verifier_pairs(votes: list[dict]) -> list[dict]:
    """Labelled (claim, passage) pairs (``papertrail eval-verifier``'s format)."""
    pairs = []
    for a in by_answer(votes):
        right = a["verdict"] == "up"
        for c in a["citations"]:
            if c["verdict"] != "verified":
                continue  # the checker already refused it: the vote says nothing of it
            pairs.append(
                {
                    "id": f"feedback-{a['id']}-{c['n']}",
                    "claim": c["claim"],
                    "chunk_text": c["chunk_text"],
                    "supported": right,
                    "kind": "positive" if right else "hard",
                    "source": "feedback",
                    "doc": c["doc_name"],
                }
            )
    return pairs


def write(votes: list[dict], fmt: str, files: PdfFiles, out: TextIO) -> int:
    """Write ``votes`` as JSONL in ``fmt``; how many lines."""
    if fmt not in FORMATS:
        raise PaperTrailError(f"--format is one of {', '.join(FORMATS)}.", code="usage")
    lines = eval_cases(votes, files) if fmt == "eval" else verifier_pairs(votes)
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(lines)


def run_export(settings: Settings, channel: str, fmt: str, out: TextIO | None = None) -> int:
    """``papertrail feedback export``: the channel's voted answers on ``out`` (stdout)."""
    data = Path(settings.data_dir)
    n = write(read_local(data, channel), fmt, PdfFiles(data / "files"), out or sys.stdout)
    print(f"{n} {'case' if fmt == 'eval' else 'pair'}{'s' * (n != 1)} from {channel}",
          file=sys.stderr)  # fmt: skip
    return 0
