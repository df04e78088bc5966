#!/usr/bin/env python3
"""Repeat real sessions' messages into one long session of real pi content (a memory and speed
probe for per-entry costs; not a benchmark fixture: the repeated text is real, the chain is not).

    scripts/repeat_session.py OUT SIZE_BYTES SESSION.jsonl [SESSION.jsonl ...]

The first file's header, then every `message` entry of the inputs in order, over and over, each
with a fresh id and parented on the one before, until OUT holds SIZE_BYTES. Example (the README's
"real content" row): scripts/repeat_session.py /tmp/real-100MB.jsonl 100000000
sessions-fixtures/pi-mono/{before-compaction,large-session,session,compact}.jsonl
"""
import json
import sys


def main() -> None:
    out_path, size, inputs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    header, messages = None, []
    for path in inputs:
        with open(path, "rb") as f:
            for raw in f:
                if not raw.strip():
                    continue
                entry = json.loads(raw)
                if entry.get("type") == "session":
                    header = header or entry
                elif entry.get("type") == "message":
                    messages.append(entry)
    if header is None or not messages:
        sys.exit("no header or no messages in the inputs")
    written, n, parent = 0, 0, None
    with open(out_path, "w") as out:
        out.write(json.dumps(header, separators=(",", ":")) + "\n")
        while written < size:
            for entry in messages:
                n += 1
                entry = dict(entry, id=f"{n:08x}", parentId=parent)
                parent = entry["id"]
                line = json.dumps(entry, separators=(",", ":")) + "\n"
                out.write(line)
                written += len(line)
                if written >= size:
                    break
    print(f"{out_path}: {n} entries, {written} bytes")


if __name__ == "__main__":
    main()
