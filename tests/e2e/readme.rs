//! The README's quick start shows real output: each `$ cargo run --release -- ARGS` line of its
//! first console block is run (from the repository root, on the shipped example session) and
//! must print exactly the lines under it.

use crate::common::*;

#[test]
fn quick_start_output_is_what_the_binary_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("## Quick start")
        .expect("a quick start section");
    let block = &readme[start..];
    let open = block.find("```console\n").expect("a console block") + "```console\n".len();
    let close = block[open..].find("```").unwrap() + open;
    let mut runs: Vec<(Vec<String>, String)> = Vec::new();
    for line in block[open..close].lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let args = cmd
                .strip_prefix("cargo run --release -- ")
                .unwrap_or_else(|| panic!("not a cargo run line: {cmd}"));
            runs.push((args.split(' ').map(String::from).collect(), String::new()));
        } else {
            let (_, out) = runs.last_mut().expect("output before any command");
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(runs.len() >= 2, "dry-run and status");
    let mut seen = Vec::new();
    for (args, expected) in &runs {
        assert!(
            args.iter().any(|a| a.starts_with("examples/")),
            "runs on the shipped session: {args:?}"
        );
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = crate::common::run_bin(&root(), &argv, &[]);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stderr);
        assert_eq!(&r.stdout, expected, "README quick start for {argv:?}");
        seen.push(args[0].clone());
    }
    assert!(seen.contains(&"dry-run".to_string()) && seen.contains(&"status".to_string()));
    // The example is a real pi session that pi loads unchanged.
    assert_pi_loads(&[root().join("examples/pi-session.jsonl")]);
}
