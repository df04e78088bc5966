//! An older pi on PATH (one that ignores `context_edit`) is named by `status`, `shake` and
//! `dry-run`: a note on stderr, and an `old-pi` warning in `status --json`'s problems. Fake
//! installs in temp dirs, laid out as npm and pnpm lay them out; nothing is run.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::fixture;
use crate::common::*;

/// `<tmp>/lib/node_modules/<package>/` with a package.json and an executable `dist/cli.js`;
/// returns the prefix and the CLI script.
fn fake_package(package: &str, version: &str) -> (PathBuf, PathBuf) {
    let prefix = temp_dir("fake-pi");
    let dir = prefix.join("lib/node_modules").join(package);
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        json!({"name": package, "version": version, "bin": {"pi": "dist/cli.js"}}).to_string(),
    )
    .unwrap();
    let cli = dir.join("dist/cli.js");
    std::fs::write(&cli, "#!/usr/bin/env node\n").unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    (prefix, cli)
}

/// npm's global layout: `<prefix>/bin/pi` → `../lib/node_modules/<package>/dist/cli.js`.
fn npm_install(package: &str, version: &str) -> PathBuf {
    let (prefix, cli) = fake_package(package, version);
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    symlink(&cli, bin.join("pi")).unwrap();
    bin
}

/// `status --json`, `shake` and `dry-run` with `bin` first on PATH: (stderr notes, old-pi
/// problems in the JSON).
fn observe(bin: &Path) -> (Vec<String>, Vec<Value>) {
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let env = [("PATH", path.as_str())];
    let f = copy_fixture(&fixture("tools-large-output.jsonl"));
    let fs = f.to_str().unwrap();
    let st = pi_shake_env(&["status", "--json", fs], &env);
    assert_eq!(st.code, 0, "{}", st.stderr);
    let problems: Vec<Value> = st.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "old-pi")
        .cloned()
        .collect();
    let dry = pi_shake_env(&["dry-run", fs], &env);
    let shake = pi_shake_env(&["shake", fs], &env);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(
        shake.code, 0,
        "an old pi does not block a write: {}",
        shake.stderr
    );
    let notes = [st.stderr, dry.stderr, shake.stderr]
        .into_iter()
        .filter(|e| e.contains("older than"))
        .collect();
    (notes, problems)
}

fn assert_warns(bin: &Path, what: &str) {
    let (notes, problems) = observe(bin);
    assert_eq!(
        notes.len(),
        3,
        "{what}: status, dry-run and shake each warn: {notes:?}"
    );
    assert!(
        notes[0].contains("0.87.0") && notes[0].contains("context_edit"),
        "{}",
        notes[0]
    );
    assert_eq!(problems.len(), 1, "{what}");
    assert_eq!(problems[0]["severity"], "warning");
    assert_eq!(problems[0]["line"], Value::Null);
}

fn assert_quiet(bin: &Path, what: &str) {
    let (notes, problems) = observe(bin);
    assert!(notes.is_empty(), "{what}: {notes:?}");
    assert!(problems.is_empty(), "{what}: {problems:?}");
}

#[test]
fn the_old_package_is_named() {
    assert_warns(
        &npm_install("@mariozechner/pi-coding-agent", "0.73.1"),
        "@mariozechner 0.73.1",
    );
}

#[test]
fn releases_before_0_87_are_named_and_later_ones_are_not() {
    assert_warns(
        &npm_install("@earendil-works/pi-coding-agent", "0.86.1"),
        "0.86.1",
    );
    assert_quiet(
        &npm_install("@earendil-works/pi-coding-agent", "0.87.0"),
        "0.87.0",
    );
    assert_quiet(
        &npm_install("@earendil-works/pi-coding-agent", "1.6.0"),
        "1.6.0",
    );
}

#[test]
fn a_pnpm_shim_is_followed() {
    let (prefix, _) = fake_package("@earendil-works/pi-coding-agent", "0.80.3");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let shim = bin.join("pi");
    std::fs::write(
        &shim,
        "#!/bin/sh\nbasedir=$(dirname \"$(echo \"$0\" | sed -e 's,\\\\,/,g')\")\nexec node  \"$basedir/../lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js\" \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_warns(&bin, "pnpm shim to 0.80.3");
}

#[test]
fn an_unidentified_pi_or_none_is_not_named() {
    let bin = temp_dir("fake-pi-plain");
    let pi = bin.join("pi");
    std::fs::write(&pi, "#!/bin/sh\necho pi\n").unwrap();
    std::fs::set_permissions(&pi, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_quiet(&bin, "a plain script");
    // Not executable: not a command.
    let (prefix, cli) = fake_package("@mariozechner/pi-coding-agent", "0.73.1");
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o644)).unwrap();
    let b = prefix.join("bin");
    std::fs::create_dir_all(&b).unwrap();
    symlink(&cli, b.join("pi")).unwrap();
    assert_quiet(&b, "not executable");
    assert_quiet(&temp_dir("no-pi"), "no pi at all");
}

#[test]
fn the_real_pi_1_6_is_not_named() {
    // The oracle's own install of pi 1.6.0: npm's `node_modules/.bin/pi` link.
    if !need_oracle() {
        return;
    }
    let bin = root().join("tests/interop/node_modules/.bin");
    let found = pi_shake::pi_version::installed_pi(bin.as_os_str()).expect("identified");
    assert_eq!(found.package, "@earendil-works/pi-coding-agent");
    assert_eq!(found.version, "1.6.0");
    assert!(!found.ignores_context_edit());
    assert_quiet(&bin, "pi 1.6.0");
}
