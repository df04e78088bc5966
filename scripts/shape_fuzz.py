#!/usr/bin/env python3
"""Shape fuzzing of `compact` (and `status`, `dry-run`) on odd but well-formed sessions.

    scripts/shape_fuzz.py PI_SHAKE_BIN [ITERATIONS] [SEED] [WORKDIR] [--write]

libFuzzer (`scripts/fuzz.sh`, `fuzz/`) mutates bytes, which mostly breaks the JSON; real
sessions from other pi versions, extensions and custom tools are valid JSON with unexpected
*shapes*: `content` as a string or `null`, tool-call arguments that are not objects, results
without their call, a second result for one call, numbers where text was expected, one-line
outputs of 200,000 chars, control characters, deep nesting, compactions pointing nowhere. This
takes real sessions (the fixtures, some written by older pi releases), changes one to five
entries at random in one of those ways, and runs `compact --dry-run --json` at five budget settings (four given, one the default),
`compact --emit-json` (the pi extension's call), `status --json` and `dry-run --json`. A run
fails when the binary panics, is killed or hangs, or exits with a code outside its documented
set (0–6), or when a `compact` that exits 0 prints JSON that does not parse, a region that grows,
or (`--emit-json`) no summary. With `--write`, every session where a compaction was planned at
30% is also compacted for real (a copy, at 10%) and loaded by real pi 1.6
(`tests/interop/project.mjs`; `npm ci` there first): pi must load it, and the first message of
its projection must be the summary pi-shake appended, and `recall` must read back every call its
headers name, with the line count they show; a refusal (exit 4) must leave the copy
untouched, and the report says whether real pi loads the refused file itself. The same sessions
are also shaken for real (`--scope all --profile aggressive --tail 0`, another copy), and
whatever shake writes must load in real pi; then undone, after which real pi's projection must
equal the original's, message for message. Prints the
failures and keeps each failing session in WORKDIR (default `target/shape-fuzz`). Exit 1 if any
run failed.
"""
import copy
import json
import re
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASES = [
    ("sessions-fixtures/pi-mono/compact.jsonl", 260),
    ("sessions-fixtures/pi-mono/session.jsonl", 220),
    ("sessions-fixtures/pi/tools-large-output.jsonl", None),
    ("sessions-fixtures/pi/long-session.jsonl", None),
    ("sessions-fixtures/pi/thinking.jsonl", None),
    ("sessions-fixtures/pi/image-read.jsonl", None),
    ("sessions-fixtures/pi/compaction-rpc.jsonl", None),
    ("sessions-fixtures/pi/branches.jsonl", None),
    ("sessions-fixtures/pi/tool-error-then-success.jsonl", None),
    # Older releases' shapes (version 3 already: no migration needed).
    ("sessions-fixtures/pi-releases/0.50.7/compaction-rpc.jsonl", None),
    ("sessions-fixtures/pi-releases/0.70.6/long-session.jsonl", None),
    ("sessions-fixtures/pi-releases/1.5.2/tool-error-then-success.jsonl", None),
]
RUNS = [
    ["--target-ratio", "0.30"],
    ["--target-ratio", "0.05"],
    ["--max-summary-tokens", "300"],
    ["--target-ratio", "0.15", "--max-summary-tokens", "1500"],
    ["--scorer", "offline"],
]
ODD_VALUES = [None, 0, -1, 1e308, True, "", "x", [], {}, [None], [1, 2], {"a": None}, "\u0000\u001b[31m"]


def odd(rng):
    # A fresh copy: a shared list or dict mutated later (a block set inside it) would leak into
    # later sessions, or end up inside itself.
    return copy.deepcopy(rng.choice(ODD_VALUES))


def long_text(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return "x" * 200_000  # one huge line
    if kind == 1:
        return "\n" * 5_000  # only empty lines
    if kind == 2:
        return "".join(rng.choice("ab\t\r\u0000\u001b[0m\u200f\u0301é🦀/._:") for _ in range(20_000))
    if kind == 3:
        return "\r\n".join(f"src/mod_{i}.rs:{i}:1 error[E0{i % 999:03}]" for i in range(3_000))
    if kind == 4:
        return json.dumps({"k": [{"id": f"id_{i}", "url": f"https://x.test/{i}"} for i in range(4_000)]})
    return "\ud800 lone" if rng.random() < 0.5 else "🦀" * 30_000


def deep(n):
    v = "leaf"
    for _ in range(n):
        v = [v]
    return v


def mutate_block(rng, b):
    if not isinstance(b, dict):
        return odd(rng)
    k = rng.randrange(8)
    ty = b.get("type")
    if k == 0:
        b["type"] = odd(rng) if rng.random() < 0.5 else rng.choice(["text", "image", "thinking", "toolCall", "weird"])
    elif k == 1 and ty == "text":
        b["text"] = odd(rng) if rng.random() < 0.4 else long_text(rng)
    elif k == 2 and ty == "toolCall":
        b["arguments"] = rng.choice(
            [odd(rng), "{\"command\": \"ls\"}", {"command": odd(rng)}, {"path": odd(rng)},
             {"edits": odd(rng)}, {"edits": [{"oldText": 1, "newText": None}]},
             {"command": "\n".join(f"echo line_{i}_value" for i in range(5_000))},
             {"deep": deep(3_000)}, {"path": "/" + "a/" * 2_000}]
        )
    elif k == 3 and ty == "toolCall":
        b[rng.choice(["id", "name"])] = odd(rng)
    elif k == 4 and ty == "image":
        b[rng.choice(["data", "mimeType"])] = odd(rng)
    elif k == 5 and ty == "thinking":
        b["thinking"] = odd(rng)
    elif k == 6:
        b.pop(rng.choice(list(b.keys()) or ["type"]), None)
    else:
        b["extra"] = odd(rng)
    return b


def mutate_message(rng, m, ids):
    k = rng.randrange(10)
    if k == 0:
        m["content"] = rng.choice([odd(rng), long_text(rng), [long_text(rng)], deep(2_000)])
    elif k in (1, 2, 3) and isinstance(m.get("content"), list) and m["content"]:
        i = rng.randrange(len(m["content"]))
        m["content"][i] = mutate_block(rng, m["content"][i])
    elif k == 4:
        m["role"] = rng.choice([odd(rng), "robot", "system", "bashExecution", "custom", "toolResult"])
    elif k == 5 and m.get("role") == "toolResult":
        m["toolCallId"] = rng.choice([odd(rng), "no-such-call", rng.choice(ids) if ids else "x"])
    elif k == 6 and m.get("role") == "toolResult":
        m[rng.choice(["toolName", "isError", "details"])] = odd(rng)
    elif k == 7:
        m["timestamp"] = odd(rng)
    elif k == 8:
        m.pop(rng.choice(list(m.keys()) or ["role"]), None)
    else:
        m["usage"] = rng.choice([odd(rng), {"input": "x", "totalTokens": odd(rng)}])
    return m


def mutate(rng, entries):
    """Change one entry of `entries` (parsed lines after the header) in place."""
    ids = [
        b.get("id")
        for e in entries
        if isinstance(e.get("message"), dict) and isinstance(e["message"].get("content"), list)
        for b in e["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    i = rng.randrange(len(entries))
    e = entries[i]
    k = rng.randrange(12)
    if k < 7 and isinstance(e.get("message"), dict):
        mutate_message(rng, e["message"], ids)
    elif k == 7:
        # A second result for a call, or a result whose call is elsewhere.
        results = [x for x in entries if isinstance(x.get("message"), dict) and x["message"].get("role") == "toolResult"]
        if results:
            dup = json.loads(json.dumps(rng.choice(results)))
            dup["id"] = f"dup{rng.randrange(1 << 30):08x}"
            dup["parentId"] = e.get("id")
            entries.insert(i + 1, dup)
            if i + 2 < len(entries):
                entries[i + 2]["parentId"] = dup["id"]
    elif k == 8:
        e["type"] = rng.choice(["custom_message", "custom", "weird", "branch_summary", "label"])
        e.setdefault("content", odd(rng))
    elif k == 9:
        # A compaction whose fields are odd, inserted in the path.
        c = {"type": "compaction", "id": f"cmp{rng.randrange(1 << 30):08x}", "parentId": e.get("id"),
             "timestamp": "2025-12-24T00:40:00.000Z",
             "summary": rng.choice([odd(rng), "carried " * 50, long_text(rng)]),
             "firstKeptEntryId": rng.choice([e.get("id"), "nowhere", odd(rng)]),
             "tokensBefore": odd(rng)}
        entries.insert(i + 1, c)
        if i + 2 < len(entries):
            entries[i + 2]["parentId"] = c["id"]
    elif k == 10:
        e["timestamp"] = odd(rng)
    else:
        e["message"] = rng.choice([odd(rng), {"role": "user", "content": long_text(rng)}])


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def written_and_loaded(bin_, f, keep):
    """Compact a copy of `f` for real and load it in real pi; a failure's reason, or None."""
    g = f.with_suffix(".written.jsonl")
    shutil.copyfile(f, g)
    code, out, err = run([bin_, "compact", "--json", "--force", "--keep-recent-tokens", keep,
                          "--target-ratio", "0.10", str(g)])
    if code == 4 and b"refusing to write" in err:
        # A refusal is allowed (the file is untouched); say whether pi itself loads the file.
        if g.read_bytes() != f.read_bytes():
            return "refused, but the file changed"
        code, out, _ = run(["node", str(ROOT / "tests/interop/project.mjs"), str(f)])
        pi_ok = code == 0 and json.loads(out or b"{}").get("ok")
        g.unlink()
        return ("refused", "pi loads it" if pi_ok else "pi fails too", err.decode(errors="replace"))
    if code != 0:
        return f"compact exit {code}: {err.decode(errors='replace')[-300:]}"
    doc = json.loads(out)
    if not doc.get("compacted"):
        return None
    last = json.loads(g.read_text().splitlines()[-1])
    code, out, err = run(["node", str(ROOT / "tests/interop/project.mjs"), "--messages", str(g)])
    try:
        pi = json.loads(out)
    except ValueError:
        return f"project.mjs printed no JSON: {err.decode(errors='replace')[-300:]}"
    if not pi.get("ok"):
        return f"real pi did not load it: {pi.get('error')}"
    first = next((m for m in pi.get("messages", []) if m.get("role") != "system"), None)
    if not first or first.get("role") != "compactionSummary" or first.get("summary") != last.get("summary"):
        return "real pi's projection does not start with the summary pi-shake wrote"
    # Every call the summary names with a line count reads back whole, with that many lines.
    for m in HEADER.finditer(last.get("summary") or ""):
        pair, total = m.group(1), int(m.group(3).replace(",", ""))
        code, out, err = run([bin_, "--json", "recall", "--all", pair, str(g)])
        if code != 0:
            return f"recall {pair} exit {code}: {err.decode(errors='replace')[-300:]}"
        doc = json.loads(out)
        if doc.get("pairId") != pair or doc.get("totalLines") != total:
            return f"recall {pair}: {doc.get('pairId')} with {doc.get('totalLines')} lines, the summary says {total}"
    g.unlink()
    return None


# A summary's call header: `(t12; 40 of 900 lines)`, `(t12_2; error; 2 of 3 lines)`.
HEADER = re.compile(r"\((t\d+(?:_\d+)?);(?: error;)? ([\d,]+) of ([\d,]+) lines\)")


def shaken_and_loaded(bin_, f):
    """Shake a copy of `f` for real and load it in real pi; a failure's reason, or None."""
    g = f.with_suffix(".shaken.jsonl")
    shutil.copyfile(f, g)
    code, out, err = run([bin_, "shake", "--json", "--force", "--tail", "0", "--profile",
                          "aggressive", "--scope", "all", str(g)])
    if code == 4 and b"refusing to write" in err:
        ok = g.read_bytes() == f.read_bytes()
        g.unlink()
        return None if ok else "shake refused, but the file changed"
    if code != 0:
        return f"shake exit {code}: {err.decode(errors='replace')[-300:]}"
    if json.loads(out).get("writtenEntries", 0) == 0:
        g.unlink()
        return None
    code, out, err = run(["node", str(ROOT / "tests/interop/project.mjs"), str(g)])
    pi = json.loads(out or b"{}")
    if not pi.get("ok"):
        return f"real pi did not load the shaken copy: {pi.get('error')}"
    # Undo: real pi must see exactly the messages it saw before the shake.
    code, out, err = run([bin_, "undo", "--json", "--force", str(g)])
    if code != 0:
        return f"undo exit {code}: {err.decode(errors='replace')[-300:]}"
    project = lambda path: json.loads(  # noqa: E731
        run(["node", str(ROOT / "tests/interop/project.mjs"), "--messages", str(path)])[1] or b"{}")
    before, after = project(f), project(g)
    if not after.get("ok"):
        return f"real pi did not load the undone copy: {after.get('error')}"
    if before.get("messages") != after.get("messages"):
        return "after shake and undo, real pi's projection differs from the original's"
    g.unlink()
    return "shaken"


def main():
    sys.setrecursionlimit(50_000)
    write = "--write" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--write"]
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    bin_ = str(Path(sys.argv[1]).resolve())
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    work = Path(sys.argv[4]) if len(sys.argv) > 4 else ROOT / "target" / "shape-fuzz"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rng = random.Random(seed)
    bases = []
    for rel, limit in BASES:
        lines = (ROOT / rel).read_text().splitlines()
        if limit:
            lines = lines[:limit]
        bases.append((rel, json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]))
    failures = []
    runs = 0
    codes = {}
    compacted = 0
    loaded = 0
    shaken = 0
    refused = {}
    reasons = {}
    for it in range(iters):
        rel, header, entries = rng.choice(bases)
        entries = json.loads(json.dumps(entries))
        for _ in range(rng.randint(1, 5)):
            mutate(rng, entries)
        f = work / f"case-{it:04}.jsonl"
        with open(f, "w") as out:
            out.write(json.dumps(header) + "\n")
            for e in entries:
                out.write(json.dumps(e) + "\n")
        keep = str(rng.choice([50, 500, 2_000]))
        cmds = [[bin_, "compact", "--dry-run", "--json", "--keep-recent-tokens", keep, *r] for r in RUNS]
        # The pi extension's call (pi writes the entry): works while pi runs, writes nothing.
        cmds.append([bin_, "compact", "--emit-json", "--keep-recent-tokens", keep])
        cmds += [[bin_, "status", "--json", str(f)], [bin_, "dry-run", "--json", str(f)]]
        bad = []
        for c in cmds:
            if c[1] == "compact":
                c = c + [str(f)]
            code, out, err = run(c)
            runs += 1
            codes[code] = codes.get(code, 0) + 1
            if code == "timeout" or code < 0 or code > 6 or b"panicked" in err:
                bad.append((c[1:], code, err.decode(errors="replace")[-400:]))
                continue
            if c[2] == "--emit-json":
                if code == 0:
                    try:
                        doc = json.loads(out)
                    except ValueError as e:
                        bad.append((c[1:], code, f"stdout is not JSON: {e}"))
                        continue
                    if not isinstance(doc.get("summary"), str) or not doc.get("firstKeptEntryId"):
                        bad.append((c[1:], code, "no summary or firstKeptEntryId"))
                continue
            if c[1] == "compact" and code == 0:
                try:
                    doc = json.loads(out)
                except ValueError as e:
                    bad.append((c[1:], code, f"stdout is not JSON: {e}"))
                    continue
                planned = "firstKeptEntryId" in doc and "reason" not in doc
                compacted += planned
                sizes = doc.get("sizes") or {}
                after, before = sizes.get("regionAfter"), sizes.get("regionBefore")
                if planned and after is not None and before is not None and after > before:
                    bad.append((c[1:], code, f"region after {after} tokens > before {before}"))
                if planned and write and c[6:8] == ["--target-ratio", "0.30"]:
                    why = written_and_loaded(bin_, f, keep)
                    loaded += why is None
                    if isinstance(why, tuple):
                        refused[why[1]] = refused.get(why[1], 0) + 1
                        reason = why[2].split("refusing to write: ")[-1].split("\n")[0][:70]
                        reasons[reason] = reasons.get(reason, 0) + 1
                    elif why:
                        bad.append((["compact", "(written)", str(f)], 0, why))
                    why = shaken_and_loaded(bin_, f)
                    shaken += why == "shaken"
                    if why and why != "shaken":
                        bad.append((["shake", "(written)", str(f)], 0, why))
        if bad:
            failures.append((f, rel, bad))
        else:
            f.unlink()
    for f, rel, bad in failures:
        print(f"FAIL {f} (from {rel})")
        for c, code, why in bad:
            print(f"  exit {code}: {' '.join(c[:-1])[:160]}\n    {why.strip()[:400]}")
    if refused:
        print(f"writes refused (file untouched): {refused}")
        for r, n in sorted(reasons.items(), key=lambda x: -x[1]):
            print(f"  {n:4} {r}")
    print(f"{iters} sessions, {runs} runs (exit codes {dict(sorted(codes.items(), key=str))}; "
          f"{compacted} compactions planned; {loaded} written and loaded by real pi; "
          f"{shaken} shaken, loaded, undone and projected as before by real pi), "
          f"{len(failures)} failing sessions")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
