"""Replays recorded replies of real LLMs through the real pipeline and prints what it shows.

A replay server (tests/fake_openai.py, loopback, the OpenAI wire protocol)
stands behind ``GROQ_BASE_URL`` and answers each question with the reply a
model recorded for it (``model``, ``question``, ``reply`` per JSONL line);
the real pipeline (bundled embedding model, Chroma, retrieval, the prompt,
the Groq client, verification) indexes the PDF and answers each recorded
question. Per reply it prints the raw reply, the text the bot would show,
each citation with its page and verdict, the sentences no excerpt states,
and any copied reference bracket; then a summary per model. Each
``--expect-uncited TEXT`` is a check: every shown sentence holding TEXT
must end with no citation (exit 1 otherwise). With ``--serve PORT`` it only
runs the replay server, for ``papertrail eval --mode llm`` with
``GROQ_BASE_URL=http://127.0.0.1:PORT`` and ``GROQ_MODEL`` naming a recorded
model. It reads files outside the repository, so it is a script, not a test.

    PAPERTRAIL_EVAL_DIR=/tmp/eval .venv/bin/python scripts/replay_llm.py \\
        ../shared/corpus/llm-replies/attention.jsonl \\
        --pdf ../shared/corpus/attention/attention-is-all-you-need.pdf
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papertrail.answer.budget import TokenBudget  # noqa: E402
from papertrail.answer.extractive import ExtractiveGenerator  # noqa: E402
from papertrail.answer.llm import GroqGenerator  # noqa: E402
from papertrail.measure.channels import channel_of  # noqa: E402
from papertrail.measure.evaluate import build  # noqa: E402
from papertrail.offline import offline_env  # noqa: E402
from papertrail.settings import Settings  # noqa: E402
from papertrail.text.sentences import sentence_spans  # noqa: E402
from papertrail.verify.claims import document_brackets, strip_copied  # noqa: E402
from tests.fake_openai import FakeOpenAI, Recorded, replayer  # noqa: E402


def load(path: Path) -> list[Recorded]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out.append(
                Recorded(r["model"], r["question"], r["reply"], r.get("generation_seconds", 0))
            )
    return out


def copied_brackets(reply: str, hits) -> list[str]:
    """The brackets of ``reply`` that are a document's own references, not markers."""
    _, found = strip_copied(reply, len(hits), document_brackets([h.chunk.text for h in hits]))
    return ["[" + ", ".join(map(str, c.numbers)) + "]" for c in found]


def shown_sentences(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in sentence_spans(text)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("replies", type=Path, help="JSONL of recorded replies (model, question, reply)")
    p.add_argument("--pdf", type=Path, help="the PDF the questions are about")
    p.add_argument("--speed", type=float, default=0.0, help="x recorded seconds per reply")
    p.add_argument("--expect-uncited", action="append", default=[], metavar="TEXT")
    p.add_argument("--json", type=Path, dest="json_out", help="also write every result here")
    p.add_argument("--serve", type=int, metavar="PORT", help="only serve the replies on PORT")
    args = p.parse_args()
    offline_env()

    records = load(args.replies)
    if args.serve:
        with FakeOpenAI(respond=replayer(records, speed=args.speed), port=args.serve) as server:
            print(f"replaying {len(records)} replies at GROQ_BASE_URL={server.url}", flush=True)
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                return 0
    if args.pdf is None:
        p.error("--pdf is needed (unless --serve)")
    cache = Path(os.environ.get("PAPERTRAIL_EVAL_DIR", "eval-cache")).resolve()
    failures: list[str] = []
    results = []
    summary: dict[str, Counter] = defaultdict(Counter)
    with FakeOpenAI(respond=replayer(records, speed=args.speed)) as server:
        settings = Settings.from_env(
            {},
            groq_base_url=server.url,  # a local server: no key
            llm_timeout=600.0,
            llm_retries=0,
        )
        pt = build(settings, "llm", cache)
        channel = channel_of(args.pdf.resolve())
        pt.ingest(channel, args.pdf.name, args.pdf.read_bytes())
        fallback = ExtractiveGenerator(pt.embedder)
        for model in dict.fromkeys(r.model for r in records):
            pt.generator = GroqGenerator(
                settings.replace(groq_model=model), fallback=fallback, budget=TokenBudget(None, 0)
            )
            for rec in (r for r in records if r.model == model):
                answer = pt.ask(channel, rec.question, render=False)
                stats = summary[model]
                stats["replies"] += 1
                bad = copied_brackets(rec.reply, answer.hits)
                # a copied bracket survives when the shown text still holds it, and not as
                # one of the renumbered citations the checker verified
                kept_bad = [
                    b
                    for b in bad
                    if b in answer.text
                    and any(int(n) > len(answer.citations) for n in re.findall(r"\d+", b))
                ]
                checker = sum(c.reason.startswith("cited by the checker") for c in answer.citations)
                moved = sum(c.reason.startswith("moved from") for c in answer.citations)
                cited = [s for s in shown_sentences(answer.text) if re.search(r"\[\d+\]", s)]
                stats["refusals"] += answer.refusal
                stats["grounded answers"] += answer.grounded and not answer.refusal
                stats["ungrounded answers"] += not answer.grounded
                stats["fell back offline"] += answer.mode == "extractive"
                stats["sentences cited"] += len(cited)
                stats["citations by the checker"] += checker
                stats["citations moved"] += moved
                stats["sentences no excerpt states"] += len(answer.unsupported)
                stats["copied brackets in replies"] += len(bad)
                stats["copied brackets kept as citations"] += len(kept_bad)
                print(f"\n== {model} | {rec.question}")
                print(f"   reply:  {rec.reply!r}")
                print(f"   shown:  {answer.text!r}")
                print(
                    f"   mode {answer.mode}; refusal {answer.refusal}; grounded {answer.grounded}"
                )
                for c in answer.citations:
                    page = c.chunk.page if c.chunk else "-"
                    print(f"   [{c.n}] page {page} (excerpt {c.marker}): {c.reason}")
                for c in answer.dropped:
                    print(f"   dropped [{c.marker}]: {c.reason}")
                for u in answer.unsupported:
                    print(f"   no excerpt states: {u.sentence!r}")
                if bad:
                    print(f"   copied reference brackets: {bad}")
                for want in args.expect_uncited:
                    for s in shown_sentences(answer.text):
                        if want in s:
                            ok = not re.search(r"\[\d+\]", s)
                            print(f"   expect uncited {want!r}: {'PASS' if ok else 'FAIL'}")
                            if not ok:
                                failures.append(f"{model}: {s}")
                results.append(
                    {
                        "model": model,
                        "question": rec.question,
                        "reply": rec.reply,
                        "shown": answer.text,
                        "mode": answer.mode,
                        "refusal": answer.refusal,
                        "grounded": answer.grounded,
                        "citations": [
                            {"n": c.n, "page": c.chunk.page if c.chunk else None, "why": c.reason}
                            for c in answer.citations
                        ],
                        "unsupported": [u.sentence for u in answer.unsupported],
                        "copied_brackets": bad,
                    }
                )
    print("\nsummary")
    keys = list(dict.fromkeys(k for c in summary.values() for k in c))
    print(f"{'':34}" + "".join(f"{m[:24]:>26}" for m in summary))
    for k in keys:
        print(f"{k:34}" + "".join(f"{summary[m][k]:>26}" for m in summary))
    for f in failures:
        print(f"FAIL: cited, though expected uncited: {f}")
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
