"""Every answer `split_when` gives on a large message set, to prove a change kept them all.

Run: .venv/bin/python bench/split_answers.py --out before.jsonl   (on the old code)
     .venv/bin/python bench/split_answers.py --out after.jsonl --against before.jsonl
(add `--data /path/to/shared/data/timeparse` from a worktree; `--work-budget N` shows
how many answers another `split.WORK_BUDGET` would change).

Messages: every phrase of the time corpora (`tests/data/timeparse`, the shared corpora
directory) alone and in the wrappings people write ("remind me <p> to call mum", "<p>
water the plants", ...), the understanding cases' messages, and the hostile inputs of
`bench/timeparse.py`. Each answer is written as one JSON line (the message, its `now`
and zone, the answer's instant or schedule and the rest). With `--against` it prints the
messages whose answer differs. The last line is JSON: messages compared, differences,
and the worst/p99 CPU time per call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timeparse import MESSAGE_NOW, Message, hostile_messages, load, real_messages  # noqa: E402
from tools.timeparse import split, split_when  # noqa: E402


def messages(data: Path) -> list[Message]:
    """Every message of the comparison, each distinct one once, in a fixed order."""
    kinds = real_messages(data)
    return kinds["english"] + kinds["foreign"] + hostile_messages()


def answer(text: str, now: str, tz: str) -> tuple[dict[str, Any], float]:
    t0 = time.thread_time()
    got = split_when(text, now=datetime.fromisoformat(now), tz=tz)
    ms = (time.thread_time() - t0) * 1000
    row: dict[str, Any] = {"text": text, "now": now, "tz": tz, "when": None, "rest": None}
    if got is not None:
        s = got.schedule
        row["when"] = s.isoformat() if isinstance(s, datetime) else repr(s)
        row["rest"] = got.rest
    return row, ms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--data",
        type=Path,
        default=ROOT.parent / "shared" / "data" / "timeparse",
        help="the shared corpora directory (besides tests/data/timeparse); skipped if absent",
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--against", type=Path, default=None, help="answers to compare with")
    ap.add_argument(
        "--work-budget",
        type=int,
        default=None,
        help="try another split.WORK_BUDGET: how many answers a lower bound would change",
    )
    args = ap.parse_args()
    if args.work_budget is not None:
        split.WORK_BUDGET = args.work_budget
    # The foreign fallback loads its locales on first use: not per-message work.
    split_when("mañana a las 9 morgen um 9", now=datetime.fromisoformat(MESSAGE_NOW), tz="UTC")
    rows: list[dict[str, Any]] = []
    times: list[float] = []
    for text, now, tz in messages(args.data):
        row, ms = answer(text, now, tz)
        rows.append(row)
        times.append(ms)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    result: dict[str, Any] = {
        "messages": len(rows),
        "answered": sum(r["when"] is not None for r in rows),
    }
    if args.against is not None:
        old = {(r["text"], r["now"], r["tz"]): r for r in load(args.against)}
        diffs = [r for r in rows if old.get((r["text"], r["now"], r["tz"])) != r]
        for r in diffs[:50]:
            was = old.get((r["text"], r["now"], r["tz"]))
            before = was and (was["when"], was["rest"])
            print(f"{r['text']!r}: was {before} now {(r['when'], r['rest'])}")
        result["compared"] = sum((r["text"], r["now"], r["tz"]) in old for r in rows)
        result["differences"] = len(diffs)  # a message missing from the old run counts too
    s = sorted(times)
    result["cpu_ms"] = {
        "p50": round(statistics.median(s), 4),
        "p99": round(s[int(len(s) * 0.99)], 4),
        "max": round(s[-1], 4),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
