#!/usr/bin/env python3
"""Budget adherence on random session shapes: how many `compact` runs land outside 95–100% of
their budget (issue 19: "every cut writes a compaction, within 5% of its budget").

    scripts/budget_sweep.py PI_SHAKE_BIN [SESSIONS_PER_FAMILY] [WORKDIR]

Four families of deterministic random sessions (seeded; 60 each by default), each compacted
(`--dry-run --json`) at six budgets: `--target-ratio` 0.30 / 0.15 / 0.05 / 0.02 and
`--max-summary-tokens` 1500 / 400.

1. conversation, edits, writes and tool output in random proportions (long or short prompts and
   answers, no output or thousands of lines);
2. the same with shell commands the user ran (`bashExecution`), custom notes, images, thinking
   blocks and a carried compaction summary of another tool;
3. branch summaries, custom messages, tool results without their call, 20k-word pastes,
   one-line JSON outputs, empty outputs, images;
4. family 3 compacted by PI_SHAKE_BIN itself, more turns appended, compacted again, more turns
   appended (chained pi-shake summaries).

Prints, per family, the compacted points and those off budget (under 95% or over 100%), and
lists the off-budget ones. A point with nothing to compact (the branch holds less than the
recent tokens to keep) is not counted. The sessions are synthetic: this measures the budget
machinery on shapes the real tuning sessions lack, not what a summary keeps.
"""
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

WORDS = "alpha beta gamma delta parser tokenizer buffer cache index module handler request".split()
BUDGETS = [
    ["--target-ratio", "0.30"],
    ["--target-ratio", "0.15"],
    ["--target-ratio", "0.05"],
    ["--target-ratio", "0.02"],
    ["--max-summary-tokens", "1500"],
    ["--max-summary-tokens", "400"],
]
USAGE = {"input": 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 20,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


class Writer:
    """A v3 session: entries chained one after the other."""

    def __init__(self, sid: str):
        self.lines = [json.dumps({"type": "session", "version": 3, "id": sid,
                                  "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/home/u/proj"})]
        self.parent = None

    def entry(self, e: dict) -> str:
        i = "%08x" % (0x1000 + len(self.lines))
        e.update({"id": i, "parentId": self.parent, "timestamp": "2026-01-01T00:00:00.000Z"})
        if e.get("type") == "branch_summary":
            e["fromId"] = self.parent
        self.lines.append(json.dumps(e))
        self.parent = i
        return i

    def msg(self, m: dict) -> str:
        return self.entry({"type": "message", "message": m})

    def save(self, path: Path) -> None:
        path.write_text("\n".join(self.lines) + "\n")


def asst(content: list, stop: str = "stop") -> dict:
    return {"role": "assistant", "content": content, "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude", "usage": USAGE, "stopReason": stop,
            "timestamp": 1}


def session(family: int, seed: int) -> Writer:
    r = random.Random(family * 100_000 + seed)
    prose = lambda k: " ".join(r.choice(WORDS) for _ in range(k))
    w = Writer(f"f{family}-s{seed}")
    user_max = r.choice([5, 50, 400]) if family == 1 else 60
    asst_max = r.choice([5, 100, 800]) if family == 1 else 300
    size = r.choice([3, 40, 400, 3000]) if family == 1 else None
    turns = r.randint(10, 80) if family == 1 else r.randint(20, 80)
    compact_at = r.choice([None, turns // 3, turns // 2]) if family == 2 else None
    ids, c = [], 0
    for t in range(turns):
        if t == compact_at and len(ids) > 4:
            w.entry({"type": "compaction", "summary": "## Goal\n" + prose(r.choice([30, 500, 3000])),
                     "firstKeptEntryId": ids[-3], "tokensBefore": 50000})
        k = r.random()
        if family == 2 and k < 0.15:
            w.msg({"role": "bashExecution", "command": f"ls src/{t}",
                   "output": "\n".join(f"f_{t}_{j}.rs" for j in range(r.randint(1, 300))),
                   "exitCode": 0, "cancelled": False, "truncated": False, "timestamp": 1})
        elif family == 2 and k < 0.25:
            w.msg({"role": "custom", "customType": "note", "content": prose(r.randint(5, 300)),
                   "display": True, "timestamp": 1})
        elif family == 3 and k < 0.05:
            w.entry({"type": "branch_summary", "summary": "Branch: " + prose(r.randint(10, 2000))})
        elif family == 3 and k < 0.10:
            w.entry({"type": "custom_message", "customType": "ext",
                     "content": prose(r.randint(5, 3000)), "display": True})
        elif family == 3 and k < 0.13:
            w.msg({"role": "toolResult", "toolCallId": f"orphan{t}", "toolName": "bash",
                   "content": [{"type": "text", "text": prose(r.randint(5, 2000))}],
                   "isError": False, "timestamp": 1})
        paste = family == 3 and r.random() < 0.05
        text = prose(r.randint(3000, 20000)) if paste else prose(r.randint(1, user_max))
        ids.append(w.msg({"role": "user", "content": [{"type": "text", "text": f"task {t}: {text}"}],
                          "timestamp": 1}))
        for _ in range(r.randint(0, 3)):
            c += 1
            cid = f"call_{c}"
            tool = r.choice(["bash", "read", "edit", "write", "grep", "web_search"])
            args = {"bash": {"command": f"make t{c}"}, "read": {"path": f"src/f{c}.rs"},
                    "edit": {"path": f"src/f{c % 7}.rs", "oldText": prose(30), "newText": prose(40)},
                    "write": {"path": f"src/n{c}.rs", "content": prose(r.choice([10, 1000]))},
                    "grep": {"pattern": f"fn_{c}"}, "web_search": {"query": f"q {c}"}}[tool]
            blocks = []
            if family != 1 and r.random() < 0.2:
                blocks.append({"type": "thinking", "thinking": prose(r.randint(1, 300)),
                               "thinkingSignature": "x"})
            blocks += [{"type": "text", "text": prose(r.randint(1, 20))},
                       {"type": "toolCall", "id": cid, "name": tool, "arguments": args}]
            w.msg(asst(blocks, "toolUse"))
            n = r.randint(1, size if size else r.choice([5, 80, 2000]))
            if family == 3 and r.random() < 0.2:
                out = json.dumps({"results": [{"url": f"https://ex.com/{c}/{j}", "title": prose(6),
                                               "snippet": prose(30)} for j in range(r.randint(1, 60))]})
            elif family == 3 and r.random() < 0.1:
                out = ""
            else:
                out = "\n".join(f"{j}: {prose(6)} sym_{c}_{j} src/m{c}.rs:{j}" for j in range(n))
            content = [{"type": "text", "text": out}]
            if family != 1 and r.random() < 0.1:
                content.append({"type": "image", "data": "iVBORw0KGgo=" * 50, "mimeType": "image/png"})
            w.msg({"role": "toolResult", "toolCallId": cid, "toolName": tool, "content": content,
                   "isError": r.random() < 0.1, "timestamp": 1})
        w.msg(asst([{"type": "text", "text": prose(r.randint(1, asst_max))}]))
    w.msg({"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": 1})
    return w


def append_turns(path: Path, r: random.Random, tag: str) -> None:
    lines = path.read_text().splitlines()
    parent = json.loads(lines[-1])["id"]
    prose = lambda k: " ".join(r.choice(WORDS) for _ in range(k))
    out = []
    for t in range(r.randint(20, 60)):
        for m in ({"role": "user", "content": [{"type": "text", "text": f"more {t} {prose(r.randint(1, 40))}"}], "timestamp": 1},
                  asst([{"type": "toolCall", "id": f"{tag}{t}", "name": "bash", "arguments": {"command": f"run {t}"}}], "toolUse"),
                  {"role": "toolResult", "toolCallId": f"{tag}{t}", "toolName": "bash", "timestamp": 1, "isError": False,
                   "content": [{"type": "text", "text": "\n".join(f"{j} {prose(5)} id_{t}_{j}" for j in range(r.randint(1, 600)))}]},
                  asst([{"type": "text", "text": prose(r.randint(1, 100))}])):
            i = f"{tag}{len(out):06x}"
            out.append(json.dumps({"type": "message", "id": i, "parentId": parent,
                                   "timestamp": "2026-01-02T00:00:00.000Z", "message": m}))
            parent = i
    with path.open("a") as f:
        f.write("\n".join(out) + "\n")


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_ = sys.argv[1]
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    work = Path(sys.argv[3] if len(sys.argv) > 3 else "target/budget-sweep")
    work.mkdir(parents=True, exist_ok=True)
    for family in (1, 2, 3, 4):
        points, off = 0, []
        for seed in range(per):
            path = work / f"f{family}-{seed:03d}.jsonl"
            session(3 if family == 4 else family, seed).save(path)
            if family == 4:
                r = random.Random(400_000 + seed)
                for round_ in range(2):
                    run = subprocess.run([bin_, "compact", str(path), "-q", "--target-ratio",
                                          r.choice(["0.3", "0.15", "0.05"])], capture_output=True)
                    if run.returncode != 0:
                        break
                    append_turns(path, r, f"x{round_}_")
            for budget in BUDGETS:
                run = subprocess.run([bin_, "compact", "--dry-run", "--json", str(path), *budget],
                                     capture_output=True, text=True)
                try:
                    b = json.loads(run.stdout).get("budget") or {}
                except json.JSONDecodeError:
                    off.append(f"{path.name} {' '.join(budget)}: no JSON (exit {run.returncode})")
                    continue
                if "tokens" not in b:
                    continue
                points += 1
                share = b["achieved"] / max(b["tokens"], 1)
                if share > 1.0 or share < 0.95:
                    last = (b.get("shrunk") or [""])[-1]
                    off.append(f"{path.name} {' '.join(budget)}: {b['achieved']} of {b['tokens']} "
                               f"tokens ({share:.3f}) {last[:80]}")
        print(f"family {family}: {points} points, {len(off)} off budget")
        for line in off:
            print(f"  {line}")


if __name__ == "__main__":
    main()
