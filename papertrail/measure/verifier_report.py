"""Tables of ``eval-verifier``: what each check decided, and the leave-one-source-out figures.

``format_checks`` prints, for each check in registry order (then the
calibrated scores), the wrong citations it caught and the good ones it
dropped, over all files, per file and per source: a check that only catches
where it was written shows up as such. ``format_by_source`` prints, per file,
the figures of weights fitted without each source, judged on that source, and
names the worst source. Nothing here measures.
"""

from __future__ import annotations

from pathlib import Path

from papertrail.verify.checks import CHECKS


def _cell(pair: list[int] | tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def format_checks(result: dict) -> str:
    """One row per check: caught/dropped overall, per file, per source."""
    table = result["checks"]
    files = list(result.get("files", {}))
    sources = sorted({s for row in table.values() for s in row["by_source"]})
    kinds = {c.name: "hard" if c.hard else "soft" for c in CHECKS}
    heads = ["fired", "all", *(Path(f).name for f in files), *sources]
    width = max([9, *(len(h) + 1 for h in heads)])
    out = [
        "checks: wrong citations caught / good citations dropped (the pairs each decided; "
        "'fired': wrong / good pairs on which the check fired at all)"
    ]
    out.append(f"{'check':<15}{'kind':<6}" + "".join(f"{h:>{width}}" for h in heads))
    for name, row in table.items():
        cells = [_cell(row.get("fired", (0, 0))), _cell((row["caught"], row["dropped"]))]
        for f in files:
            r = result["files"][f]["checks"].get(name, {"caught": 0, "dropped": 0})
            cells.append(_cell((r["caught"], r["dropped"])))
        cells += [_cell(row["by_source"].get(s, (0, 0))) for s in sources]
        kind = kinds.get(name, "score")
        out.append(f"{name:<15}{kind:<6}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(out)


def format_by_source(per_file: dict[str, dict]) -> str:
    """Per file, each left-out source's catch and false drop, the kinds, and the worst."""
    out = ["by source (weights fitted without the source, judged on it):"]
    worst: tuple[float, str] = (-1.0, "")
    for name, r in per_file.items():
        kinds = ", ".join(
            f"{k} {'dropped' if 'false_drop' in v else 'caught'} "
            f"{v.get('false_drop', v.get('catch', 0.0)):.1%} (n={v['n']})"
            for k, v in r["per_kind"].items()
        )
        out.append(f"  {Path(name).name}: catch {r['catch']:.1%}, false drop "
                   f"{r['false_drop']:.1%}; {kinds}")  # fmt: skip
        if "levels" in r:
            out.append(f"    wrong read as 'verified': {r['levels']['wrong_verified']:.1%}")
        for src, v in r["per_source"].items():
            out.append(
                f"    left out {src}: catch {v['catch']:.1%}, false drop {v['false_drop']:.1%}"
            )
            errors = (1 - v["catch"]) + v["false_drop"]
            if errors > worst[0]:
                worst = (errors, f"{src} in {Path(name).name}")
    if worst[1]:
        out.append(f"  worst source: {worst[1]} (missed share + dropped share {worst[0]:.1%})")
    return "\n".join(out)
