//! Shell integration: completions and man pages generated from clap, and `examples/aliases.sh`
//! (syntax, and its aliases and pre-compaction routine run end to end against a temporary
//! agent directory).

use std::path::Path;
use std::process::Command;

use crate::common::root;
use crate::common::*;

const COMMANDS: [&str; 9] = [
    "status",
    "shake",
    "dry-run",
    "undo",
    "compact",
    "recall",
    "completions",
    "man",
    "version",
];

#[test]
fn completions_for_every_shell() {
    let a = Agent::new("compl");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let r = a.run(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        for c in COMMANDS {
            assert!(r.stdout.contains(c), "{shell} completions lack `{c}`");
        }
        for flag in ["session-dir", "profile", "max-tokens", "json"] {
            assert!(r.stdout.contains(flag), "{shell} completions lack {flag}");
        }
    }
    // Value completion for enums (profiles, scopes).
    let bash = a.run(&["completions", "bash"]).stdout;
    assert!(bash.contains("default conservative aggressive"));
    assert!(bash.contains("elide thinking images all"));
    // The bash script parses.
    let f = a.root.join("pi-shake.bash");
    std::fs::write(&f, &bash).unwrap();
    let st = Command::new("bash").arg("-n").arg(&f).status().unwrap();
    assert!(st.success());
    assert_eq!(a.run(&["completions", "tcsh"]).code, 2);
}

#[test]
fn man_pages_from_clap() {
    let a = Agent::new("man");
    let r = a.run(&["man"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = &r.stdout;
    assert!(page.contains(".TH pi-shake 1"), "{page}");
    assert!(page.contains(&format!("pi-shake {}", env!("CARGO_PKG_VERSION"))));
    assert!(page.contains(".SH SYNOPSIS") && page.contains(".SH OPTIONS"));
    for c in COMMANDS {
        assert!(
            page.contains(&c.replace('-', "\\-")),
            "main page lacks `{c}`"
        );
    }
    assert!(
        page.contains("Exit codes"),
        "the exit codes (after_help) are on the page"
    );
    let r = a.run(&["man", "shake"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains(".TH pi-shake-shake 1"));
    assert!(r.stdout.contains("\\-\\-profile") && r.stdout.contains("aggressive"));
    assert_eq!(a.run(&["man", "nope"]).code, 2);
    assert_eq!(a.run(&["man", "shake", "--out-dir", "x"]).code, 2);
    // --out-dir writes the main page and one per subcommand.
    let dir = a.root.join("man1");
    let r = a.run(&["man", "--out-dir", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want: Vec<String> = COMMANDS.iter().map(|c| format!("pi-shake-{c}.1")).collect();
    want.push("pi-shake.1".into());
    want.sort();
    assert_eq!(names, want);
    // groff renders it without warnings, when installed.
    if Path::new("/usr/bin/groff").exists() {
        let out = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(dir.join("pi-shake.1"))
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }
}

/// Run `script` in bash with `examples/aliases.sh` sourced and the binary on PATH.
fn with_aliases(a: &Agent, script: &str) -> crate::common::Run {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_pi-shake")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let aliases = root().join("examples/aliases.sh");
    let full = format!(
        "shopt -s expand_aliases\nsource '{}'\n{script}\n",
        aliases.display()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(full)
        .current_dir(&a.project)
        .env("PATH", path)
        .env("PI_CODING_AGENT_DIR", &a.agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("PI_SHAKE_SEED", "42")
        .env("PI_SHAKE_NOW", "2026-11-30T12:00:00.000Z")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    crate::common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn aliases_script_parses_in_bash_and_zsh() {
    let f = root().join("examples/aliases.sh");
    assert!(
        Command::new("bash")
            .arg("-n")
            .arg(&f)
            .status()
            .unwrap()
            .success()
    );
    if Path::new("/usr/bin/zsh").exists() || Path::new("/bin/zsh").exists() {
        assert!(
            Command::new("zsh")
                .arg("-n")
                .arg(&f)
                .status()
                .unwrap()
                .success()
        );
    }
}

#[test]
fn aliases_and_the_pre_compaction_routine_work() {
    let a = Agent::new("aliases");
    let d = a.project_sessions();
    let s = a.place(
        &d,
        "s.jsonl",
        &fixture("long-session.jsonl"),
        None,
        None,
        3600,
    );
    let before = std::fs::read(&s).unwrap();
    // pidry writes nothing; pishake folds the newest session of this directory.
    let r = with_aliases(&a, "pidry && pishake && pils");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("[dry-run] · Shook 47 tool results"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\nShook 47 tool results"), "{}", r.stdout);
    assert!(r.stdout.contains("1 session(s), 0 failed"));
    set_age(&s, 3600);
    // undo → compact → shake, back to back (each step is pi-shake's own recent write).
    let r = with_aliases(&a, "piprecompact");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].starts_with("Restored 47 folded entries"),
        "{}",
        r.stdout
    );
    assert!(lines[1].starts_with("Compacted "), "{}", r.stdout);
    assert!(lines.last().unwrap().starts_with("Shook "), "{}", r.stdout);
    let after = std::fs::read(&s).unwrap();
    assert!(after.starts_with(&before), "append-only");
    // picheck: the CI gate.
    let r = with_aliases(
        &a,
        &format!(
            "PI_SHAKE_BUDGET=1000 picheck '{}'; echo \"rc=$?\"",
            s.display()
        ),
    );
    assert!(r.stdout.contains("rc=6"), "{}", r.stdout);
}
