#!/usr/bin/env python3
"""What older pi releases make of the files pi-shake writes.

    scripts/cross_release.py PI_SHAKE_BIN [--json]

pi-shake is checked against pi 1.6 everywhere else; users run older releases too. This takes
every session of `sessions-fixtures/pi/` (written by pi 1.6) and writes four copies with
PI_SHAKE_BIN: shaken (`--scope all --profile aggressive`), shaken then undone, compacted
(`--keep-recent-tokens 2000`), and shaken then compacted. Each copy is then opened by several
pi releases (pinned in `tests/interop/releases/package-lock.json`; `npm ci` there on first
use), and the model context each builds (`buildSessionContext`,
`scripts/release_context.mjs`) is compared with pi 1.6's:

- releases from 0.87.0 on honour `context_edit`: their context must equal pi 1.6's, message for
  message (a difference is a failure);
- older releases ignore `context_edit` (pi-shake warns about them, `src/pi_version.rs`): they
  are reported, not failed — whether each loads the file, and whether it starts from pi-shake's
  compaction summary.

Prints one line per release (with `--json`, one document: `{"files", "releases": [{"version",
"honoursEdits", "load", "same", "compacted", "startFromSummary", "ok"}]}`) and exits 1 if a release from 0.87 on differs from pi 1.6 or fails
to load a file. Needs Node (>= 20; the session modules load there) and npm. `cargo test` runs it
(`tests/e2e/releases.rs`).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = ROOT / "scripts/release_context.mjs"
PI16 = ROOT / "tests/interop/node_modules/@earendil-works/pi-coding-agent"
RELEASES_DIR = ROOT / "tests/interop/releases"
# (release, honours context_edit)
# 0.86.1 and 0.87.0: the last release that ignores `context_edit` and the first that honours it
# (the boundary of pi-shake's old-pi warning, `src/pi_version.rs`).
RELEASES = [("0.50.7", False), ("0.70.6", False), ("0.86.1", False), ("0.87.0", True), ("0.87.1", True),
            ("1.0.3", True), ("1.5.2", True)]


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def package(version):
    """The installed package of pi `version` (`npm ci` in tests/interop/releases first)."""
    d = RELEASES_DIR / "node_modules" / f"pi-{version}"
    if not (d / "package.json").exists():
        r = sh(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=RELEASES_DIR)
        if r.returncode != 0:
            sys.exit(f"npm ci in {RELEASES_DIR} failed:\n{r.stderr[-2000:]}")
    return d


def contexts(pkg_dir, files):
    r = sh(["node", str(CONTEXT), str(pkg_dir), *map(str, files)])
    if r.returncode != 0:
        sys.exit(f"release_context.mjs failed for {pkg_dir}:\n{r.stderr[-2000:]}")
    return {json.loads(l)["file"]: json.loads(l) for l in r.stdout.splitlines() if l.strip()}


def written_copies(bin_, work):
    """Copies of every pi 1.6 fixture, each written by pi-shake in one of four ways."""
    out = []
    steps = {
        "shaken": [["shake", "--scope", "all", "--profile", "aggressive"]],
        "undone": [["shake", "--scope", "all", "--profile", "aggressive"], ["undo"]],
        "compacted": [["compact", "--keep-recent-tokens", "2000"]],
        "shaken-compacted": [["shake", "--scope", "all", "--profile", "aggressive"],
                             ["compact", "--keep-recent-tokens", "2000"]],
    }
    for fx in sorted((ROOT / "sessions-fixtures/pi").glob("*.jsonl")):
        for kind, runs in steps.items():
            dst = work / f"{fx.stem}.{kind}.jsonl"
            shutil.copyfile(fx, dst)
            before = dst.read_bytes()
            compacted = False
            for args in runs:
                # An hour old, as a session nobody is working on (the live-pi check stays quiet).
                t = time.time() - 3600
                os.utime(dst, (t, t))
                size = dst.stat().st_size
                r = sh([bin_, *args, str(dst)])
                if r.returncode != 0:
                    sys.exit(f"{' '.join(args)} {dst}: exit {r.returncode}\n{r.stderr}")
                compacted |= args[0] == "compact" and dst.stat().st_size != size
            if dst.read_bytes() != before:
                out.append((dst, compacted))
            else:
                dst.unlink()
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    bin_ = str(Path(sys.argv[1]).resolve())
    as_json = "--json" in sys.argv[2:]
    work = Path(tempfile.mkdtemp(prefix="cross-release-"))
    written = written_copies(bin_, work)
    files = [f for f, _ in written]
    compacted = [str(f) for f, c in written if c]
    base = contexts(PI16, files)
    bad = [f for f, r in base.items() if not r["ok"]]
    if bad:
        sys.exit(f"pi 1.6 does not load {bad}")
    failed = False
    report = []
    for version, edits in RELEASES:
        ctx = contexts(package(version), files)
        loads = sum(r["ok"] for r in ctx.values())
        same = sum(r["ok"] and r["messages"] == base[f]["messages"] for f, r in ctx.items())
        starts = sum(
            ctx[f]["ok"] and any(m.get("role") == "compactionSummary" and "pi-shake" in m.get("summary", "")
                                 for m in ctx[f]["messages"][:2])
            for f in compacted
        )
        ok = not edits or (loads == len(files) and same == len(files))
        failed |= not ok
        report.append({"version": version, "honoursEdits": edits, "load": loads, "same": same,
                       "compacted": len(compacted), "startFromSummary": starts, "ok": ok})
        if as_json:
            continue
        if edits:
            print(f"pi {version}: {'ok  ' if ok else 'FAIL'} {same} of {len(files)} files give pi 1.6's "
                  f"context exactly ({loads} load)")
            for f, r in ctx.items():
                if not (r["ok"] and r["messages"] == base[f]["messages"]):
                    print(f"  differs: {Path(f).name} {r.get('error', '')}")
        else:
            print(f"pi {version} (ignores context_edit): {loads} of {len(files)} files load, "
                  f"{same} give pi 1.6's context; {starts} of {len(compacted)} compacted files start "
                  f"from pi-shake's summary")
    if as_json:
        print(json.dumps({"files": len(files), "releases": report}))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
