"""One channel holding every document of several question sets, and all their questions.

    export PAPERTRAIL_EVAL_DIR=eval-cache C=../shared/corpus
    python scripts/mixed_channel.py eval-cache/mixed $C/attention/qa.jsonl \\
        $C/financebench/qa-channel.jsonl $C/mmlongbench/qa-channel.jsonl \\
        $C/docugami-earnings-calls/qa-channel.jsonl evals/dev/tuning.jsonl
    papertrail eval eval-cache/mixed/qa.jsonl --ablation

A team drops filings, call transcripts, papers and manuals into one channel. This
asks each set's questions of one channel holding every document the sets name (a
question's own file, or every PDF of its folder): ``OUT/pdfs`` links to them and
``OUT/qa.jsonl`` asks every question of that folder, its own file its gold document.
``papertrail eval`` prints the whole and, per source, the figures to set beside each
set's own channel. Nothing is copied: the links point at the corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from papertrail.measure.channels import pdfs_of
from papertrail.measure.evaluate import load_items


def build(out: Path, data: list[Path]) -> tuple[int, int]:
    """Link the documents of ``data`` into ``out/pdfs`` and write ``out/qa.jsonl``;
    returns (documents, questions)."""
    pdfs: dict[str, Path] = {}
    records, ids = [], set()
    for path in data:
        raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for item, rec in zip(load_items(path), raw, strict=True):
            for pdf in pdfs_of(item.doc):
                seen = pdfs.setdefault(pdf.name, pdf.resolve())
                if seen != pdf.resolve():
                    sys.exit(f"two documents are called {pdf.name}: {seen} and {pdf}")
            if item.id in ids:
                sys.exit(f"{path}: question id {item.id} is in an earlier file too")
            ids.add(item.id)
            meta = {**rec.get("meta", {}), "gold_docs": list(item.gold_docs)}
            records.append({**rec, "doc": "pdfs/", "meta": meta})
    folder = out / "pdfs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, pdf in sorted(pdfs.items()):
        link = folder / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(pdf)
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (out / "qa.jsonl").write_text(lines, encoding="utf-8")
    return len(pdfs), len(records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="folder to write (the channel's links and qa.jsonl)")
    parser.add_argument("data", nargs="+", type=Path, help="question sets (qa.jsonl format)")
    args = parser.parse_args()
    docs, questions = build(args.out, args.data)
    print(f"{args.out / 'qa.jsonl'}: {questions} questions over one channel of {docs} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
