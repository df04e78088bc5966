//! Raw command-line arguments (clap derive). Doc comments are the `--help` text.
//!
//! Nothing here is interpreted: [`crate::settings`] resolves these into the settings each
//! command runs with (session paths, profile, thresholds, output mode).

// Doc comments here are `--help` text, where a bare URL reads best.
#![allow(rustdoc::bare_urls)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Fold, undo and compact pi coding-agent sessions without rewriting a byte.
#[derive(Debug, Parser)]
#[command(name = "pi-shake", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print one JSON document on stdout instead of human output
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but errors (and JSON with --json)
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// When to use colour
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
}

/// Exit codes, shown in `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 done (including nothing to do) · 1 unexpected failure · 2 usage error · \
3 not a readable pi session · 4 refused to write (file untouched) · 5 scorer failure · 6 check failed";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the projection, the wall (what is folded) and any problems; writes nothing
    Status(StatusArgs),
    /// Fold heavy old content into short placeholders (appends overlays and one log entry)
    Shake(ShakeArgs),
    /// Say exactly what `shake` would do, and write nothing
    #[command(name = "dry-run")]
    DryRun(ShakeArgs),
    /// Restore everything pi-shake folded, byte for byte (appends; idempotent)
    Undo(UndoArgs),
    /// Replace the dropped prefix with a pruned verbatim transcript (a pi compaction entry)
    Compact(Box<CompactArgs>),
    /// Print a call's whole output by its pi-shake summary id (`t12`), or any message
    Recall(RecallArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write every page with --out-dir
    Man(ManArgs),
    /// Print the version; with --json, the handshake integrations check (protocol, features)
    Version,
}

/// How to find the session(s).
#[derive(Debug, Args, Clone, Default)]
pub struct SessionArgs {
    /// Session id or id prefix, searched as pi does (or a path)
    #[arg(long, value_name = "ID|PREFIX", conflicts_with = "continue")]
    pub session: Option<String>,
    /// The current directory's most recent session (pi's rule)
    #[arg(long, short = 'c')]
    pub r#continue: bool,
    /// Directory holding the sessions (else PI_CODING_AGENT_SESSION_DIR, else the agent dir's)
    #[arg(long)]
    pub session_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Session files (.jsonl); none: list the current directory's sessions
    pub sessions: Vec<PathBuf>,
    #[command(flatten)]
    pub find: SessionArgs,
    /// Every session in the sessions directory
    #[arg(long)]
    pub all: bool,
    /// Fail (exit 6) when a session's projected context exceeds N tokens
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Fail (exit 6) when pi would reject or misread a session, or writing would be refused
    #[arg(long)]
    pub check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    Elide,
    Thinking,
    Images,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    Default,
    Conservative,
    Aggressive,
}

#[derive(Debug, Args)]
pub struct ShakeArgs {
    /// Session files (.jsonl)
    pub sessions: Vec<PathBuf>,
    #[command(flatten)]
    pub find: SessionArgs,
    /// Every session in the sessions directory
    #[arg(long)]
    pub all: bool,
    /// Profile: default (tail 4,000, blocks ≥ 400), conservative (8,000 / 800), aggressive (2,000 / 200)
    #[arg(long, value_enum)]
    pub profile: Option<ProfileArg>,
    /// What to fold (repeatable); shake defaults to elide, dry-run to each scope in turn
    #[arg(long, value_enum)]
    pub scope: Vec<ScopeArg>,
    /// Protected recent tail in tokens (overrides the profile)
    #[arg(long, value_name = "TOKENS")]
    pub tail: Option<u64>,
    /// Minimum size of a fenced block or XML span to fold, in tokens (overrides the profile)
    #[arg(long, value_name = "TOKENS")]
    pub block_min: Option<u64>,
    /// Write even if pi seems to be running on the session
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// Session file (.jsonl)
    pub sessions: Vec<PathBuf>,
    #[command(flatten)]
    pub find: SessionArgs,
    /// Write even if pi seems to be running on the session
    #[arg(long)]
    pub force: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScorerArg {
    /// The embedded deterministic heuristic (no network)
    Offline,
    /// Jev (TypeSafe System One) or a compatible /v1/systemone endpoint
    Jev,
    /// An OpenAI-compatible chat endpoint with JSON-schema output (local models)
    Chat,
    /// Replay scores from --scores-in
    Replay,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnScorerError {
    /// Write nothing and exit 5
    Abort,
    /// Score the unanswered pairs with the embedded scorer
    Offline,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Session file (.jsonl)
    pub sessions: Vec<PathBuf>,
    #[command(flatten)]
    pub find: SessionArgs,
    /// Tokens of recent context pi keeps verbatim (default: pi's settings, else 20,000)
    #[arg(long, value_name = "N")]
    pub keep_recent_tokens: Option<u64>,
    /// Who scores tool-call pairs
    #[arg(long, value_enum, default_value_t = ScorerArg::Offline)]
    pub scorer: ScorerArg,
    /// Print the plan and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the summary (markdown) to FILE: with --dry-run, a preview of what would be
    /// written
    #[arg(long, value_name = "FILE", conflicts_with = "emit_json")]
    pub summary_out: Option<PathBuf>,
    /// Keep threshold for both scores, 0–1 (inclusive)
    #[arg(long, default_value_t = 0.5, value_parser = parse_unit, allow_negative_numbers = true)]
    pub threshold: f64,
    /// Summary budget as a share of the region it replaces, 0 < R ≤ 1 (offline default 0.15)
    #[arg(long, value_name = "R")]
    pub target_ratio: Option<f64>,
    /// Summary budget in tokens (with --target-ratio: the smaller of the two)
    #[arg(long, value_name = "N")]
    pub max_summary_tokens: Option<u64>,
    /// List every dropped call on its own line (default: one line per run of dropped calls)
    #[arg(long)]
    pub breadcrumbs: bool,
    /// Write every pair's scores to FILE (JSONL), for --scores-in
    #[arg(long, value_name = "FILE")]
    pub scores_out: Option<PathBuf>,
    /// Replay scores from FILE (needs --scorer replay; a usage error otherwise)
    #[arg(long, value_name = "FILE")]
    pub scores_in: Option<PathBuf>,
    /// Accept replayed scores whose fingerprints differ; pairs not in FILE are scored offline
    #[arg(long)]
    pub scores_in_lax: bool,
    /// Full URL of the Jev / System One endpoint (default https://api.typesafe.ai/v1/systemone)
    #[arg(long, value_name = "URL")]
    pub jev_url: Option<String>,
    /// Jev model alias or version
    #[arg(long, default_value = "jev-latest")]
    pub jev_model: String,
    /// Requests in flight at once
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Per-request timeout in seconds
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// Full URL of the chat completions endpoint (required by --scorer chat; no default host)
    #[arg(long, value_name = "URL", required_if_eq("scorer", "chat"))]
    pub chat_url: Option<String>,
    /// Chat model name (with --scorer chat)
    #[arg(long)]
    pub chat_model: Option<String>,
    /// What to do when the scorer fails
    #[arg(long, value_enum, default_value_t = OnScorerError::Abort)]
    pub on_scorer_error: OnScorerError,
    /// Allow plain http:// to a host that is not loopback
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Write even if pi seems to be running on the session
    #[arg(long)]
    pub force: bool,
    /// Write nothing; print the compaction entry's fields as one JSON object (for pi's
    /// session_before_compact hook; works while pi runs)
    #[arg(long, conflicts_with = "dry_run")]
    pub emit_json: bool,
    /// Cut where pi cuts: pi's preparation.firstKeptEntryId
    #[arg(long, value_name = "ID")]
    pub first_kept_entry_id: Option<String>,
    /// What to focus on (pi's `/compact <instructions>`): weighed as the newest prompt
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
}

/// `--threshold`: a number within 0–1.
fn parse_unit(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number (expected 0–1)"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is outside 0–1"))
    }
}

impl Cli {
    /// Rules clap cannot state: `--scores-in` is read only by `--scorer replay`, so giving it
    /// to another scorer is a usage error rather than silently ignored.
    pub fn validated(self) -> Result<Cli, clap::Error> {
        use clap::CommandFactory;
        if let Command::Compact(c) = &self.command
            && c.scores_in.is_some()
            && c.scorer != ScorerArg::Replay
        {
            let mut cmd = Cli::command();
            cmd.build();
            let sub = cmd.find_subcommand_mut("compact").map(|c| c.clone());
            let msg = "--scores-in FILE is only read by --scorer replay; add --scorer replay (or drop --scores-in)";
            return Err(match sub {
                Some(mut c) => c.error(clap::error::ErrorKind::ArgumentConflict, msg),
                None => cmd.error(clap::error::ErrorKind::ArgumentConflict, msg),
            });
        }
        Ok(self)
    }
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to print: a pair id from a pi-shake summary's call header (`t12`, `t12_2`: the output
    /// of that call), or an entry id or a unique prefix of one (that message); with --grep it may
    /// be left out (every tool output of the branch is searched)
    #[arg(value_name = "REF", required_unless_present = "grep")]
    pub reference: Option<String>,
    /// Session file (.jsonl)
    #[arg(value_name = "SESSION")]
    pub session_file: Option<PathBuf>,
    #[command(flatten)]
    pub find: SessionArgs,
    /// Print only the lines holding TEXT (ASCII case-insensitive), with their line numbers and the
    /// id of the call that printed them; without REF, from every tool output of the branch (and
    /// every `!` command's)
    #[arg(long, value_name = "TEXT", conflicts_with = "offset")]
    pub grep: Option<String>,
    /// First line to print (from 1)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub offset: u64,
    /// Lines to print at most [default: 2000, or 200 matching lines with --grep; never more than 50 KB
    /// without --all]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Print every line from --offset on, with no line or size cap
    #[arg(long, conflicts_with = "limit")]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// Shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A subcommand's page instead of the main one (e.g. `shake`)
    #[arg(value_parser = ["status", "shake", "dry-run", "undo", "compact", "recall", "completions", "man", "version"])]
    pub command: Option<String>,
    /// Write pi-shake.1 and one page per subcommand into DIR
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out_dir: Option<PathBuf>,
}
