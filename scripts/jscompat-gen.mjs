// Generates the Rust test tables of src/jscompat/ from real Node behaviour
// (Node 20+; deterministic: a fixed seed, so the output only changes with Node).
// Usage: node scripts/jscompat-gen.mjs > src/jscompat/tests/tables.rs
'use strict';
let seed = 0x5eed1234;
function rnd() { // mulberry32
  seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n) => Math.floor(rnd() * n);
const pick = (a) => a[ri(a.length)];

function rustStr(s) {
  let o = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c >= 0xD800 && c <= 0xDFFF) throw new Error('lone surrogate in Rust literal');
    if (ch === '"') o += '\\"';
    else if (ch === '\\') o += '\\\\';
    else if (c >= 0x20 && c < 0x7f) o += ch;
    else o += '\\u{' + c.toString(16) + '}';
  }
  return o + '"';
}
function wellFormedDeep(v) {
  if (typeof v === 'string') return v.toWellFormed();
  if (Array.isArray(v)) return v.map(wellFormedDeep);
  if (v && typeof v === 'object') {
    const o = Object.create(null);
    for (const k of Object.keys(v)) o[k.toWellFormed()] = wellFormedDeep(v[k]);
    return o;
  }
  return v;
}

// ---------- hand-written JSON texts ----------
const hand = [
  'null', 'true', 'false', '0', '-0', '0.0', '-0.0', '1', '-1', '1.0', '2.50', '100', '1e2', '1E2', '1e+2',
  '0.1', '0.1e1', '-0.5', '1e21', '1E21', '1e20', '123456789012345678901', '999999999999999999999',
  '1e-7', '1e-6', '0.000001', '0.0000001', '1.5e-7', '-1.5e-7', '5e-324', '4.9e-324', '2e-323',
  '1.7976931348623157e308', '2.2250738585072014e-308', '1e300', '123e-20', '0.30000000000000004',
  '123456789012345678901234', '18446744073709551615', '18446744073709551616', '9007199254740991',
  '9007199254740992', '9007199254740993', '-9007199254740993', '-9223372036854775808',
  '-9223372036854775809', '9223372036854775807', '12345678901234567890', '1e16', '1.25e+30',
  '0.000123', '100000000000000000000', '1000000000000000000000', '-1e-300', '3.14159',
  '""', '"abc"', '"a\\"b"', '"\\\\"', '"/"', '"\\/"', '"\\b\\f\\n\\r\\t"', '"\\u0000\\u0001\\u001f"',
  '"\\u007f"', '"\\u0080"', '"é"', '"😀"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\u2028\\u2029"',
  '"\u2028\u2029"', '"日本語"', '"\\u65e5"', '"\\uFFFD"', '"\\ufeff"', '"\u{10FFFF}"', '"\\uDBFF\\uDFFF"',
  '"\\ud83d"', '"\\ude00"', '"a\\ud83dz"', '"\\ud83d\\ud83d\\ude00"', '"\\ude00\\ud83d"', '"\\\\ud83d"',
  '"\\\\\\ud83d"', '"\\\\\\\\ud83d"', '"\\ud83d\\u0041"', '"\\ud83d\\n"', '"\\uD800"', '"\\uDFFF"',
  '["\\ud83d", "x", {"k\\udc00": "\\udbff"}]', '{"a":"\\ud800\\ud800\\udc00\\udc00"}',
  '"\\ud83d\\\\ude00"', '"tab\there"', '"\\u0009"', '"\\u000b"', '"\\u000c"', '"\\"\\\\\\/"',
  '[]', '{}', '[1,2,3]', '[ 1 , 2 ]', ' \r\n\t[ ] ', '[[],[[]],{}]', '[null,true,false,0,"",[],{}]',
  '{"a":1}', '{ "a" : 1 , "b" : [ 1 , { } ] }', '{"a":1,"a":2}', '{"a":1,"b":2,"a":"long string"}',
  '{"a":{"x":1,"x":[1,2,3]},"a":{"y":null}}', '{"\\u0061":1,"a":22}', '{"a":22,"\\u0061":1}',
  '{"__proto__":1}', '{"__proto__":{"a":1},"b":2}', '{"1":1,"01":2,"1":3}', '{"😀":"😀","\\ud83d\\ude00":1}',
  '{"":0,"":""}', '{"a":[{"b":{"c":{"d":[1.5,-0,1e21]}}}]}', '{"k\\n":"v\\t","k\\n":"v"}',
  '{"command":"ls","n":1}', '{"path":"/tmp/x.txt","content":"line1\\nline2\\n"}',
  '{"a":1,"b":2,"a":3,"c":4,"b":5}', '[{"x":1,"x":2},{"x":3,"x":4}]',
  '{"x":[1,2,{"x":1,"y":2,"x":{"z":"zz","z":"z"}}],"x":[[]]}',
  // invalid for JSON.parse
  '{"a":1,}', '[1,]', '01', '1.', '.5', 'NaN', '"\\x"', '{"a"}', "'a'", '', ' ', '"abc', '"\\ud83d',
  '[1 2]', '{"a":1}{', 'tru', '"\\u12"', '"\\u12G4"', '\\ud83d', '{"a":1}\n{"b":2}', '-', '+1', '0x10',
  '"a\u0001b"', '"a\nb"', '1e400', '-1e400', '[1e400]',
];
// objects with many keys (HashMap path) with duplicates
for (let n of [15, 16, 17, 18, 40]) {
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(`"k${i % 13 === 5 ? 1 : i}":${i % 3 ? '"v' + i + '"' : i * 1.5}`);
  for (let i = 0; i < 5; i++) parts.push(`"k${(i * 7) % n}":[${i}]`);
  hand.push('{' + parts.join(',') + '}');
}

// ---------- random JSON texts ----------
const keyPool = ['a', 'b', 'c', 'id', '\\u0061', 'é', '😀', '', 'a\\n', 'x y', '\\"q\\"'];
const numForms = [
  () => String(ri(1000)), () => String(-ri(100000)), () => (ri(100000) / 100).toString(),
  () => (rnd() * 10).toFixed(ri(5)), () => ri(10) + 'e' + (ri(40) - 20), () => (ri(99) + 1) + 'E+' + ri(25),
  () => '-' + ri(10) + '.' + ri(1000) + 'e-' + ri(12), () => '0', () => '-0', () => '0.0',
  () => String(2 ** 53 + ri(5)), () => '1' + '0'.repeat(ri(25)), () => (rnd() * 1000).toPrecision(1 + ri(6)),
];
const strPieces = (lone) => {
  const p = ['a', 'Z', ' ', '/', '\\/', '\\"', '\\\\', '\\n', '\\t', '\\b', '\\f', '\\r', '\\u0000', '\\u001f',
    '\\u0007', '\\u007f', 'é', '日', '😀', '\u2028', '\u00a0', '\\u00e9', '\\u2028', '\\ud83d\\ude00',
    '\\uD834\\uDD1E', '𝄞', '\\u0041', '\ufeff', '\\ufffd', 'xyz', '\\\\ud83d', '\\\\u0041'];
  if (lone) p.push('\\ud83d', '\\udc00', '\\uDBFF', '\\ud800\\ud800');
  return p;
};
function genStr(lone) { let s = '"'; const n = ri(8); const p = strPieces(lone); for (let i = 0; i < n; i++) s += pick(p); return s + '"'; }
const ws = () => pick(['', '', '', ' ', '\n', '\t', '\r\n', '  ']);
function genVal(d, lone) {
  const r = ri(d > 3 ? 6 : 10);
  switch (r) {
    case 0: return pick(['null', 'true', 'false']);
    case 1: case 2: return pick(numForms)();
    case 3: case 4: case 5: return genStr(lone);
    case 6: case 7: { const n = ri(5); const a = []; for (let i = 0; i < n; i++) a.push(ws() + genVal(d + 1, lone) + ws()); return '[' + a.join(',') + ']'; }
    default: { const n = ri(6); const a = []; for (let i = 0; i < n; i++) a.push(ws() + '"' + pick(keyPool) + '"' + ws() + ':' + ws() + genVal(d + 1, lone) + ws()); return '{' + a.join(',') + '}'; }
  }
}
const random = [];
const short = (f) => { for (;;) { const t = f(); if (t.length <= 200) return t; } };
for (let i = 0; i < 70; i++) random.push(short(() => ws() + genVal(0, false) + ws()));
for (let i = 0; i < 25; i++) random.push(short(() => genVal(1, true)));

function stringifyRow(x) {
  let v;
  try { v = JSON.parse(x); } catch (e) { return `    (${rustStr(x)}, None),`; }
  const js = JSON.stringify(v);
  const wf = JSON.stringify(wellFormedDeep(v));
  const strLen = typeof v === 'string' ? `Some(${v.length})` : 'None';
  return `    (${rustStr(x)}, Some((${js === undefined ? 'usize::MAX' : js.length}, ${wf.length}, ${!v}, ${strLen}))),`;
}
const out = [];
out.push('//! @generated by `node scripts/jscompat-gen.mjs` (see that script); do not edit by hand.');
out.push('');
out.push('// @generated by the Node script described in the test module docs (node ' + process.version + ').');
out.push('/// (JSON text, None if JSON.parse throws, else (JSON.stringify(v).length, same after');
out.push('/// String.prototype.toWellFormed on every string and key, !v, v.length if v is a string))');
out.push('pub(super) type StringifyCase = (&\'static str, Option<(usize, usize, bool, Option<usize>)>);');
out.push('#[rustfmt::skip]');
out.push('pub(super) const STRINGIFY_CASES: &[StringifyCase] = &[');
for (const x of hand.concat(random)) out.push(stringifyRow(x));
out.push('];');

// ---------- numbers ----------
const nums = hand.filter((x) => /^-?[0-9]/.test(x)).filter((x) => { try { return typeof JSON.parse(x) === 'number' && isFinite(JSON.parse(x)); } catch (e) { return false; } });
for (let i = 0; i < 60; i++) nums.push(pick(numForms)());
out.push('/// (number literal, JSON.stringify(JSON.parse(literal)))');
out.push('#[rustfmt::skip]');
out.push('pub(super) const NUMBER_CASES: &[(&str, &str)] = &[');
for (const x of nums) out.push(`    (${rustStr(x)}, ${rustStr(JSON.stringify(JSON.parse(x)))}),`);
out.push('];');

// ---------- arbitrary doubles (need serde_json float_roundtrip for exact parsing) ----------
const dv = new DataView(new ArrayBuffer(8));
const dbl = [];
while (dbl.length < 70) {
  for (let j = 0; j < 4; j++) dv.setUint16(j * 2, ri(65536));
  const x = dv.getFloat64(0);
  if (!isFinite(x)) continue;
  const form = pick([(y) => JSON.stringify(y), (y) => y.toPrecision(17), (y) => y.toExponential(19)]);
  dbl.push([form(x), JSON.stringify(x)]);
}
for (let i = 0; i < 20; i++) { const x = rnd() * 10 ** (ri(30) - 15); dbl.push([JSON.stringify(x), JSON.stringify(x)]); }
out.push('/// (literal of an arbitrary double, JSON.stringify(JSON.parse(literal)))');
out.push('#[rustfmt::skip]');
out.push('pub(super) const DOUBLE_CASES: &[(&str, &str)] = &[');
for (const [a, b] of dbl) out.push(`    (${rustStr(a)}, ${rustStr(b)}),`);
out.push('];');

// ---------- whitespace ----------
const wsList = [];
for (let c = 0; c <= 0x10FFFF; c++) { if (c >= 0xD800 && c <= 0xDFFF) continue; if (String.fromCodePoint(c).trim() === '') wsList.push(c); }
out.push('/// Every code point c with String.fromCodePoint(c).trim() === ""');
out.push('#[rustfmt::skip]');
out.push('pub(super) const JS_WHITESPACE: &[u32] = &[' + wsList.map((c) => '0x' + c.toString(16)).join(', ') + '];');
const trimCases = ['', ' ', '\t\n\r', '\u000b\u000c', '\u0085', '\ufeff', '\u00a0\u3000', '\u180e', '\u200b', ' a ', '\u2028\u2029', '\u205f\u202f\u1680', 'x', '\u0000'];
out.push('/// (s, s.trim() === "", s.trim().length)');
out.push('#[rustfmt::skip]');
out.push('pub(super) const TRIM_CASES: &[(&str, bool, usize)] = &[');
for (const s of trimCases) out.push(`    (${rustStr(s)}, ${s.trim() === ''}, ${s.trim().length}),`);
out.push('];');

// ---------- utf16 lengths of raw strings ----------
const chars = ['a', ' ', '\n', 'é', 'ß', '日', '本', '😀', '𝄞', '\u{10FFFF}', '\u{10000}', '\u07ff', '\u0800', '\uffff', '\u0080', '\u007f', '\u0000'];
out.push('/// (string, s.length)');
out.push('#[rustfmt::skip]');
out.push('pub(super) const UTF16_CASES: &[(&str, usize)] = &[');
for (let i = 0; i < 25; i++) { let s = ''; const n = ri(30); for (let j = 0; j < n; j++) s += pick(chars); out.push(`    (${rustStr(s)}, ${s.length}),`); }
out.push('];');

// ---------- dates ----------
const dates = ['2026-03-01T09:15:02.004Z', '2026-03-01T09:15:02Z', '2026-03-01T09:15Z', '2026-03-01T09:15:02.0049Z',
  '2026-03-01T09:15:02.5Z', '2026-03-01T09:15:02.12Z', '2026-03-01T09:15:02.123456789Z', '2026-03-01T09:15:02.1234567891234Z',
  '2026-03-01T09:15:02.004+01:00', '2026-03-01T09:15:02.004-05:30', '2026-03-01T09:15:02.004+0100', '2026-03-01T09:15:02.004+00:00',
  '2026-03-01T09:15:02.004-00:00', '2026-03-01T09:15:02.004+23:59', '2026-03-01T09:15:02.004+24:00', '2026-03-01T09:15:02.004+01:60',
  '2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2024-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-12-31T23:59:59.999Z',
  '2026-03-01T24:00:00Z', '2026-03-01T24:00:00.000Z', '2026-03-01T24:00:00.0001Z', '2026-03-01T24:00:01Z',
  '2026-03-01T23:60:00Z', '2026-03-01T23:59:60Z', '2026-13-01T00:00:00Z', '2026-00-01T00:00:00Z', '2026-03-00T00:00:00Z',
  '2026-03-32T00:00:00Z', '2026-03-01', '2026-03', '2026', '2026-03-01T09:15:02.004z', '2026-03-01t09:15:02.004Z',
  '+002026-03-01T09:15:02.004Z', '-000001-03-01T09:15:02.004Z', '-000000-03-01T00:00:00Z', '1970-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '0000-02-29T12:00:00Z', '1900-02-29T00:00:00Z', '2000-02-29T00:00:00Z',
  '1600-03-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z', '-271821-04-19T23:59:59.999Z', '-271821-04-20T00:00:00.000+01:00',
  '2026-03-01T09:15:02.Z', ' 2026-03-01T09:15:02.004Z', '2026-03-01T09:15:02.004Z ', '2026-3-1T09:15:02.004Z',
  '2026-03-01T9:15:02.004Z', '2026-03-01T09:15:02,004Z', '2026-03-01T09Z', '20260301T091502Z', '2026-03-01T09:15:02.004+01',
  '2026-03-01T09:15:02.004Z+01:00', '', 'Z', 'garbage'];
out.push('/// (s, new Date(s).getTime() or None for NaN)');
out.push('#[rustfmt::skip]');
out.push('pub(super) const DATE_PARSE_CASES: &[(&str, Option<i64>)] = &[');
for (const d of dates) { const t = new Date(d).getTime(); out.push(`    (${rustStr(d)}, ${isNaN(t) ? 'None' : 'Some(' + t + ')'}),`); }
out.push('];');
const msList = [0, -1, 1, 999, 1000, 1772356502004, -62167219200000, -62167219200001, 253402300799999, 253402300800000,
  8.64e15, -8.64e15, 951782400000, 4107542400000, -2208988800000, -12219292800000];
for (let i = 0; i < 20; i++) msList.push(Math.floor((rnd() - 0.5) * 2 * 8.64e15));
for (let i = 0; i < 10; i++) msList.push(Math.floor((rnd() - 0.3) * 4e12));
out.push('/// (ms, new Date(ms).toISOString())');
out.push('#[rustfmt::skip]');
out.push('pub(super) const DATE_FORMAT_CASES: &[(i64, &str)] = &[');
for (const ms of msList) out.push(`    (${ms}, ${rustStr(new Date(ms).toISOString())}),`);
out.push('];');
console.log(out.join('\n'));
