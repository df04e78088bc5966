//! Benchmark (not a test): the System One client against a local wiremock server with a fixed
//! latency per answer, 1,000 pairs, default limits and concurrency. Prints the wall time next to
//! the ideal (batches ÷ concurrency) × latency.
//!
//! Run with `cargo bench --bench jev_latency`. Optional arguments: pairs, latency in ms,
//! concurrency (defaults 1000, 200, 4). Under `cargo test --all-targets` (no `--bench` argument)
//! it runs as a quick smoke test: 100 pairs, 10 ms latency.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line program

#[path = "../tests/e2e/score_support.rs"]
mod score_support;

use std::error::Error;
use std::time::{Duration, Instant};

use pi_shake::score::jev::{JevOptions, SystemOne};
use pi_shake::score::wire::Transport;
use pi_shake::score::{NoProgress, Scorer};
use score_support::{JevEcho, Quirks, request};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

fn arg(n: usize, default: u64) -> u64 {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn Error>> {
    let bench = std::env::args().any(|a| a == "--bench");
    let pairs = usize::try_from(arg(0, if bench { 1_000 } else { 100 }))?;
    let latency = Duration::from_millis(arg(1, if bench { 200 } else { 10 }));
    let concurrency = usize::try_from(arg(2, 4))?;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(JevEcho::new(Quirks {
                latency,
                ..Quirks::default()
            }))
            .mount(&server),
    );

    // Realistic sizes: outputs of 300 to ~7,500 chars in both questions, a 20k-token state.
    let req = request(pairs, 20_000, |i| 300 + (i * 7_919) % 7_200);
    let scorer = SystemOne::with_env(
        JevOptions {
            url: Some(format!("{}/v1/systemone", server.uri())),
            transport: Transport {
                concurrency,
                ..Transport::default()
            },
            ..JevOptions::default()
        },
        &|_| None,
    )?;
    let batches = scorer.planned_requests(&req);
    let lower = pi_shake::score::batch::lower_bound(&req, &scorer.options().transport.limits);
    let bytes: usize = req
        .probes
        .iter()
        .map(|p| p.useful_instructions.len() + p.full_instructions.len())
        .sum();

    let t = Instant::now();
    let scores = scorer.score(&req, &NoProgress)?;
    let wall = t.elapsed();
    if scores.len() != pairs {
        return Err(format!("scored {} of {pairs} pairs", scores.len()).into());
    }

    let lat = latency.as_secs_f64();
    let ideal = batches as f64 / concurrency as f64 * lat;
    let waves = batches.div_ceil(concurrency) as f64 * lat;
    println!(
        "jev_latency: {pairs} pairs, {:.1} MB of questions",
        bytes as f64 / 1e6
    );
    println!(
        "  batches {batches} (packing lower bound {lower}), concurrency {concurrency}, mock latency {:.0} ms",
        lat * 1e3
    );
    println!(
        "  wall time                              {:8.3} s",
        wall.as_secs_f64()
    );
    println!("  (batches ÷ concurrency) × latency      {ideal:8.3} s");
    println!("  ⌈batches ÷ concurrency⌉ × latency      {waves:8.3} s");
    println!(
        "  overhead over the ideal                {:8.3} s ({:+.0}%)",
        wall.as_secs_f64() - ideal,
        (wall.as_secs_f64() / ideal - 1.0) * 100.0
    );
    Ok(())
}
