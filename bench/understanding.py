"""Does every request become the right job? `bench/data/understanding.jsonl` through the agent.

Each case is what a person types (one or more turns, e.g. a question and its answer) and
the outcome expected against a fixed reference time (Mon 2026-11-23 10:30:20
Europe/Berlin): the job's kind, its next run(s), keywords of its text, follow-ups; or a
question / no job; or a change to one of the person's existing jobs, a to-do, a zone.
A third of the cases (`"split": "held"`) is held out: never tuned on; both splits are
reported.

The offline model always runs (no network, well under a minute). With a model server
(`HOMAR_MODEL_BASE_URL` or `--model-url`, OpenAI-compatible, e.g. llama.cpp's) the same
cases run against it too. Per model: accuracy, wrong jobs (a job created or changed that
the person didn't ask for), model requests per message the person sent (requests that
reached the server; `…_requests_all_per_prompt` also counts the built-in offline reading's,
which answers turns code settles and the fallback), output tokens, latency p50/p95.
The last line is JSON.

    .venv/bin/python bench/understanding.py [--model-url URL] [--limit N] [--offset N]
        [--split dev|held] [--no-offline] [--show-failures] [--record FILE]
        [--instructions FILE] [--data FILE]
    .venv/bin/python bench/understanding.py --from-records FILE [FILE ...] [--data FILE]

A long model run can go in pieces (`--offset`/`--limit`), each appending one JSON line per
case to `--record`; `--from-records` prints the figures of the pieces together.
`--instructions` replaces the agent's static instructions with a file's text, to measure a
prompt change against the same cases. `--data FILE` runs another set of cases in the same
form: `bench/data/understanding_second.jsonl`, `…_third.jsonl` … `…_fortieth.jsonl` are
40 requests each (the thirteenth 30), written apart from the first set and from each other,
in other words (all held out; each was first run before any change it led to).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic_ai.settings import ModelSettings

from storage.conversations import ConversationStore
from storage.db import Database
from storage.jobs import JobStore
from storage.todos import TodoStore
from storage.user_settings import UserSettingsStore
from tools.agent import AgentKit, AgentReply, build_agent, resume_approval, run_agent
from tools.agent.offline import offline_model
from tools.agent.scheduling import HomarDeps
from tools.jobs.engine import Engine
from tools.jobs.model import Target, schedule_of
from tools.memory import Memory
from tools.schedule import Cron, Every, Once, Schedule

DATA = Path(__file__).resolve().parent / "data" / "understanding.jsonl"
TZ = "Europe/Berlin"
ZONE = ZoneInfo(TZ)
REF = datetime(2026, 11, 23, 10, 30, 20, tzinfo=ZONE)  # a Monday; seconds on purpose
MANAGE = {"list", "cancel", "pause", "resume", "update", "todos"}


def load_cases(
    split: str | None = None, limit: int | None = None, offset: int = 0, data: Path = DATA
) -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    if split:
        cases = [c for c in cases if c["split"] == split]
    cases = cases[offset:]
    return cases[:limit] if limit else cases


def local(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=ZONE)


@dataclass
class World:
    db: Database
    engine: Engine
    memory: Memory
    settings: UserSettingsStore
    todos: TodoStore


@dataclass
class Outcome:
    correct: bool
    wrong_job: bool
    asked: bool
    why: str = ""
    requests: int = 0  # sent to the model server (not the offline reading's own)
    output_tokens: int = 0
    latency_s: float = 0.0
    fell_back: bool = False
    turns: int = 1  # the person's messages in the case (a question and its answer: 2)
    all_requests: int = 0  # also the offline reading's (its fallback, turns code settles)


async def seed(w: World, user: int, channel: int) -> dict[str, int]:
    """The person's existing jobs (for list/cancel/pause/move) and a to-do."""
    target = Target(user, channel, 10, None)
    specs = {
        "pizza": ("order the pizza", Schedule(Once(local("2026-11-23T19:00")), TZ), "reminder"),
        "plants": ("water the plants", Schedule(Once(local("2026-11-24T18:00")), TZ), "reminder"),
        "standup": ("post standup", Schedule(Cron("0 9 * * 1-5"), TZ), "recurring"),
        "build": (
            "check the build",
            Schedule(Every(2700, REF + timedelta(seconds=2700)), TZ),
            "interval",
        ),
        "stretch": ("stretch", Schedule(Cron("0 8 * * *"), TZ), "recurring"),
    }
    ids = {}
    for name, (command, sched, kind) in specs.items():
        job = await w.engine.create(target=target, command=command, schedule=sched, kind=kind)
        ids[name] = job.id
    await w.engine.pause(ids["stretch"])
    await w.todos.add(channel, "renew the passport", user, REF)
    return ids


async def jobs_of(w: World, user: int) -> dict[int, Any]:
    return {
        j.id: j for j in await w.engine.list_jobs(owner_id=user, limit=500, include_closed=True)
    }


def _matches_time(job: Any, case: dict[str, Any]) -> str:
    sched = schedule_of(job)
    if "runs" in case:
        got = [t.astimezone(ZONE) for t in sched.next_runs(REF, len(case["runs"]))]
        options = [case["runs"], *case.get("alt_runs", [])]
        if not any(got == [local(t) for t in opt] for opt in options):
            return f"runs {[t.isoformat() for t in got]}"
        if "count" in case and len(sched.next_runs(REF, 200)) != case["count"]:
            return f"count {len(sched.next_runs(REF, 200))}"
        if case.get("ends") and sched.until is None and sched.max_runs is None:
            return "no end"
        return ""
    at = job.next_run_at.astimezone(ZONE) if job.next_run_at else None
    if "in_s" in case:
        want = [REF + timedelta(seconds=case["in_s"])]
    else:
        raw = case["at"] if isinstance(case["at"], list) else [case["at"]]
        want = [local(t) for t in [*raw, *case.get("alt_at", [])]]
    return "" if at in want else f"at {at.isoformat() if at else None}"


def judge(
    case: dict[str, Any],
    before: dict[int, Any],
    after: dict[int, Any],
    reply: AgentReply,
    ids: dict[str, int],
    todos: list[str],
    zone: str | None,
) -> tuple[bool, bool, str]:
    """(correct, wrong job, why)."""
    new = [j for i, j in after.items() if i not in before]
    changed = [
        i
        for i, j in before.items()
        if (after[i].status, after[i].next_run_at, after[i].command)
        != (j.status, j.next_run_at, j.command)
    ]
    act = case.get("act")
    if "kind" in case:
        if changed:
            return False, True, f"changed #{changed}"
        if len(new) != 1:
            return False, len(new) > 1, f"{len(new)} jobs: {reply.text[:120]!r}"
        job = new[0]
        kinds = case["kind"] if isinstance(case["kind"], list) else [case["kind"]]
        problems = []
        if job.kind not in kinds:
            problems.append(f"kind {job.kind}")
        if why := _matches_time(job, case):
            problems.append(why)
        cmd = job.command.lower()
        problems += [f"text {job.command!r}" for k in case.get("text", []) if k.lower() not in cmd][
            :1
        ]
        problems += [f"text {job.command!r}" for k in case.get("not_text", []) if k.lower() in cmd][
            :1
        ]
        if "fu" in case and (job.follow_up is not None) != case["fu"]:
            problems.append(f"follow-up {job.follow_up}")
        return not problems, bool(problems), "; ".join(problems)
    wrong = bool(new)
    if act in ("cancel", "pause", "resume", "update"):
        target = ids[case["job"]]
        others = [i for i in changed if i != target]
        wrong = wrong or bool(others)
        want = {"cancel": "cancelled", "pause": "paused", "resume": "active"}
        acts = [act, case.get("alt_act")]
        job = after[target]
        ok = False
        if "update" in acts:
            ok = job.next_run_at is not None and job.next_run_at.astimezone(ZONE) == local(
                case["at"]
            )
        ok = ok or any(job.status == want.get(a or "") for a in acts)
        if target in changed and not ok:
            wrong = True
        return (
            ok and not wrong,
            wrong,
            "" if ok else f"#{target} {job.status} {job.next_run_at}: {reply.text[:100]!r}",
        )
    wrong = wrong or bool(changed)
    if wrong:
        return False, True, f"job changed/created: {reply.text[:120]!r}"
    text = reply.text.lower()
    if act == "now":
        ok = reply.remind_now is not None and all(
            k.lower() in reply.remind_now.lower() for k in case["text"]
        )
    elif act == "ask":
        ok = reply.clarifier or text.rstrip(" *_").endswith("?")
    elif act == "none":
        ok = True
    elif act == "list":
        ok = "pizza" in text and "standup" in text
    elif act == "todos":
        ok = "passport" in text
    elif act == "todo":
        ok = any(all(k.lower() in t.lower() for k in case["text"]) for t in todos)
    elif act == "zone":
        ok = zone == case["zone"]
    elif act == "help":
        ok = "remind me" in text
    else:
        ok = False
    return ok, False, "" if ok else f"{act}: {reply.text[:120]!r}"


async def run_case(w: World, rt: AgentKit, case: dict[str, Any], user: int) -> Outcome:
    channel = 10_000 + user
    ids = (
        await seed(w, user, channel)
        if case.get("act") in MANAGE or "{" in "".join(case["say"])
        else {}
    )
    before = await jobs_of(w, user)
    reply = AgentReply(text="")
    requests = tokens = every = 0
    fell_back = False
    start = time.perf_counter()
    for turn in case["say"]:
        text = turn.format(**ids) if ids else turn
        deps = HomarDeps(
            user_id=user,
            channel_id=channel,
            engine=w.engine,
            tz=TZ,
            guild_id=10,
            now=REF,
            user_name="alice",
        )
        reply = await run_agent(rt, text, deps)
        requests += reply.model_requests
        every += reply.requests
        tokens += getattr(reply, "output_tokens", 0)
        fell_back = fell_back or reply.offline
        if reply.approval is not None:  # the person presses Approve
            deps = HomarDeps(
                user_id=user,
                channel_id=channel,
                engine=w.engine,
                tz=TZ,
                guild_id=10,
                now=REF,
                user_name="alice",
            )
            decided = await resume_approval(rt, reply.approval, True, deps)
            requests += decided.model_requests
            every += decided.requests
            tokens += getattr(decided, "output_tokens", 0)
            decided.text = reply.text + "\n" + decided.text
            reply = decided
    latency = time.perf_counter() - start
    after = await jobs_of(w, user)
    todos = [t.description for t in await w.todos.list(channel)]
    zone = await w.settings.tz(user)
    correct, wrong, why = judge(case, before, after, reply, ids, todos, zone)
    asked = reply.clarifier or reply.text.rstrip(" *_").endswith("?")
    turns = len(case["say"])
    return Outcome(correct, wrong, asked, why, requests, tokens, latency, fell_back, turns, every)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def summarize(
    name: str, cases: list[dict[str, Any]], outs: list[Outcome], show: bool
) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for split in ("all", "dev", "held"):
        both = zip(cases, outs, strict=True)
        pairs = [(c, o) for c, o in both if split == "all" or c["split"] == split]
        if not pairs:
            continue
        n = len(pairs)
        os_ = [o for _, o in pairs]
        suffix = "" if split == "all" else f"_{split}"
        figures[f"{name}_accuracy{suffix}"] = round(sum(o.correct for o in os_) / n, 3)
        figures[f"{name}_wrong_jobs{suffix}"] = sum(o.wrong_job for o in os_)
        handled = sum(o.correct or (o.asked and not o.wrong_job) for o in os_)
        if name == "offline":
            figures[f"{name}_handled{suffix}"] = round(handled / n, 3)
        else:
            # per message the person sent (a two-turn dialogue is two prompts)
            figures[f"{name}_requests_per_prompt{suffix}"] = round(
                sum(o.requests for o in os_) / sum(o.turns for o in os_), 2
            )
            # turns code settled (an answer to our question, a change named in words) and the
            # offline fallback send nothing to the server: counted here, not above
            figures[f"{name}_requests_all_per_prompt{suffix}"] = round(
                sum(o.all_requests or o.requests for o in os_) / sum(o.turns for o in os_), 2
            )
            figures[f"{name}_output_tokens_p50{suffix}"] = statistics.median(
                o.output_tokens for o in os_
            )
            figures[f"{name}_latency_p50_s{suffix}"] = round(
                _pct([o.latency_s for o in os_], 0.5), 2
            )
            figures[f"{name}_latency_p95_s{suffix}"] = round(
                _pct([o.latency_s for o in os_], 0.95), 2
            )
            figures[f"{name}_fallbacks{suffix}"] = sum(o.fell_back for o in os_)
            # The product's answer counts the offline fallback; the model's own does not.
            figures[f"{name}_accuracy_without_fallback{suffix}"] = round(
                sum(o.correct and not o.fell_back for o in os_) / n, 3
            )
        print(
            f"{name:8} {split:4} n={n:3} accuracy={figures[f'{name}_accuracy{suffix}']:.1%} "
            f"wrong_jobs={figures[f'{name}_wrong_jobs{suffix}']} "
            + (
                f"handled={handled / n:.1%}"
                if name == "offline"
                else f"req/prompt={figures[f'{name}_requests_per_prompt{suffix}']} "
                f"out_tokens_p50={figures[f'{name}_output_tokens_p50{suffix}']} "
                f"latency p50={figures[f'{name}_latency_p50_s{suffix}']}s "
                f"p95={figures[f'{name}_latency_p95_s{suffix}']}s "
                f"fallbacks={figures[f'{name}_fallbacks{suffix}']} "
                f"own={figures[f'{name}_accuracy_without_fallback{suffix}']:.1%}"
            )
        )
    if show:
        for c, o in zip(cases, outs, strict=True):
            if not o.correct:
                mark = "WRONG JOB" if o.wrong_job else "miss"
                print(f"  [{c['split']}] #{c['id']} {mark}: {c['say']} → {o.why}")
    return figures


async def run_model(
    name: str,
    rt: AgentKit,
    cases: list[dict[str, Any]],
    progress: bool,
    record: Path | None = None,
) -> list[Outcome]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite+aiosqlite:///{tmp}/understanding.db")
        await db.upgrade()
        w = World(
            db,
            Engine(JobStore(db), clock=lambda: REF),
            Memory(ConversationStore(db)),
            UserSettingsStore(db),
            TodoStore(db),
        )
        rt = replace(rt, memory=w.memory)
        outs = []
        try:
            for i, case in enumerate(cases):
                outs.append(await run_case(w, rt, case, user=1000 + i))
                if record is not None:
                    with record.open("a") as f:
                        f.write(json.dumps({"id": case["id"], **asdict(outs[-1])}) + "\n")
                if progress:
                    o = outs[-1]
                    print(
                        f"  {name} #{case['id']} "
                        f"{'ok' if o.correct else 'WRONG' if o.wrong_job else 'miss'} "
                        f"{o.latency_s:.1f}s req={o.requests} tok={o.output_tokens} {o.why[:140]}",
                        file=sys.stderr,
                        flush=True,
                    )
        finally:
            await db.close()
    return outs


def from_records(paths: list[Path], show: bool, data: Path = DATA) -> dict[str, Any]:
    """The model figures of runs recorded in pieces (`--record`), the last record per case."""
    by_id = {c["id"]: c for c in load_cases(data=data)}
    found: dict[int, Outcome] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                case_id = rec.pop("id")
                found[case_id] = Outcome(**rec)
    ids = sorted(found)
    return {"cases": len(ids)} | summarize(
        "model", [by_id[i] for i in ids], [found[i] for i in ids], show
    )


def reachable(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=3) as r:
            return bool(r.status == 200)
    except Exception:
        return False


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model-url", default=os.environ.get("HOMAR_MODEL_BASE_URL"))
    ap.add_argument("--model-name", default=os.environ.get("HOMAR_MODEL") or "local")
    ap.add_argument("--limit", type=int, default=None, help="only the first N cases")
    ap.add_argument("--offset", type=int, default=0, help="skip the first N cases")
    ap.add_argument("--ids", default=None, help="only these case ids (comma-separated)")
    ap.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the cases (default bench/data/understanding.jsonl; a second set written apart "
        "from it: bench/data/understanding_second.jsonl)",
    )
    ap.add_argument("--record", type=Path, default=None, help="append each model case here")
    ap.add_argument("--from-records", type=Path, nargs="+", default=None)
    ap.add_argument("--instructions", type=Path, default=None, help="static instructions file")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per model request")
    ap.add_argument("--split", choices=("dev", "held"), default=None)
    ap.add_argument("--no-offline", action="store_true")
    ap.add_argument(
        "--model-every-time",
        action="store_true",
        help="plain one-off reminders to the model too (PLAIN_REMINDERS_IN_CODE=false)",
    )
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    if args.from_records:
        print(json.dumps(from_records(args.from_records, args.show_failures, args.data)))
        return
    if args.instructions is not None:  # `build_agent` reads its module's INSTRUCTIONS
        import tools.agent.build

        tools.agent.build.INSTRUCTIONS = args.instructions.read_text().strip()
    cases = load_cases(args.split, args.limit, args.offset, args.data)
    if args.ids:
        wanted = {int(i) for i in args.ids.split(",")}
        cases = [c for c in cases if c["id"] in wanted]
    print(
        f"{len(cases)} cases ({sum(c['split'] == 'dev' for c in cases)} dev, "
        f"{sum(c['split'] == 'held' for c in cases)} held-out); reference {REF.isoformat()} {TZ}"
    )
    # The machine is shared: the load around a model run says what its latency means.
    figures: dict[str, Any] = {"cases": len(cases), "load_1m_start": os.getloadavg()[0]}
    if not args.no_offline:
        rt = AgentKit(agent=build_agent(), model=offline_model(), offline=offline_model())
        outs = await run_model("offline", rt, cases, progress=False)
        figures |= summarize("offline", cases, outs, args.show_failures)
    if args.model_url and reachable(args.model_url):
        from tools.models import make_model

        model = make_model(args.model_name, args.model_url)
        rt = AgentKit(
            agent=build_agent(),
            model=model,
            offline=offline_model(),
            model_settings=ModelSettings(request_timeout=args.timeout),
            run_timeout=max(AgentKit.run_timeout, 4 * args.timeout),
            plain_reminders_in_code=not args.model_every_time,  # as the bot runs by default
        )
        outs = await run_model("model", rt, cases, progress=True, record=args.record)
        figures |= summarize("model", cases, outs, args.show_failures)
    elif args.model_url:
        print(f"no model server at {args.model_url}; offline figures only")
    figures["load_1m_end"] = os.getloadavg()[0]
    print(json.dumps(figures))


if __name__ == "__main__":
    asyncio.run(main())
