//! Replay of recorded scores (`--scores-in`) and their writer (`--scores-out`),
//! `docs/jev.md#replay-files`.
//!
//! One JSON line per pair:
//! `{"v":1,"pair":"t17","fp":"sha256:…","source":"jev","model":"jev-1.13.0","tmpl":"tmpl-v1","useful":0.83,"full":0.21}`.
//! `fp` = SHA-256 over the template version, the pair's rendered instructions and the hash of
//! the state, so a replay against a different session, state or template is caught. Lines also
//! carry the pair's identity (`tool`, `entry` / `result`: the ids of the entries holding the call
//! and its result) and the state hash, so a mismatch says what differs.
//!
//! Strict replay refuses, naming every pair that does not match: not recorded, recorded for
//! another tool call, or recorded for another question or state. With `--scores-in-lax`, a
//! changed question or state is accepted, and pairs not recorded (or recorded for another call)
//! are scored by the offline heuristic, with a warning listing them. Recorded pairs that match
//! nothing asked are listed in a warning either way.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::notes::{id_list, settle};
use super::{
    OfflinePair, PairProbe, PairScore, Progress, ScoreNotes, ScoreRequest, ScoreSource, Scorer,
    ScorerError,
};

/// One line of a scores file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLine {
    pub v: u32,
    pub pair: String,
    pub fp: String,
    pub source: ScoreSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub tmpl: String,
    pub useful: f64,
    pub full: f64,
    /// The pair's tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Id of the entry holding the tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Id of the entry holding the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// `sha256:` of the state the pair was asked with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// `sha256:<hex>` of the state JSON.
pub fn state_hash(state_json: &str) -> String {
    format!("sha256:{}", hex(&sha256(state_json.as_bytes())))
}

/// A probe's fingerprint: template, both instructions and the state hash.
pub fn fingerprint(template: &str, probe: &PairProbe, state_json: &str) -> String {
    let mut buf = Vec::new();
    for part in [
        template,
        probe.useful_instructions.as_str(),
        probe.full_instructions.as_str(),
        state_hash(state_json).as_str(),
    ] {
        buf.extend_from_slice(&(part.len() as u64).to_le_bytes());
        buf.extend_from_slice(part.as_bytes());
    }
    format!("sha256:{}", hex(&sha256(&buf)))
}

/// Write `--scores-out`: one line per score whose probe is in `req`, in probe order.
pub fn write_scores(
    path: &Path,
    template: &str,
    req: &ScoreRequest,
    scores: &[PairScore],
) -> Result<()> {
    let by_id: BTreeMap<&str, &PairScore> =
        scores.iter().map(|s| (s.pair_id.as_str(), s)).collect();
    let mut out = String::new();
    let state = state_hash(&req.state_json);
    for p in &req.probes {
        let Some(s) = by_id.get(p.pair.pair_id.as_str()) else {
            continue;
        };
        let line = ScoreLine {
            v: 1,
            pair: p.pair.pair_id.clone(),
            fp: fingerprint(template, p, &req.state_json),
            source: s.source,
            model: s.model.clone(),
            tmpl: template.to_string(),
            useful: s.useful,
            full: s.full,
            tool: Some(p.pair.tool.clone()),
            entry: Some(p.pair.call_entry.clone()).filter(|e| !e.is_empty()),
            result: Some(p.pair.result_entry.clone()).filter(|e| !e.is_empty()),
            state: Some(state.clone()),
        };
        out.push_str(&serde_json::to_string(&line)?);
        out.push('\n');
    }
    let mut f = std::fs::File::create(path)
        .with_context(|| format!("{}: cannot create", path.display()))?;
    f.write_all(out.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

/// The replay scorer.
#[derive(Debug)]
pub struct Replay {
    pub path: PathBuf,
    pub template: String,
    /// Accept fingerprint mismatches; score pairs not recorded offline.
    pub lax: bool,
    lines: BTreeMap<String, ScoreLine>,
    notes: Mutex<ScoreNotes>,
}

impl Replay {
    /// Read a scores file (later lines for the same pair win).
    pub fn from_file(path: &Path, template: &str, lax: bool) -> Result<Replay> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read scores", path.display()))?;
        Replay::from_str(&text, path, template, lax)
    }

    /// Parse scores from text (`path` for messages).
    pub fn from_str(text: &str, path: &Path, template: &str, lax: bool) -> Result<Replay> {
        let mut lines = BTreeMap::new();
        for (i, l) in text.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            let line: ScoreLine = serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a score line", path.display(), i + 1))?;
            if line.v != 1 {
                anyhow::bail!(
                    "{}:{}: unsupported score line version {}",
                    path.display(),
                    i + 1,
                    line.v
                );
            }
            lines.insert(line.pair.clone(), line);
        }
        Ok(Replay {
            path: path.to_path_buf(),
            template: template.to_string(),
            lax,
            lines,
            notes: Mutex::new(ScoreNotes::default()),
        })
    }

    fn err(&self, kind: &str, message: String, partial: Vec<PairScore>) -> ScorerError {
        ScorerError {
            status: None,
            kind: kind.to_string(),
            request_id: None,
            message,
            partial,
        }
    }
}

/// How a recorded line relates to the pair asked under its id.
enum Match<'a> {
    Missing,
    /// Recorded for another call: (recorded entry, this entry).
    OtherCall(&'a str),
    /// Same call, another question or state (`true`: the state differs).
    Changed(&'a ScoreLine, bool),
    Same(&'a ScoreLine),
}

impl Replay {
    fn classify<'a>(&'a self, p: &PairProbe, req: &ScoreRequest, state: &str) -> Match<'a> {
        let Some(line) = self.lines.get(&p.pair.pair_id) else {
            return Match::Missing;
        };
        let differs = |rec: &Option<String>, here: &str| {
            rec.as_deref()
                .is_some_and(|r| !r.is_empty() && !here.is_empty() && r != here)
        };
        if differs(&line.entry, &p.pair.call_entry)
            || differs(&line.result, &p.pair.result_entry)
            || differs(&line.tool, &p.pair.tool)
        {
            return Match::OtherCall(line.entry.as_deref().unwrap_or("?"));
        }
        if line.tmpl != self.template || line.fp != fingerprint(&self.template, p, &req.state_json)
        {
            let state_differs = line.state.as_deref().is_some_and(|s| s != state);
            return Match::Changed(line, state_differs);
        }
        Match::Same(line)
    }

    fn replayed(line: &ScoreLine, id: &str) -> PairScore {
        PairScore {
            pair_id: id.to_string(),
            useful: line.useful,
            full: line.full,
            source: ScoreSource::Replay,
            model: line.model.clone(),
        }
    }

    fn run(
        &self,
        req: &ScoreRequest,
        notes: &mut ScoreNotes,
    ) -> Result<Vec<PairScore>, ScorerError> {
        let state = state_hash(&req.state_json);
        let mut out = Vec::with_capacity(req.probes.len());
        let (mut missing, mut other, mut changed) = (Vec::new(), Vec::new(), Vec::new());
        let mut state_differs = false;
        let mut offline = Vec::new();
        for p in &req.probes {
            let id = p.pair.pair_id.as_str();
            match self.classify(p, req, &state) {
                Match::Same(line) => out.push(Replay::replayed(line, id)),
                Match::Changed(line, st) => {
                    state_differs |= st;
                    changed.push(id.to_string());
                    if self.lax {
                        out.push(Replay::replayed(line, id));
                    }
                }
                Match::Missing => {
                    missing.push(id.to_string());
                    offline.push(OfflinePair {
                        pair: id.to_string(),
                        reason: "not in the scores file".to_string(),
                    });
                }
                Match::OtherCall(entry) => {
                    other.push(format!(
                        "{id} (recorded for entry {entry}, here {})",
                        p.pair.call_entry
                    ));
                    offline.push(OfflinePair {
                        pair: id.to_string(),
                        reason: format!(
                            "the scores file has {id} for another tool call (entry {entry})"
                        ),
                    });
                }
            }
        }
        let asked: BTreeSet<&str> = req.probes.iter().map(|p| p.pair.pair_id.as_str()).collect();
        let extra: Vec<&str> = self
            .lines
            .keys()
            .map(String::as_str)
            .filter(|k| !asked.contains(k))
            .collect();
        if !extra.is_empty() {
            notes.warnings.push(format!(
                "{}: {} recorded score(s) match no pair asked in this session (pinned now, or from another session): {}",
                self.path.display(),
                extra.len(),
                id_list(&extra, 10)
            ));
        }
        let state_note = if state_differs {
            " (the shared state differs: the session changed after the scores were recorded)"
        } else {
            ""
        };
        if self.lax {
            if !changed.is_empty() {
                notes.warnings.push(format!(
                    "{}: {} replayed score(s) were recorded for another question or state{state_note}, accepted by --scores-in-lax: {}",
                    self.path.display(),
                    changed.len(),
                    id_list(&changed, 10)
                ));
            }
            if !missing.is_empty() || !other.is_empty() {
                let mut all = missing.clone();
                all.extend(other.iter().cloned());
                notes.warnings.push(format!(
                    "{}: no matching recorded score for {} pair(s): {}",
                    self.path.display(),
                    all.len(),
                    id_list(&all, 10)
                ));
            }
            return settle(req, Ok(out), offline, notes);
        }
        if missing.is_empty() && other.is_empty() && changed.is_empty() {
            return Ok(out);
        }
        let bad = missing.len() + other.len() + changed.len();
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!("not recorded: {}", id_list(&missing, 10)));
        }
        if !other.is_empty() {
            parts.push(format!(
                "recorded for another tool call: {}",
                id_list(&other, 5)
            ));
        }
        if !changed.is_empty() {
            parts.push(format!(
                "recorded for another question or state{state_note}: {}",
                id_list(&changed, 10)
            ));
        }
        let kind = if other.is_empty() && changed.is_empty() {
            "replay-missing"
        } else {
            "replay-mismatch"
        };
        Err(self.err(
            kind,
            format!(
                "{}: {bad} of {} pair(s) do not match this session; {} (use --scores-in-lax to accept changed questions and score the rest offline)",
                self.path.display(),
                req.probes.len(),
                parts.join("; ")
            ),
            out,
        ))
    }
}

impl Scorer for Replay {
    fn name(&self) -> String {
        format!("replay ({})", self.path.display())
    }

    fn notes(&self) -> ScoreNotes {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn score(
        &self,
        req: &ScoreRequest,
        progress: &dyn Progress,
    ) -> Result<Vec<PairScore>, ScorerError> {
        progress.start(0, req.probes.len());
        let mut notes = ScoreNotes::default();
        let result = self.run(req, &mut notes);
        *self.notes.lock().unwrap_or_else(|e| e.into_inner()) = notes;
        progress.finish();
        result
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (FIPS 180-4), for fingerprints only.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, v) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{NoProgress, PairData};

    #[test]
    fn sha256_vectors() {
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let long = vec![b'a'; 1000];
        assert_eq!(
            hex(&sha256(&long)),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
        );
    }

    fn req() -> ScoreRequest {
        ScoreRequest {
            state_json: "{\"context\":\"x\"}".into(),
            state_tokens: 3,
            probes: vec![PairProbe {
                pair: PairData {
                    pair_id: "t1".into(),
                    index: 0,
                    count: 1,
                    tool: "bash".into(),
                    args: serde_json::json!({"command": "ls"}).into(),
                    output: "a\nb".into(),
                    is_error: false,
                    call_entry: "c".into(),
                    result_entry: "r".into(),
                },
                useful_instructions: "U".into(),
                full_instructions: "F".into(),
                est_tokens: 2,
                lite_cost: None,
            }],
            kept_context: vec![],
        }
    }

    #[test]
    fn round_trip_and_mismatch() {
        let dir = std::env::temp_dir().join(format!("pi-shake-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scores.jsonl");
        let r = req();
        let scores = vec![PairScore {
            pair_id: "t1".into(),
            useful: 0.83,
            full: 0.21,
            source: ScoreSource::Jev,
            model: Some("jev-1.13.0".into()),
        }];
        write_scores(&path, "tmpl-v1", &r, &scores).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("{\"v\":1,\"pair\":\"t1\",\"fp\":\"sha256:"),
            "{text}"
        );
        assert!(
            text.contains("\"tool\":\"bash\",\"entry\":\"c\",\"result\":\"r\",\"state\":\"sha256:"),
            "{text}"
        );
        let replay = Replay::from_file(&path, "tmpl-v1", false).unwrap();
        let got = replay.score(&r, &NoProgress).unwrap();
        assert_eq!(
            (got[0].useful, got[0].full, got[0].source),
            (0.83, 0.21, ScoreSource::Replay)
        );
        let mut changed = r.clone();
        changed.state_json = "{\"context\":\"y\"}".into();
        let e = replay.score(&changed, &NoProgress).unwrap_err();
        assert_eq!(e.kind, "replay-mismatch");
        assert!(
            e.message.contains("the shared state differs"),
            "{}",
            e.message
        );
        let lax = Replay::from_file(&path, "tmpl-v1", true).unwrap();
        assert!(lax.score(&changed, &NoProgress).is_ok());
        assert!(lax.notes().warnings[0].contains("accepted by --scores-in-lax: t1"));
        // Another id: strict names it; lax scores it offline and says so.
        let mut other = r.clone();
        other.probes[0].pair.pair_id = "t9".into();
        let e = replay.score(&other, &NoProgress).unwrap_err();
        assert_eq!(e.kind, "replay-missing");
        assert!(e.message.contains("not recorded: t9"), "{}", e.message);
        let got = lax.score(&other, &NoProgress).unwrap();
        assert_eq!(got[0].source, ScoreSource::Offline);
        let n = lax.notes();
        assert_eq!(n.offline[0].pair, "t9");
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("match no pair asked") && w.contains("t1"))
        );
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("no matching recorded score for 1 pair(s): t9"))
        );
        // Same id, another call: named in both modes, never replayed onto the wrong pair.
        let mut moved = r.clone();
        moved.probes[0].pair.call_entry = "c2".into();
        let e = replay.score(&moved, &NoProgress).unwrap_err();
        assert_eq!(e.kind, "replay-mismatch");
        assert!(
            e.message
                .contains("recorded for another tool call: t1 (recorded for entry c, here c2)"),
            "{}",
            e.message
        );
        let got = lax.score(&moved, &NoProgress).unwrap();
        assert_eq!(got[0].source, ScoreSource::Offline);
        // Files written before identities were recorded still replay.
        let old = text
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                for k in ["tool", "entry", "result", "state"] {
                    v.as_object_mut().unwrap().remove(k);
                }
                v.to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
        let old = Replay::from_str(&old, &path, "tmpl-v1", false).unwrap();
        assert_eq!(
            old.score(&r, &NoProgress).unwrap()[0].source,
            ScoreSource::Replay
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
