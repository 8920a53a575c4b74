//! The fixed-point twins against the kernel programs' C, step by step (issue 21).
//!
//! Each BPF program (`bpf/wavecc_*.bpf.c`, hooks and logic headers as loaded into the
//! kernel) is compiled natively with the shims of `tests/bpf_harness/`; the
//! simulator runs the algorithm with `fixed_point = true` and records every hook call
//! its twin makes (the `tcp_sock` fields the program would read, the hook's
//! arguments, the window after it); the harness replays the same calls on the C and
//! every answer (cwnd, ssthresh, the hook's result, and every field of the program's
//! private state) must be equal. No program writes the pacing rate, so there is none
//! to compare.
//!
//! Skipped, with the reason on stderr, when no C compiler (`$CC`, cc, gcc, clang)
//! runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use wavecc_core::Config;
use wavecc_core::cc::fixed::{
    CA_EVENT_LOSS, Hook, HookRecord, TCP_CA_LOSS, TCP_CA_RECOVERY, record_hooks,
};
use wavecc_core::scenario::{GilbertElliottConfig, builtin};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first C compiler that runs, or None.
fn c_compiler() -> Option<String> {
    let candidates = std::env::var("CC")
        .into_iter()
        .chain(["cc", "gcc", "clang"].map(String::from));
    candidates.into_iter().find(|cc| {
        Command::new(cc)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The harness for `wavecc_<name>`, compiled with `cc` into the test's scratch space.
fn harness(cc: &str, name: &str) -> PathBuf {
    let root = repository();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("harness_{name}"));
    let compiled = Command::new(cc)
        .args([
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-parameter",
            "-I",
        ])
        .arg(root.join("tests/bpf_harness/shim"))
        .arg("-I")
        .arg(root.join("python/wavecc/bpf"))
        .arg(format!("-DWAVECC_PROGRAM=\"wavecc_{name}.bpf.c\""))
        .arg(format!("-DWAVECC_OPS=wavecc_{name}"))
        .arg(root.join("tests/bpf_harness/harness.c"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("the compiler runs");
    assert!(
        compiled.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    out
}

/// A run to record: a built-in scenario, its length, and its path's loss.
struct Case {
    scenario: &'static str,
    duration_s: f64,
    per_byte_loss: f64,
    /// Gilbert-Elliott bursts (p_good_to_bad, p_bad_to_good), every packet lost in one.
    bursts: Option<(f64, f64)>,
}

/// The 1 Gb/s dumbbell with random loss (recovery, large windows), with heavy loss,
/// with bursts that lose whole windows (timeouts from the Open state), and the urban
/// mmWave scenario (SINR hints, blockage).
const CASES: [Case; 4] = [
    Case {
        scenario: "dumbbell-1g",
        duration_s: 2.0,
        per_byte_loss: 2e-7,
        bursts: None,
    },
    Case {
        scenario: "dumbbell-1g",
        duration_s: 2.0,
        per_byte_loss: 1e-5,
        bursts: None,
    },
    Case {
        scenario: "dumbbell-1g",
        duration_s: 3.0,
        per_byte_loss: 0.0,
        bursts: Some((2e-5, 1e-4)),
    },
    Case {
        scenario: "urban",
        duration_s: 3.0,
        per_byte_loss: 0.0,
        bursts: None,
    },
];

/// The hook calls of `cca`'s twin in `case`, one flow.
fn record(case: &Case, cca: &str) -> Vec<HookRecord> {
    let mut cfg = Config::from_toml(builtin::get(case.scenario).unwrap()).unwrap();
    cfg.duration_s = case.duration_s;
    cfg.flows.truncate(1);
    cfg.flows[0].cca = cca.into();
    cfg.flows[0].cc = Some(serde_json::json!({ "fixed_point": true }));
    cfg.path.loss.per_byte = case.per_byte_loss;
    cfg.path.loss.gilbert_elliott =
        case.bursts
            .map(|(p_good_to_bad, p_bad_to_good)| GilbertElliottConfig {
                p_good_to_bad,
                p_bad_to_good,
                loss_good: 0.0,
                loss_bad: 1.0,
            });
    record_hooks(|| wavecc_core::run(&cfg)).1
}

/// Replays `records` on the harness and returns its answers, one per record.
fn replay(harness: &Path, records: &[HookRecord]) -> Vec<String> {
    let mut input = String::with_capacity(records.len() * 80);
    for r in records {
        input.push_str(&r.input_line());
        input.push('\n');
    }
    let mut child = Command::new(harness)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "harness failed: {:?}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// How many records satisfy `is`.
fn count(records: &[HookRecord], is: impl Fn(&HookRecord) -> bool) -> usize {
    records.iter().filter(|r| is(r)).count()
}

/// The twin and the C agree on every hook call of `cca` on the scenarios that reach
/// its rules; returns the records for coverage checks.
fn agree(cca: &str) -> Option<Vec<HookRecord>> {
    let Some(cc) = c_compiler() else {
        eprintln!("skipped: no C compiler ($CC, cc, gcc or clang) to build tests/bpf_harness");
        return None;
    };
    let harness = harness(&cc, cca);
    let mut all = Vec::new();
    for case in &CASES {
        let (scenario, records) = (case.scenario, record(case, cca));
        let answers = replay(&harness, &records);
        assert_eq!(
            answers.len(),
            records.len(),
            "{cca} on {scenario}: the harness stopped early"
        );
        for (i, (r, got)) in records.iter().zip(&answers).enumerate() {
            assert_eq!(
                got,
                &r.output_line(),
                "{cca} on {scenario}, call {i}: {}\n(twin: cwnd ssthresh result state = {}, C: {got})",
                r.input_line(),
                r.output_line()
            );
        }
        all.extend(records);
    }
    Some(all)
}

/// The records cover growth in slow start and avoidance, loss reductions and, for
/// the programs whose timeout rule changes the window, `set_state(TCP_CA_Loss)`.
fn assert_coverage(cca: &str, records: &[HookRecord], timeouts_needed: usize) {
    let avoid = |r: &HookRecord| matches!(r.hook, Hook::CongAvoid { .. });
    let avoidance = count(records, |r| {
        avoid(r) && r.before.snd_cwnd >= r.before.snd_ssthresh
    });
    let slow_start = count(records, |r| {
        avoid(r) && r.before.snd_cwnd < r.before.snd_ssthresh
    });
    let losses = count(records, |r| r.hook == Hook::Ssthresh);
    let recoveries = count(records, |r| r.hook == Hook::SetState(TCP_CA_RECOVERY));
    let timeouts = count(records, |r| r.hook == Hook::SetState(TCP_CA_LOSS));
    eprintln!(
        "{cca}: {} calls, avoidance {avoidance}, slow start {slow_start}, losses {losses}, \
         recoveries {recoveries}, timeouts {timeouts}",
        records.len()
    );
    assert!(
        avoidance > 100
            && slow_start > 10
            && losses > 3
            && recoveries > 3
            && timeouts >= timeouts_needed,
        "{cca}: too little covered"
    );
}

#[test]
fn fbtcp_twin_matches_the_bpf_program() {
    let Some(records) = agree("fbtcp") else {
        return;
    };
    assert_coverage("fbtcp", &records, 0);
}

#[test]
fn rttv_twin_matches_the_bpf_program() {
    let Some(records) = agree("rttv") else { return };
    assert_coverage("rttv", &records, 0);
}

#[test]
fn mss_twin_matches_the_bpf_program() {
    let Some(records) = agree("mss") else { return };
    assert_coverage("mss", &records, 1);
}

#[test]
fn mrvhs_twin_matches_the_bpf_program() {
    let Some(records) = agree("mrvhs") else {
        return;
    };
    assert_coverage("mrvhs", &records, 0);
}

#[test]
fn dtcp_twin_matches_the_bpf_program() {
    let Some(records) = agree("dtcp") else { return };
    assert_coverage("dtcp", &records, 1);
    let hints = count(&records, |r| {
        matches!(r.hook, Hook::PktsAcked { .. }) && r.before.sinr.valid == 1
    });
    let without = count(&records, |r| {
        matches!(r.hook, Hook::PktsAcked { .. }) && r.before.sinr.valid == 0
    });
    assert!(
        hints > 1000 && without > 1000,
        "SINR hints {hints}, without {without}"
    );
    assert!(
        count(&records, |r| r.hook == Hook::CwndEvent(CA_EVENT_LOSS)) >= 1,
        "no timeout reset"
    );
}
