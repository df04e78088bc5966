#!/usr/bin/env python3
"""Operation-sequence fuzzing: pi-shake's writing commands and real pi taking turns on one file.

    scripts/op_fuzz.py PI_SHAKE_BIN [SEQUENCES] [SEED] [WORKDIR] [--steps N] [--bases FILE...]

Each sequence copies a real session (the fixtures real pi wrote, and the pi-mono sessions cut
short; with `--bases`, the given files, each opened by pi 1.6 first, which migrates an older
release's file as a user's pi would) and applies N random steps (default 10), each one of:

- `shake --scope S --profile P [--tail T]`, sometimes right after `dry-run` with the same flags,
  sometimes run twice (the second must write nothing);
- `undo`, sometimes twice (the second must write nothing);
- `compact` at a random budget and `--keep-recent-tokens`, sometimes after `compact --dry-run`;
- the pi extension's compaction: pi's cut, `compact --emit-json --first-kept-entry-id` at that
  cut, and pi appending the compaction entry from that answer (or, when pi-shake declines
  because its summary would not be smaller than the region, pi's own, as the extension falls
  back);
- real pi 1.6 appending to the file through its own `SessionManager`
  (`scripts/op_fuzz_pi.mjs`): one more turn, a `/tree` jump to an earlier user message (with or
  without a branch summary) and a turn there, a retry (pi hides its last reply with a null
  `context_edit`, then the turn goes on), what an extension appends (a custom message — a line,
  or a big text with an image — a label, a model change, a `context_edit` hiding a message, the
  cache warmer's `usage` entry),
  pi's own compaction at pi's own cut, or `/fork` (the active branch copied to a new file, where
  lines move; the sequence goes on in the copy).

After every step real pi loads the file (`tests/interop/project.mjs`) and these must hold:

1. pi-shake exits 0 (the files are ones pi wrote: nothing should be refused), never panics;
2. every write only appends: the bytes before the step are a prefix of the bytes after it;
   a dry run (`dry-run`, `compact --dry-run`) leaves the file byte-identical, and the real run
   after it reports what the dry run announced (folds and reclaimed tokens; the summary's size);
3. real pi loads the file, and `status --json`'s projection (entry, role, tokens for every
   message) and context tokens equal real pi's `buildSessionProjection` and
   `estimateProjectedContextTokens`;
4. after `undo`, real pi's messages equal the messages it gives for the same file with
   pi-shake's `context_edit`s neutralised (turned into inert `custom` entries with the same id and
   parent; pi's own, such as a retry's, stay): everything pi-shake folded is back, byte for byte,
   whatever pi and pi-shake wrote in between, and nothing pi hid comes back;
5. after `shake`, real pi's messages differ from that neutralised view only in folded tool
   results, blocks, thinking and images (of user, assistant, tool-result and custom messages),
   each carrying pi-shake's placeholder or, for thinking, dropped, and the number of messages is
   the same;
6. `compact`'s estimate of the context before it equals the sum of real pi's projected
   message estimates; after a `compact` that writes, the compaction cuts where pi's own
   `prepareCompaction` cuts at the same `keepRecentTokens`, and real pi's projection starts with
   the summary pi-shake wrote;
7. every pair a pi-shake compaction on the branch lists with a result (`details.pairs`) is
   recalled by the id its summary shows (`recall ID`: up to 8 of them a step, at random), in the
   copies `/fork` writes too.

Prints each failure with its sequence's log and keeps the failing file in WORKDIR (default
`target/op-fuzz`). Exit 1 if any step failed. Needs `npm ci` in `tests/interop` (the oracle).
"""
import json
import random
import sys
from pathlib import Path

from shape_fuzz import BASES as SHAPE_BASES, run

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tests/interop/project.mjs"
PI_SIDE = ROOT / "scripts/op_fuzz_pi.mjs"
# The shape fuzzer's real sessions (the pi-mono ones cut short to keep a step fast), and three
# more: one with pi's own retry edits, a forked one, one holding pi compactions.
BASES = SHAPE_BASES + [
    ("sessions-fixtures/pi/retry-context-edit.jsonl", None),
    ("sessions-fixtures/pi/branches-fork.jsonl", None),
    ("sessions-fixtures/pi-mono/before-compaction.jsonl", 420),
]
PLACEHOLDER = "omitted"


def pi_view(path, messages=True, compaction=None):
    cmd = ["node", str(ORACLE)]
    if messages:
        cmd.append("--messages")
    if compaction is not None:
        cmd.append(f"--compaction={compaction}")
    code, out, err = run(cmd + [str(path)])
    try:
        return json.loads(out)
    except ValueError:
        return {"ok": False, "error": f"oracle printed no JSON: {err.decode(errors='replace')[-300:]}"}


def neutralised(path, work):
    """Real pi's view of `path` with pi-shake's context_edits turned into inert custom entries
    (the ids its `shake` log entries list); pi's own and extensions' edits stay."""
    g = work / (path.stem + ".neutral.jsonl")
    lines = path.read_text().splitlines()
    ours = set()
    for line in lines:
        if '"customType":"shake"' in line:
            data = json.loads(line).get("data") or {}
            ours |= {f.get("edit") for f in (data.get("folds") or []) + (data.get("restores") or [])}
    out = []
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if isinstance(e, dict) and e.get("type") == "context_edit" and e.get("id") in ours:
            e = {"type": "custom", "customType": "op-fuzz-neutral", "id": e.get("id"),
                 "parentId": e.get("parentId"), "timestamp": e.get("timestamp")}
            line = json.dumps(e)
        out.append(line)
    g.write_text("\n".join(out) + "\n")
    view = pi_view(g)
    g.unlink()
    return view


def has_placeholder(m):
    c = m.get("content")
    if isinstance(c, str):
        return PLACEHOLDER in c
    if isinstance(c, list):
        return any(PLACEHOLDER in json.dumps(b) for b in c)
    return False


def folded(now, was):
    """`now` is `was` with some content folded: a placeholder in place, or thinking dropped."""
    if now.get("role") not in ("toolResult", "assistant", "user", "custom"):
        return False
    if {k: v for k, v in now.items() if k != "content"} != {k: v for k, v in was.items() if k != "content"}:
        return False
    if has_placeholder(now):
        return True
    c = was.get("content")
    return isinstance(c, list) and now.get("content") == [b for b in c if b.get("type") != "thinking"]


class Seq:
    def __init__(self, bin_, path, work, rng):
        self.bin, self.path, self.work, self.rng = bin_, path, work, rng
        self.log = []
        self.files = [path]

    def ps(self, *args, declined=None):
        """Run pi-shake on the file; its JSON. With `declined`, exit 2 with that text in the
        message is an answer too (`None` comes back)."""
        force = [] if args[0] == "status" else ["--force"]
        code, out, err = run([self.bin, *args, "--json", *force, str(self.path)])
        if declined and code == 2 and declined.encode() in err:
            return None
        if code == "timeout":
            raise Failure(f"pi-shake {' '.join(args)} timed out")
        if b"panicked" in err or code not in (0, 4):
            raise Failure(f"pi-shake {' '.join(args)} exit {code}: {err.decode(errors='replace')[-400:]}")
        if code == 4:
            raise Failure(f"pi-shake {' '.join(args)} refused a file pi wrote: "
                          f"{err.decode(errors='replace')[-400:]}")
        try:
            return json.loads(out)
        except ValueError:
            raise Failure(f"pi-shake {' '.join(args)} printed no JSON")

    def pi(self, action, arg):
        code, out, err = run(["node", str(PI_SIDE), str(self.path), action, str(arg)])
        doc = json.loads(out or b"{}") if out else {}
        if code != 0 or not doc.get("ok"):
            raise Failure(f"pi could not {action}: {doc.get('error') or err.decode(errors='replace')[-400:]}")
        return doc

    # --- steps -------------------------------------------------------------------------------

    def step_shake(self, dry_first):
        scope = self.rng.choice(["elide", "thinking", "images", "all"])
        profile = self.rng.choice(["default", "conservative", "aggressive"])
        args = ["--scope", scope, "--profile", profile]
        if self.rng.random() < 0.5:
            args += ["--tail", str(self.rng.choice([0, 200, 2000]))]
        self.log.append(f"shake {' '.join(args)}" + (" (after a dry run)" if dry_first else ""))
        before = self.path.read_bytes()
        dry = None
        if dry_first:
            dry = self.ps("dry-run", *args)
            if self.path.read_bytes() != before:
                raise Failure("dry-run changed the file")
        doc = self.ps("shake", *args)
        if dry is not None:
            want = [(r["entries"], r["tokensReclaimed"]) for r in dry["runs"]]
            got = [(r["entries"], r["tokensReclaimed"]) for r in doc["runs"]]
            if want != got:
                raise Failure(f"dry-run announced {want}, shake did {got}")
        if self.rng.random() < 0.25:
            again = self.ps("shake", *args)
            if again.get("writtenEntries"):
                raise Failure(f"the same shake again wrote {again['writtenEntries']} entries (not idempotent)")
        return "shake", before

    def step_undo(self):
        self.log.append("undo")
        before = self.path.read_bytes()
        self.ps("undo")
        if self.rng.random() < 0.3:
            again = self.ps("undo")
            if again.get("writtenEntries"):
                raise Failure(f"a second undo wrote {again['writtenEntries']} entries (not idempotent)")
        return "undo", before

    def step_compact(self, dry_first):
        keep = self.rng.choice([200, 500, 2000, 8000, 20000])
        budget = self.rng.choice([[], ["--target-ratio", "0.30"], ["--target-ratio", "0.05"],
                                  ["--target-ratio", "0.02"], ["--max-summary-tokens", "400"],
                                  ["--max-summary-tokens", "3000"]])
        args = ["compact", "--keep-recent-tokens", str(keep), *budget]
        self.log.append(" ".join(args) + (" (after a dry run)" if dry_first else ""))
        before = self.path.read_bytes()
        was = pi_view(self.path, messages=False, compaction=keep)
        cut = was.get("compaction")
        dry = None
        if dry_first:
            dry = self.ps(*args, "--dry-run")
            if self.path.read_bytes() != before:
                raise Failure("compact --dry-run changed the file")
        doc = self.ps(*args)
        if dry is not None and (dry.get("sizes") != doc.get("sizes")
                                or dry.get("firstKeptEntryId") != doc.get("firstKeptEntryId")):
            raise Failure(f"compact --dry-run announced {dry.get('sizes')}, compact did {doc.get('sizes')}")
        estimate = sum(r["tokens"] for r in was.get("projection", []))
        if doc.get("sizes") and doc["sizes"].get("contextEstimateBefore") != estimate:
            raise Failure(f"compact's context before ~{doc['sizes'].get('contextEstimateBefore')}, "
                          f"pi's projection ~{estimate}")
        if doc.get("compacted"):
            if not cut or cut.get("firstKeptEntryId") != doc.get("firstKeptEntryId"):
                raise Failure(f"pi-shake cut at {doc.get('firstKeptEntryId')}, pi at "
                              f"{cut and cut.get('firstKeptEntryId')}")
            return "compact", before
        return "compact-nothing", before

    def step_emit(self):
        """The pi extension's compaction: pi cuts, pi-shake answers (`--emit-json`), pi appends."""
        keep = self.rng.choice([200, 500, 2000, 8000])
        budget = self.rng.choice([[], ["--target-ratio", "0.10"], ["--max-summary-tokens", "800"]])
        before = self.path.read_bytes()
        cut = pi_view(self.path, messages=False, compaction=keep).get("compaction")
        self.log.append(f"compact --emit-json --keep-recent-tokens {keep} {' '.join(budget)} → pi appends")
        if not cut:
            return "compact-nothing", before
        doc = self.ps("compact", "--emit-json", "--keep-recent-tokens", str(keep),
                      "--first-kept-entry-id", cut["firstKeptEntryId"], *budget,
                      declined="would not be smaller than the region")
        if self.path.read_bytes() != before:
            raise Failure("compact --emit-json changed the file")
        if doc is None:
            # The extension's fallback: pi writes its own summary.
            self.log.append("  declined (the summary would not be smaller); pi compacts itself")
            self.pi("compact", keep)
            return "compact-declined", before
        if doc.get("firstKeptEntryId") != cut["firstKeptEntryId"]:
            raise Failure(f"--emit-json cut at {doc.get('firstKeptEntryId')}, pi at {cut['firstKeptEntryId']}")
        answer = self.work / (self.path.stem + ".emit.json")
        answer.write_text(json.dumps(doc))
        self.pi("hook-compaction", answer)
        answer.unlink()
        return "compact", before

    def step_pi(self):
        action = self.rng.choices(["turn", "branch", "summary-branch", "retry", "extension", "compact",
                                   "fork"], [6, 1, 1, 2, 2, 2, 1])[0]
        if action == "fork":
            # /fork: pi copies the active branch to a new file (lines move); go on in the copy.
            out = self.work / (self.path.stem + ".forks")
            out.mkdir(exist_ok=True)
            self.log.append("pi fork")
            doc = self.pi("fork", out)
            self.path = Path(doc["path"])
            self.files.append(self.path)
            return "fork", b""
        arg = self.rng.choice([500, 2000, 8000]) if action == "compact" else self.rng.randrange(1 << 30)
        self.log.append(f"pi {action} {arg}")
        before = self.path.read_bytes()
        self.pi(action, arg)
        return "pi", before

    # --- checks ------------------------------------------------------------------------------

    def check(self, kind, before):
        after = self.path.read_bytes()
        if not after.startswith(before):
            raise Failure("the step rewrote bytes instead of appending")
        view = pi_view(self.path)
        if not view.get("ok"):
            raise Failure(f"real pi does not load the file: {view.get('error')}")
        status = self.ps("status")
        ours = [(r["entryId"], r["role"], r["tokens"]) for r in status["projection"]]
        theirs = [(r["entryId"], r["role"], r["tokens"]) for r in view["projection"]]
        if ours != theirs:
            diff = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            raise Failure(f"status projection differs from pi's at message {diff}: "
                          f"{ours[diff:diff + 2]} vs {theirs[diff:diff + 2]} ({len(ours)} vs {len(theirs)})")
        if status["contextTokens"] != view["contextTokens"]:
            raise Failure(f"context tokens {status['contextTokens']} vs pi's {view['contextTokens']}")
        if kind in ("undo", "shake"):
            ref = neutralised(self.path, self.work)
            if not ref.get("ok"):
                raise Failure(f"pi does not load the neutralised copy: {ref.get('error')}")
            a, b = view["messages"], ref["messages"]
            if kind == "undo" and a != b:
                i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                raise Failure(f"after undo, pi's message {i} is not what it was before any fold")
            if kind == "shake":
                if len(a) != len(b):
                    raise Failure(f"shake changed the number of messages ({len(b)} → {len(a)})")
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y and not folded(x, y):
                        raise Failure(f"shake changed message {i} ({x.get('role')}) beyond a fold")
        self.check_recall()
        if kind == "compact":
            last = json.loads(after.decode().splitlines()[-1])
            first = next((m for m in view["messages"] if m.get("role") != "system"), None)
            if last.get("type") != "compaction" or not first or first.get("role") != "compactionSummary" \
                    or first.get("summary") != last.get("summary"):
                raise Failure("real pi's projection does not start with the summary pi-shake wrote")


    def check_recall(self):
        """Invariant 7: the ids of the summaries on the active branch recall the results their
        compactions list."""
        entries = [json.loads(line) for line in self.path.read_text().splitlines()[1:]]
        by_id = {e.get("id"): e for e in entries}
        listed, e, seen = [], entries[-1] if entries else None, set()
        while e is not None and e.get("id") not in seen:
            seen.add(e.get("id"))
            details = e.get("details") if e.get("type") == "compaction" else None
            if isinstance(details, dict) and str(details.get("pruner", "")).startswith("pi-shake"):
                listed += [(p["id"], p["resultEntry"]) for p in details.get("pairs", []) if p.get("resultEntry")]
            e = by_id.get(e.get("parentId"))
        for pid, result in self.rng.sample(listed, min(8, len(listed))):
            code, out, err = run([self.bin, "--json", "recall", pid, str(self.path)])
            if code != 0:
                raise Failure(f"recall {pid} exit {code}: {err.decode(errors='replace')[-300:]}")
            got = json.loads(out)["entryId"]
            if got != result:
                raise Failure(f"recall {pid} read {got}, the summary's call has its result in {result}")


class Failure(Exception):
    pass


def main():
    argv = [a for a in sys.argv[1:]]
    steps = 10
    if "--steps" in argv:
        i = argv.index("--steps")
        steps = int(argv[i + 1])
        del argv[i:i + 2]
    bases = BASES
    if "--bases" in argv:
        # Other sessions real pi wrote (say, older pi releases' files from
        # `tests/interop/gen/generate.mjs --cli`), whole; each copy is opened by pi 1.6 first,
        # which migrates a file of an older format in place, as a user's first open would.
        i = argv.index("--bases")
        bases = [(str(Path(b).resolve()), None) for b in argv[i + 1:]]
        del argv[i:]
    if not argv:
        print(__doc__)
        sys.exit(2)
    bin_ = str(Path(argv[0]).resolve())
    n = int(argv[1]) if len(argv) > 1 else 20
    seed = int(argv[2]) if len(argv) > 2 else 1
    work = Path(argv[3]) if len(argv) > 3 else ROOT / "target/op-fuzz"
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    failures, counts = [], {}
    for k in range(n):
        src, keep = rng.choice(bases)
        lines = (ROOT / src).read_text().splitlines()
        if keep:
            lines = lines[:keep]
        path = work / f"seq-{seed}-{k:04}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        seq = Seq(bin_, path, work, random.Random(rng.randrange(1 << 30)))
        seq.log.append(f"base {src} ({len(lines)} lines)")
        try:
            if bases is not BASES:
                code, out, err = run(["node", str(PI_SIDE), str(path), "open"])
                if code != 0 or not json.loads(out or b"{}").get("ok"):
                    raise Failure(f"real pi 1.6 does not open the base: {out!r} {err[-300:]!r}")
            if not pi_view(path, messages=False).get("ok"):
                raise Failure("real pi does not load the base")
            for _ in range(steps):
                r = seq.rng.random()
                if r < 0.30:
                    kind, before = seq.step_shake(seq.rng.random() < 0.4)
                elif r < 0.45:
                    kind, before = seq.step_undo()
                elif r < 0.58:
                    kind, before = seq.step_compact(seq.rng.random() < 0.3)
                elif r < 0.65:
                    kind, before = seq.step_emit()
                else:
                    kind, before = seq.step_pi()
                counts[kind] = counts.get(kind, 0) + 1
                seq.check(kind, before)
            for f in seq.files:
                f.unlink()
        except Failure as f:
            failures.append((path, seq.log, str(f)))
            print(f"FAIL {path.name}: {f}\n  " + "\n  ".join(seq.log), flush=True)
        if (k + 1) % 10 == 0:
            print(f"{k + 1}/{n} sequences, {len(failures)} failed; steps {counts}", flush=True)
    tally = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{n} sequences × {steps} steps ({tally}); {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
