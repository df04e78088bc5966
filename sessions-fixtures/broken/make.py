#!/usr/bin/env python3
"""Generate the hand-made edge-case pi session files in sessions-fixtures/broken/ and
sessions-fixtures/legacy/, byte-exactly and deterministically.

    python3 sessions-fixtures/broken/make.py

Every file is rebuilt from scratch (ids come from a RNG seeded with the file name, timestamps
from a fixed clock), so re-running produces identical bytes. It also writes
`broken/cases.json` and `legacy/cases.json`: for each file, what it tests and what pi-shake
should do with it (read: ok / warning / error; write: allow / refuse + reason). `observe.mjs`
merges that with what real pi does into `expected.json` and the README tables.

Lines are serialized like pi's `JSON.stringify` (compact, non-ASCII raw). Deliberately invalid
bytes (invalid UTF-8, BOM, CRLF, lone-surrogate escapes, missing final newline) are spliced
in as raw bytes.
"""

import datetime as _dt
import json
import os
import random
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BROKEN = HERE
LEGACY = os.path.join(os.path.dirname(HERE), "legacy")

CWD = "/work/demo"
PROVIDER = "anthropic"
MODEL = "claude-sonnet-4-5"
API = "anthropic-messages"

# Placeholders replaced by raw JSON escapes after serialization (Python cannot encode lone
# surrogates to UTF-8, and we want the exact escape text pi's JSON.stringify would write).
RAW_ESCAPES = {
    "\u0001HI\u0001": b"\\ud83d",  # lone high surrogate escape
    "\u0001LO\u0001": b"\\udc00",  # lone low surrogate escape
    # raw invalid UTF-8 byte sequences
    "\u0001FF\u0001": b"\xff\xfe",          # bytes that never occur in UTF-8
    "\u0001E9\u0001": b"\xe9",              # latin-1 e-acute
    "\u0001OVERLONG\u0001": b"\xc0\xaf",    # overlong '/'
    "\u0001CESU\u0001": b"\xed\xa0\x80",    # UTF-8-encoded surrogate D800
    "\u0001CUT2\u0001": b"\xc3",            # truncated 2-byte sequence
    "\u0001CUT3\u0001": b"\xe2\x80",        # truncated 3-byte sequence
}


def dumps(obj):
    b = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    for ph, raw in RAW_ESCAPES.items():
        # json.dumps escapes U+0001 as \u0001
        b = b.replace(json.dumps(ph, ensure_ascii=False)[1:-1].encode(), raw)
    return b


def usage(inp, out, cache_read=0, cache_write=0):
    # claude-sonnet-4-5 list prices per million tokens: 3 / 15 / 0.3 / 3.75
    c_in, c_out = inp * 3e-6, out * 15e-6
    c_cr, c_cw = cache_read * 0.3e-6, cache_write * 3.75e-6
    r = lambda x: round(x, 6)
    return {
        "input": inp,
        "output": out,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": inp + out + cache_read + cache_write,
        "cost": {
            "input": r(c_in),
            "output": r(c_out),
            "cacheRead": r(c_cr),
            "cacheWrite": r(c_cw),
            "total": r(c_in + c_out + c_cr + c_cw),
        },
    }


class Session:
    """An ordered list of lines (dict entries or raw bytes) with pi-like id/parent/timestamp
    bookkeeping. `add` parents the new entry on the current leaf, like pi's append."""

    def __init__(self, name, version=3, header_extra=None, start="2026-03-02T14:05:11.204Z", with_ids=True):
        self.rng = random.Random(zlib.crc32(name.encode()))
        self.clock = _dt.datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ")
        self.lines = []
        self.leaf = None
        self.used = set()
        self.with_ids = with_ids
        self.toolcalls = 0
        hid = "019cae3b-%04x-7%03x-%04x-%012x" % (
            self.rng.getrandbits(16), self.rng.getrandbits(12),
            0x8000 | self.rng.getrandbits(14), self.rng.getrandbits(48))
        self.header = {"type": "session"}
        if version is not None:
            self.header["version"] = version
        self.header.update({"id": hid, "timestamp": self.iso(), "cwd": CWD})
        if header_extra:
            self.header.update(header_extra)
        self.lines.append(self.header)

    # ---- bookkeeping -------------------------------------------------
    def new_id(self):
        while True:
            i = "%08x" % self.rng.getrandbits(32)
            if i not in self.used:
                self.used.add(i)
                return i

    def tick(self, ms):
        self.clock += _dt.timedelta(milliseconds=ms)

    def iso(self):
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.clock.microsecond // 1000)

    def ms(self):
        epoch = _dt.datetime(1970, 1, 1)
        return int((self.clock - epoch).total_seconds() * 1000)

    def add(self, etype, fields, dt=900, parent="__leaf__", eid=None, move_leaf=True):
        self.tick(dt)
        e = {"type": etype}
        if self.with_ids:
            e["id"] = eid or self.new_id()
            e["parentId"] = self.leaf if parent == "__leaf__" else parent
        e["timestamp"] = self.iso()
        e.update(fields)
        self.lines.append(e)
        if move_leaf and self.with_ids:
            self.leaf = e["id"]
        return e

    def raw(self, b):
        self.lines.append(b)

    # ---- entry helpers -----------------------------------------------
    def model_change(self, provider=PROVIDER, model=MODEL):
        return self.add("model_change", {"provider": provider, "modelId": model}, dt=40)

    def thinking(self, level="medium"):
        return self.add("thinking_level_change", {"thinkingLevel": level}, dt=2)

    def system(self):
        return self.message({
            "role": "system",
            "content": "",
            "sections": {
                "preamble": "You are pi, a coding agent running in the user's terminal. Work in small, verifiable steps and prefer reading code before changing it.",
                "environment": "Current working directory: /work/demo\nPlatform: linux\nDate: 2026-03-02",
            },
            "toolsAdded": [
                {"name": "bash", "description": "Run a shell command in the working directory and return stdout/stderr.",
                 "parameters": {"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]}},
                {"name": "read", "description": "Read a text file, optionally a line range.",
                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"}}, "required": ["path"]}},
            ],
        }, dt=5)

    def message(self, msg, dt=900, **kw):
        self.tick(0)
        m = dict(msg)
        m["timestamp"] = self.ms() + dt
        return self.add("message", {"message": m}, dt=dt, **kw)

    def user(self, text, **kw):
        return self.message({"role": "user", "content": text}, dt=kw.pop("dt", 4200), **kw)

    def assistant(self, blocks, stop="stop", u=(3, 120, 4800, 900), **kw):
        return self.message({
            "role": "assistant", "content": blocks, "api": API, "provider": PROVIDER, "model": MODEL,
            "usage": usage(*u), "stopReason": stop,
        }, dt=kw.pop("dt", 5300), **kw)

    def call(self, name, args):
        self.toolcalls += 1
        cid = "toolu_01%s" % "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789") for _ in range(22))
        return {"type": "toolCall", "id": cid, "name": name, "arguments": args}

    def result(self, call, text, is_error=False, details=None, **kw):
        m = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
             "content": [{"type": "text", "text": text}], "isError": is_error}
        if details is not None:
            m["details"] = details
        return self.message(m, dt=kw.pop("dt", 1400), **kw)

    # ---- output ------------------------------------------------------
    def render(self, eol=b"\n", final_newline=True):
        out = []
        for ln in self.lines:
            out.append(ln if isinstance(ln, bytes) else dumps(ln))
        data = eol.join(out)
        if final_newline:
            data += eol
        return data


# ------------------------------------------------------------------------------------------
# Realistic conversation content
# ------------------------------------------------------------------------------------------

CARGO_FAIL = """   Compiling parser v0.3.1 (/work/demo/crates/parser)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.42s
     Running unittests src/lib.rs (target/debug/deps/parser-5f1c2a9e8b7d3c41)

running 14 tests
test lexer::tests::idents ... ok
test lexer::tests::numbers ... ok
test lexer::tests::raw_strings ... FAILED
test lexer::tests::strings ... ok

failures:

---- lexer::tests::raw_strings stdout ----
thread 'lexer::tests::raw_strings' panicked at crates/parser/src/lexer.rs:212:9:
assertion `left == right` failed
  left: [Error, Ident("hello"), Error]
 right: [RawStr("hello")]

test result: FAILED. 13 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
"""

LEXER_RS = """40\t#[derive(Logos, Debug, Clone, PartialEq)]
41\t#[logos(skip r"[ \\t\\r\\n]+")]
42\tpub enum Token<'s> {
43\t    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
44\t    Ident(&'s str),
45\t    #[regex(r"[0-9]+", |lex| lex.slice().parse().ok())]
46\t    Int(i64),
47\t    #[regex(r#""([^"\\\\]|\\\\.)*""#, |lex| unquote(lex.slice()))]
48\t    Str(String),
49\t    #[token("r#\\"", lex_raw_string)]
50\t    RawStr(String),
51\t    #[error]
52\t    Error,
53\t}
"""

CLIPPY_OK = """    Checking parser v0.3.1 (/work/demo/crates/parser)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.87s
"""


def conversation(s, second_turn=True, tool_result_text=None, read_text=None, call_args=None):
    """header is already there; append the usual setup + one or two turns. Returns a dict of
    named entries."""
    E = {}
    E["model"] = s.model_change()
    E["thinking"] = s.thinking()
    E["system"] = s.system()
    E["u1"] = s.user("The parser tests started failing after I bumped `logos` to 0.14. Can you find out why and fix it?")
    c1 = s.call("bash", call_args or {"command": "cargo test -p parser 2>&1 | tail -25", "timeout": 120})
    E["a1"] = s.assistant([
        {"type": "thinking", "thinking": "Start by reproducing the failure; the bump to logos 0.14 changed how callbacks and the error variant work.", "thinkingSignature": "EqMBCkgIBhABGAIiQHn2c1x0Zk9wq3Lr8Kd+W2pJ"},
        c1,
    ], stop="toolUse", u=(3, 96, 0, 5120))
    E["c1"] = c1
    E["t1"] = s.result(c1, tool_result_text if tool_result_text is not None else CARGO_FAIL, details={"exitCode": 101})
    c2 = s.call("read", {"path": "crates/parser/src/lexer.rs", "offset": 40, "limit": 14})
    E["a2"] = s.assistant([
        {"type": "text", "text": "Only `raw_strings` fails: the lexer now yields `Error` around the literal. Let me look at the token definitions."},
        c2,
    ], stop="toolUse", u=(3, 81, 5120, 402))
    E["c2"] = c2
    E["t2"] = s.result(c2, read_text if read_text is not None else LEXER_RS)
    E["a3"] = s.assistant([
        {"type": "text", "text": "Found it. logos 0.14 removed the `#[error]` variant attribute and callbacks registered with `#[token]` no longer see the rest of the input, so `lex_raw_string` never runs. I moved the raw-string rule to a `#[regex]` with a callback that scans for the closing `\"#` and replaced `#[error]` with `#[logos(error = LexError)]`. `cargo test -p parser` passes now (14/14)."},
    ], stop="stop", u=(3, 142, 5522, 590))
    if second_turn:
        E["u2"] = s.user("Great, please also run clippy on the crate.")
        c3 = s.call("bash", {"command": "cargo clippy -p parser -- -D warnings"})
        E["a4"] = s.assistant([c3], stop="toolUse", u=(3, 44, 6112, 160))
        E["c3"] = c3
        E["t3"] = s.result(c3, CLIPPY_OK, details={"exitCode": 0})
        E["a5"] = s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`. Nothing else to change."}], u=(3, 19, 6272, 120))
    return E


# ------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------

CASES = []   # (dir, filename, bytes, tests, shakeRead, shakeWrite, reason)


def case(directory, name, tests, read, write, reason):
    def deco(fn):
        CASES.append((directory, name, fn, tests, read, write, reason))
        return fn
    return deco


def B(name, tests, read, write, reason=""):
    return case(BROKEN, name, tests, read, write, reason)


def L(name, tests, read, write, reason=""):
    return case(LEGACY, name, tests, read, write, reason)


def std(name, **kw):
    s = Session(name)
    E = conversation(s, **kw)
    return s, E


# ---- last line --------------------------------------------------------------------------

@B("01-truncated-last-line.jsonl", "last line torn mid-JSON (crash during append), no trailing newline",
   "warning", "refuse", "torn last line: appending would glue our line onto the fragment; let pi (or the user) repair it first")
def _(name):
    s, E = std(name)
    full = dumps({"type": "message", "id": s.new_id(), "parentId": s.leaf, "timestamp": "2026-03-02T14:06:30.101Z",
                  "message": {"role": "user", "content": "Now bump the version to 0.3.2 and update the CHANGELOG.", "timestamp": 1772460390101}})
    return s.render() + full[:97]


@B("02-no-trailing-newline.jsonl", "complete, valid last line without the final \\n",
   "warning", "allow", "last line is complete; a writer must first add the missing \\n (pi does the same on open), then append")
def _(name):
    s, E = std(name)
    return s.render(final_newline=False)


@B("03-truncated-last-line-mid-utf8.jsonl", "torn last line that ends inside a multi-byte UTF-8 sequence (decoder sees an incomplete char)",
   "warning", "refuse", "torn last line")
def _(name):
    s, E = std(name)
    full = dumps({"type": "message", "id": s.new_id(), "parentId": s.leaf, "timestamp": "2026-03-02T14:06:30.101Z",
                  "message": {"role": "user", "content": "Merci ! Peux-tu aussi vérifier les tests d’intégration ?", "timestamp": 1772460390101}})
    cut = full.index("vérifier".encode()) + 2  # inside the 2-byte 'é'
    return s.render() + full[:cut]


# ---- malformed / odd lines -------------------------------------------------------------

@B("04-malformed-middle-line.jsonl", "a torn line in the middle (earlier crash); pi later resumed and parented on the entry before it",
   "warning", "allow", "pi skips it and nothing on the active path refers to it")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    leaf_before = s.leaf
    torn = dumps({"type": "message", "id": "9b1d0c2e", "parentId": leaf_before, "timestamp": "2026-03-02T14:06:01.000Z",
                  "message": {"role": "user", "content": "Also run clippy please", "timestamp": 1772460361000}})[:70]
    s.raw(torn)
    s.leaf = leaf_before
    s.user("(resumed) Great, please also run clippy on the crate.")
    c = s.call("bash", {"command": "cargo clippy -p parser -- -D warnings"})
    s.assistant([c], stop="toolUse", u=(3, 44, 6112, 160))
    s.result(c, CLIPPY_OK, details={"exitCode": 0})
    s.assistant([{"type": "text", "text": "Clippy is clean."}], u=(3, 9, 6272, 120))
    return s.render()


@B("05-invalid-utf8-in-text.jsonl", "invalid UTF-8 bytes (0xff 0xfe, latin-1 0xe9, overlong 0xc0 0xaf, CESU surrogate 0xed 0xa0 0x80, truncated 0xc3 / 0xe2 0x80) inside a tool-result text and a user text",
   "warning", "allow", "pi decodes them as U+FFFD; the line parses; our appended lines are unaffected")
def _(name):
    s = Session(name)
    bad = ("stderr: invalid byte in output: \u0001FF\u0001 | latin-1 file name: caf\u0001E9\u0001.txt"
           " | overlong slash: \u0001OVERLONG\u0001 | CESU surrogate: \u0001CESU\u0001 | cut: \u0001CUT2\u0001 end\n")
    E = conversation(s, tool_result_text=bad + CARGO_FAIL[:300])
    E["u2"]["message"]["content"] = "Great \u0001CUT3\u0001 please also run clippy on the crate \u0001FF\u0001"
    return s.render()


@B("06-lone-high-surrogate-in-tool-result.jsonl", "a lone \\ud83d escape (half an emoji from a cut-off stream) inside a tool-result text",
   "warning", "allow", "valid JSON for pi; must be parsed leniently (serde_json rejects it) and counted as 1 UTF-16 unit")
def _(name):
    s = Session(name)
    E = conversation(s, tool_result_text="test result: FAILED. 13 passed; 1 failed " + "\u0001HI\u0001" + "\n" + CARGO_FAIL[-380:])
    return s.render()


@B("07-lone-low-surrogate-in-tool-args.jsonl", "a lone \\udc00 escape inside toolCall arguments (bash command)",
   "warning", "allow", "valid JSON for pi; lenient parse needed; JSON.stringify length of the arguments includes the 6-char escape")
def _(name):
    s = Session(name)
    E = conversation(s, call_args={"command": "grep -rn '" + "\u0001LO\u0001" + "' crates/parser/tests | head -20", "timeout": 120})
    return s.render()


@B("08-lone-surrogates-mixed.jsonl", "lone surrogates everywhere: reversed pair \\udc00\\ud83d in user text, \\ud83d in a tool-call argument key and value, \\udc00 in a tool result, plus a valid pair \\ud83d\\ude00",
   "warning", "allow", "same as 06/07")
def _(name):
    s = Session(name)
    E = conversation(s, call_args={"command": "echo '\u0001HI\u0001 done' && cargo test -p parser 2>&1 | tail -25",
                                   "note\u0001HI\u0001": "x"},
                     tool_result_text="\u0001LO\u0001" + CARGO_FAIL[:420])
    E["u1"]["message"]["content"] = "Reversed pair: \u0001LO\u0001\u0001HI\u0001, valid pair: \U0001F600. The parser tests started failing after I bumped `logos` to 0.14."
    return s.render()


def nested_args(depth):
    return "@@DEEP@@", ("[" * depth + "]" * depth).encode()


@B("09-deep-nesting-1000.jsonl", "toolCall argument holding 1,000 nested arrays (within V8's JSON.stringify stack, beyond serde_json's default recursion limit of 128)",
   "ok", "allow", "pi loads and estimates it; pi-shake must parse without a recursion limit (or with one above V8's) to keep the entry")
def _(name):
    s = Session(name)
    E = conversation(s, call_args={"command": "python3 gen.py", "tree": "@@DEEP@@"})
    return s.render().replace(b'"@@DEEP@@"', b"[" * 1000 + b"]" * 1000)


@B("10-deep-nesting-10000.jsonl", "toolCall argument holding 10,000 nested arrays: JSON.parse accepts it; JSON.stringify (used to estimate tool-call tokens) overflows the stack, but only when that message is estimated",
   "warning", "refuse", "pi loads it (usage-based total), but any context_edit we append makes pi estimate every message and throw RangeError (see 49); /compact already throws")
def _(name):
    s = Session(name)
    E = conversation(s, call_args={"command": "python3 gen.py", "tree": "@@DEEP@@"})
    return s.render().replace(b'"@@DEEP@@"', b"[" * 10000 + b"]" * 10000)


# ---- tree damage -------------------------------------------------------------------------

@B("11-cycle-two-entries.jsonl", "parent cycle a->b->a on the active path (the leaf's ancestors loop)",
   "error", "refuse", "cycle on the active path: pi cannot build the path (V8 aborts after filling memory)")
def _(name):
    s, E = std(name)
    # make a3's parent a5 and keep a5 -> t3 -> a4 -> u2 -> a3: cycle a3 -> a5 -> ... -> a3
    E["a3"]["parentId"] = E["a5"]["id"]
    return s.render()


@B("12-self-parent-leaf.jsonl", "the leaf (last line) has parentId == its own id",
   "error", "refuse", "cycle on the active path (self-parent)")
def _(name):
    s, E = std(name)
    e = s.add("custom", {"customType": "todo-tracker", "data": {"open": 0, "done": 3}})
    e["parentId"] = e["id"]
    return s.render()


@B("13-dangling-parent-mid-path.jsonl", "an entry in the middle of the active path names a parentId that is not in the file",
   "warning", "allow", "pi's branch starts at the orphan and reads back what is appended after the leaf; every overlay targets an entry on that branch")
def _(name):
    s, E = std(name)
    E["u2"]["parentId"] = "5e11a0c7"
    return s.render()


@B("14-duplicate-id-last-line-cycle.jsonl", "the last line reuses the id of an earlier entry on its own path (a writer that generated a colliding id): the id map now points at the new line, whose parent chain leads back to itself",
   "error", "refuse", "duplicated leaf id (and the duplicate makes the active path cyclic)")
def _(name):
    s, E = std(name)
    s.add("custom", {"customType": "shake", "data": {"op": "shake", "folded": 0}}, eid=E["u2"]["id"])
    return s.render()


@B("15-duplicate-id-last-line-no-cycle.jsonl", "the last line reuses the id of an entry on an abandoned branch; no cycle, the leaf resolves to the last line",
   "warning", "refuse", "duplicated leaf id: context edits/parents naming it are ambiguous")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    # abandoned branch from a3
    branch_point = s.leaf
    dead = s.user("Actually, try pinning logos back to 0.13 instead.")
    s.assistant([{"type": "text", "text": "Pinned `logos = \"=0.13.0\"`; the tests pass again."}], u=(3, 22, 6112, 90))
    s.leaf = branch_point
    s.user("No, keep 0.14. Please also run clippy on the crate.")
    c = s.call("bash", {"command": "cargo clippy -p parser -- -D warnings"})
    s.assistant([c], stop="toolUse", u=(3, 44, 6112, 160))
    s.result(c, CLIPPY_OK, details={"exitCode": 0})
    s.add("custom", {"customType": "todo-tracker", "data": {"open": 0, "done": 3}}, eid=dead["id"])
    return s.render()


@B("16-duplicate-id-middle.jsonl", "two entries in the middle share an id: the later one (a sibling written by another process) shadows the original tool result on the active path",
   "warning", "allow", "duplicate not on the leaf: warn (the earlier entry is invisible to pi); never target a duplicated id with a context_edit")
def _(name):
    s, E = std(name)
    t1 = E["t1"]
    dup = {"type": "message", "id": t1["id"], "parentId": t1["parentId"], "timestamp": "2026-03-02T14:05:40.512Z",
           "message": {"role": "toolResult", "toolCallId": E["c1"]["id"], "toolName": "bash",
                       "content": [{"type": "text", "text": "[output re-run by watcher]\ntest result: ok. 14 passed; 0 failed; 0 ignored\n"}],
                       "isError": False, "timestamp": 1772460340512}}
    s.lines.insert(s.lines.index(E["a2"]), dup)
    return s.render()


@B("17-duplicate-id-middle-cycle.jsonl", "a middle entry duplicates the id of its own ancestor (user message): the active path becomes cyclic",
   "error", "refuse", "cycle on the active path")
def _(name):
    s, E = std(name)
    E["t1"]["id"] = E["u1"]["id"]
    E["a2"]["parentId"] = E["u1"]["id"]
    return s.render()


# ---- non-object / falsy lines ------------------------------------------------------------

@B("18-non-object-lines-middle.jsonl", "JSON values that are not objects ([1,2], 42, \"str\", true) as lines in the middle",
   "warning", "allow", "pi keeps them as (useless) entries; they are not on the active path")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    for v in (b"[1,2]", b"42", b'"str"', b"true"):
        s.raw(v)
    s.user("Great, please also run clippy on the crate.")
    s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`."}], u=(3, 12, 6112, 60))
    return s.render()


@B("19-array-last-line.jsonl", "[1,2] as the last line: it becomes pi's leaf (id undefined) and the projection is empty",
   "warning", "refuse", "the leaf is not an entry: anything we parent on 'the last entry' would disagree with pi's empty context")
def _(name):
    s, E = std(name)
    s.raw(b"[1,2]")
    return s.render()


@B("20-falsy-lines.jsonl", "falsy JSON lines null, 0, false, \"\" in the middle (pi skips them)",
   "warning", "allow", "skipped by pi")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    for v in (b"null", b"0", b"false", b'""'):
        s.raw(v)
    s.user("Great, please also run clippy on the crate.")
    s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`."}], u=(3, 12, 6112, 60))
    return s.render()


# ---- BOM / line endings --------------------------------------------------------------------

@B("21-bom-before-header.jsonl", "UTF-8 BOM (EF BB BF) before the header line (Windows editor save)",
   "error", "refuse", "pi rejects the file: not a valid session")
def _(name):
    s, E = std(name)
    return b"\xef\xbb\xbf" + s.render()


@B("22-bom-before-later-line.jsonl", "UTF-8 BOM at the start of a mid-path message line (two files concatenated): JSON.parse rejects it, so the line is skipped and the next entry's parent dangles",
   "warning", "allow", "the BOM line is invisible to pi, so the next entry is an orphan where pi's branch starts; appended entries are on that branch")
def _(name):
    s, E = std(name)
    idx = s.lines.index(E["u2"])
    s.lines[idx] = b"\xef\xbb\xbf" + dumps(E["u2"])
    return s.render()


@B("23-crlf-line-endings.jsonl", "CRLF line endings throughout",
   "warning", "allow", "pi parses CRLF lines (\\r is JSON whitespace); appended lines should use the file's convention or plain \\n")
def _(name):
    s, E = std(name)
    return s.render(eol=b"\r\n")


# ---- header problems -----------------------------------------------------------------------

@B("24-header-without-id.jsonl", "header line without an id",
   "error", "refuse", "not a pi session (pi rejects it)")
def _(name):
    s, E = std(name)
    del s.header["id"]
    return s.render()


@B("25-header-numeric-id.jsonl", "header whose id is a number",
   "error", "refuse", "not a pi session (pi rejects it)")
def _(name):
    s, E = std(name)
    s.header["id"] = 20260302140511
    return s.render()


@B("26-message-before-header.jsonl", "first line is a user message; the header comes second",
   "error", "refuse", "not a pi session (first parsed line must be the header)")
def _(name):
    s, E = std(name)
    s.lines.remove(E["u1"])
    s.lines.insert(0, E["u1"])
    return s.render()


@B("27-second-session-header-later.jsonl", "a second type:\"session\" line in the middle (two sessions concatenated), followed by more entries of the first",
   "warning", "allow", "pi ignores the later header; it is not on the active path")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    s.raw(dumps({"type": "session", "version": 3, "id": "019cae41-0c2d-7b11-9e55-3f2a8c0d41e7", "timestamp": "2026-03-02T14:09:00.000Z", "cwd": "/work/other"}))
    s.user("Great, please also run clippy on the crate.")
    s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`."}], u=(3, 12, 6112, 60))
    return s.render()


@B("28-malformed-line-before-header.jsonl", "a malformed (non-JSON) line before the header line",
   "warning", "allow", "pi skips it and still finds the header")
def _(name):
    s, E = std(name)
    return b"# exported by session-sync v0.2\n" + s.render()


# ---- context_edit shapes ---------------------------------------------------------------------

def with_edit(name, fields):
    s, E = std(name)
    s.add("context_edit", dict({"targetId": E["t1"]["id"]}, **fields), dt=300)
    return s, E


@B("29-context-edit-no-replacement-key.jsonl", "context_edit on a tool result without a replacement key",
   "error", "refuse", "pi crashes projecting it; writing more would not make it usable")
def _(name):
    s, E = with_edit(name, {})
    return s.render()


@B("30-context-edit-replacement-empty-object.jsonl", "context_edit with replacement:{} (no content)",
   "error", "refuse", "pi's projection yields content undefined and estimation crashes")
def _(name):
    s, E = with_edit(name, {"replacement": {}})
    return s.render()


@B("31-context-edit-replacement-bare-array.jsonl", "context_edit whose replacement is a bare block array instead of {content:[...]}",
   "error", "refuse", "pi crashes (content is not iterable) on resume")
def _(name):
    s, E = with_edit(name, {"replacement": [{"type": "text", "text": "[bash output omitted (~150 tokens)]"}]})
    return s.render()


@B("32-context-edit-unknown-target.jsonl", "context_edit whose targetId is not in the file",
   "warning", "allow", "pi ignores it")
def _(name):
    s, E = std(name)
    s.add("context_edit", {"targetId": "c0ffee00", "replacement": None}, dt=300)
    return s.render()


@B("33-context-edit-targets-system-message.jsonl", "hand-written context_edit with replacement:null targeting the system message (appendContextEdit would refuse)",
   "warning", "allow", "pi applies it (the system message vanishes from the projection); pi-shake must never write one")
def _(name):
    s, E = std(name)
    s.add("context_edit", {"targetId": E["system"]["id"], "replacement": None}, dt=300)
    return s.render()


@B("34-context-edit-valid-control.jsonl", "control case: a well-formed context_edit replacing a tool result, as pi-shake would write it",
   "ok", "allow", "")
def _(name):
    s, E = std(name)
    s.add("context_edit", {"targetId": E["t1"]["id"], "replacement": {"content": [{"type": "text", "text": "[bash output omitted (~150 tokens)]"}]}}, dt=300)
    s.add("custom", {"customType": "shake", "data": {"op": "shake", "folded": [E["t1"]["id"]]}}, dt=1)
    return s.render()


# ---- compaction shapes ---------------------------------------------------------------------

SUMMARY = ("## Goal\nFix the parser tests that broke after bumping logos to 0.14.\n\n## Progress\n- raw_strings failed: "
           "`#[token]` callbacks no longer see the rest of the input.\n- Moved the raw-string rule to a `#[regex]` callback; "
           "replaced `#[error]` with `#[logos(error = LexError)]`.\n\n## Next\n- Run clippy.\n\n<read-files>\ncrates/parser/src/lexer.rs\n</read-files>")


def with_compaction(name, fields):
    s, E = std(name)
    f = {"summary": SUMMARY, "firstKeptEntryId": E["u2"]["id"], "tokensBefore": 6391,
         "details": {"readFiles": ["crates/parser/src/lexer.rs"], "modifiedFiles": []}, "fromHook": True}
    f.update(fields)
    for k in [k for k, v in f.items() if v is Ellipsis]:
        del f[k]
    c = s.add("compaction", f, dt=2000)
    s.user("Thanks. Now bump the version to 0.3.2.")
    s.assistant([{"type": "text", "text": "Bumped `crates/parser/Cargo.toml` to 0.3.2 and added a CHANGELOG entry."}], u=(3, 31, 0, 1400))
    return s, E, c


@B("35-compaction-unknown-first-kept.jsonl", "compaction whose firstKeptEntryId is not in the file",
   "warning", "allow", "pi keeps nothing before the compaction (summary only); legal but probably not what the writer meant")
def _(name):
    s, E, c = with_compaction(name, {"firstKeptEntryId": "0badf00d"})
    return s.render()


@B("36-compaction-first-kept-is-self.jsonl", "compaction whose firstKeptEntryId is its own id (retain nothing)",
   "ok", "allow", "documented pi idiom for 'keep nothing'")
def _(name):
    s, E, c = with_compaction(name, {})
    c["firstKeptEntryId"] = c["id"]
    return s.render()


@B("37-compaction-missing-summary.jsonl", "compaction entry without summary, followed by a normal turn",
   "warning", "refuse", "pi loads it while the last usage is newer, but any context_edit we append makes pi estimate the summary and throw (see 51)")
def _(name):
    s, E, c = with_compaction(name, {"summary": ...})
    return s.render()


@B("38-compaction-valid-control.jsonl", "control case: a well-formed hand-written compaction keeping the second turn",
   "ok", "allow", "")
def _(name):
    s, E, c = with_compaction(name, {})
    return s.render()


# ---- unknown types -------------------------------------------------------------------------

@B("39-unknown-entry-type-mid-path.jsonl", "an entry of unknown type (from a newer pi) in the middle of the active path",
   "warning", "allow", "pi indexes it and walks through it; contributes nothing to context")
def _(name):
    s = Session(name)
    E = conversation(s, second_turn=False)
    s.add("checkpoint", {"ref": "git:4f2a9c1", "files": ["crates/parser/src/lexer.rs"]}, dt=200)
    s.user("Great, please also run clippy on the crate.")
    s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`."}], u=(3, 12, 6112, 60))
    return s.render()


@B("40-unknown-entry-type-leaf.jsonl", "an entry of unknown type as the last line (leaf)",
   "warning", "allow", "the leaf is a real entry with an id; our append parents on it like pi's would")
def _(name):
    s, E = std(name)
    s.add("checkpoint", {"ref": "git:4f2a9c1", "files": ["crates/parser/src/lexer.rs"]}, dt=200)
    return s.render()


# ---- empty / garbage -----------------------------------------------------------------------

@B("41-empty-file.jsonl", "0 bytes", "error", "refuse", "not a session yet (pi would write a fresh header into it on open)")
def _(name):
    return b""


@B("42-whitespace-only.jsonl", "only spaces, tabs, CRLF and blank lines", "error", "refuse", "not a pi session")
def _(name):
    return b"\n \n\t\r\n   \n\n"


@B("43-blank-lines-between-entries.jsonl", "blank and whitespace-only lines between entries (and a blank line at the end)",
   "ok", "allow", "pi skips them")
def _(name):
    s, E = std(name)
    out = []
    for i, ln in enumerate(s.lines):
        out.append(ln if isinstance(ln, bytes) else dumps(ln))
        if i % 3 == 1:
            out.append(b"")
        if i % 4 == 2:
            out.append(b"   \t ")
    return b"\n".join(out) + b"\n\n"


@B("44-binary-garbage.jsonl", "4 KiB of random bytes (fixed seed), including \\n bytes",
   "error", "refuse", "not a pi session")
def _(name):
    rng = random.Random(1234)
    return bytes(rng.getrandbits(8) for _ in range(4096))


@B("45-header-only.jsonl", "a file with only the header line", "ok", "allow",
   "empty session: leaf is null; an append gets parentId null (pi would do the same)")
def _(name):
    s = Session(name)
    return s.render()


# ---- message shapes ------------------------------------------------------------------------

@B("46-thinking-block-missing-thinking.jsonl", "assistant thinking block without the `thinking` field (redacted block written by a buggy tool), before the last usage",
   "warning", "refuse", "pi loads it (usage-based total), but any context_edit we append makes pi estimate this block and throw (see 50)")
def _(name):
    s, E = std(name)
    blk = E["a1"]["message"]["content"][0]
    del blk["thinking"]
    blk["redacted"] = True
    return s.render()


@B("47-assistant-content-null.jsonl", "assistant message with content:null (pi projects it as [])",
   "warning", "allow", "pi tolerates it")
def _(name):
    s, E = std(name)
    E["a5"]["message"]["content"] = None
    return s.render()


@B("48-tool-result-without-tool-call.jsonl", "a toolResult whose toolCallId matches no toolCall (the assistant's call was removed by hand)",
   "warning", "allow", "pi loads it (providers may reject the request); pi-shake may fold it like any result")
def _(name):
    s, E = std(name)
    E["a4"]["message"]["content"] = [{"type": "text", "text": "Running clippy now."}]
    E["a4"]["message"]["stopReason"] = "stop"
    return s.render()


# ---- variants that reach pi's estimator ----------------------------------------------------
# pi's context total is usage-based when the last valid assistant usage is newer than every
# context_edit/compaction on the branch; only messages after it are estimated. The shapes below
# crash estimateTokens, so they only bite once they are estimated: after a context_edit (which is
# exactly what pi-shake writes), after a compaction, or when they trail the last usage.

@B("49-deep-nesting-10000-after-context-edit.jsonl", "10,000 nested arrays in toolCall arguments (as in 10) followed by a well-formed context_edit: pi now estimates every message and JSON.stringify overflows",
   "error", "refuse", "pi cannot compute the context of this session; it would also be the state after pi-shake's own first fold of file 10")
def _(name):
    s = Session(name)
    E = conversation(s, call_args={"command": "python3 gen.py", "tree": "@@DEEP@@"})
    s.add("context_edit", {"targetId": E["t2"]["id"], "replacement": {"content": [{"type": "text", "text": "[read output omitted (~160 tokens)]"}]}}, dt=300)
    return s.render().replace(b'"@@DEEP@@"', b"[" * 10000 + b"]" * 10000)


@B("50-thinking-missing-in-trailing-message.jsonl", "the last assistant message (aborted by the user) has a thinking block without `thinking`; it trails the last valid usage, so pi estimates it",
   "error", "refuse", "pi's token estimate throws on it")
def _(name):
    s, E = std(name)
    s.user("One more thing: does the fuzz target still build?")
    s.assistant([{"type": "thinking", "thinkingSignature": "ErUBCkYIBhABGAIiQKz0", "redacted": True}], stop="aborted", u=(0, 0, 0, 0))
    return s.render()


@B("51-compaction-missing-summary-leaf.jsonl", "a compaction without summary as the last line (no assistant reply after it): pi estimates the whole projection and throws",
   "error", "refuse", "pi's token estimate throws on it")
def _(name):
    s, E = std(name)
    s.add("compaction", {"firstKeptEntryId": E["u2"]["id"], "tokensBefore": 6391, "fromHook": True}, dt=2000)
    return s.render()


# ---- legacy --------------------------------------------------------------------------------

@L("01-no-version.jsonl", "header without version (treated as v1), entries already carrying ids, a label and a context_edit referring to ids",
   "warning", "refuse", "version < 3: pi rewrites the file and regenerates every id on open; ids we reference would dangle")
def _(name):
    s = Session(name, version=None)
    E = conversation(s, second_turn=False)
    s.add("label", {"targetId": E["u1"]["id"], "label": "before-fix"}, dt=100)
    s.add("context_edit", {"targetId": E["t1"]["id"], "replacement": {"content": [{"type": "text", "text": "[bash output omitted]"}]}}, dt=100)
    return s.render()


@L("02-v1-compaction-index.jsonl", "version 1: entries without id/parentId, compaction with numeric firstKeptEntryIndex",
   "warning", "refuse", "version < 3: pi migrates and rewrites the file")
def _(name):
    s = Session(name, version=1, with_ids=False)
    E = conversation(s, second_turn=True)
    # index counts the header as 0: point at u2
    idx = s.lines.index(E["u2"])
    s.add("compaction", {"summary": SUMMARY, "firstKeptEntryIndex": idx, "tokensBefore": 6391}, dt=2000)
    s.user("Thanks. Now bump the version to 0.3.2.")
    s.assistant([{"type": "text", "text": "Bumped the crate to 0.3.2."}], u=(3, 12, 0, 1400))
    return s.render()


@L("03-v2-hook-message.jsonl", "version 2 with a message of role hookMessage",
   "warning", "refuse", "version < 3: pi migrates (hookMessage -> custom) and rewrites the file")
def _(name):
    s = Session(name, version=2)
    E = conversation(s, second_turn=False)
    s.message({"role": "hookMessage", "customType": "test-reminder", "content": "Reminder: run `cargo test --workspace` before finishing.", "display": True}, dt=50)
    s.user("Great, please also run clippy on the crate.")
    s.assistant([{"type": "text", "text": "Clippy is clean with `-D warnings`."}], u=(3, 12, 6112, 60))
    return s.render()


@L("04-v4.jsonl", "version 4 (newer than pi 1.6 knows)",
   "warning", "refuse", "unknown newer format: pi 1.6 loads it as is, but we cannot know what a v4 writer expects; refuse to write (read with a warning)")
def _(name):
    s = Session(name, version=4)
    conversation(s)
    return s.render()


@L("05-v99.jsonl", "version 99",
   "warning", "refuse", "unknown newer format")
def _(name):
    s = Session(name, version=99)
    conversation(s)
    return s.render()


@L("06-v3-control.jsonl", "control: the same conversation as a current version 3 file",
   "ok", "allow", "")
def _(name):
    s = Session(name, version=3)
    conversation(s)
    return s.render()


def main():
    manifests = {BROKEN: {}, LEGACY: {}}
    os.makedirs(LEGACY, exist_ok=True)
    for directory, name, fn, tests, read, write, reason in CASES:
        data = fn(name)
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
        manifests[directory][name] = {"tests": tests, "shakeRead": read, "shakeWrite": write, "shakeReason": reason}
    for directory, m in manifests.items():
        with open(os.path.join(directory, "cases.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(m, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print("wrote %d broken + %d legacy files" % (len(manifests[BROKEN]), len(manifests[LEGACY])))


if __name__ == "__main__":
    main()
