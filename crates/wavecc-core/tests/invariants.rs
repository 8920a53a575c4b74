//! Invariants of whole runs, property-tested over random paths, losses, TCP
//! options (the opening handshake among them), algorithms and applications: the
//! application receives every byte exactly once and in order, packets are conserved
//! through every queue, and the same seed gives the same run.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use wavecc_core::Config;
use wavecc_core::engine::from_secs;
use wavecc_core::world::World;

/// A random scenario, small enough to run in a few milliseconds.
fn scenario() -> impl Strategy<Value = String> {
    scenario_with(wavecc_core::cc::names(), "linux")
}

/// A random scenario with one of `ccas` on every flow, in the TCP stack `stack`.
fn scenario_with(ccas: Vec<&'static str>, stack: &'static str) -> impl Strategy<Value = String> {
    (
        (prop::sample::select(vec![5e6, 20e6, 100e6]), 0.001f64..0.05, 20_000u64..400_000, any::<bool>()),
        (prop::sample::select(vec![0.0, 1e-6, 1e-5]), prop::sample::select(vec![0.0, 0.01, 0.05]), any::<bool>()),
        (any::<bool>(), any::<bool>(), any::<bool>(), prop::sample::select(ccas)),
        (prop::sample::select(vec!["bulk", "rate", "onoff"]), 1usize..4, 0u64..1000),
    )
        .prop_map(move |((rate, delay, buffer, handshake), (per_byte, per_packet, bursty), (sack, delack, pacing, cca), (app, flows, seed))| {
            let ge = if bursty { "[path.loss.gilbert_elliott]\np_good_to_bad = 0.001\np_bad_to_good = 0.3\n" } else { "" };
            let app_keys = match app {
                "bulk" => String::new(),
                "rate" => format!("rate_bps = {}\n", rate * 1.5),
                _ => format!("rate_bps = {}\non_s = 0.2\noff_s = 0.1\n", rate * 2.0),
            };
            let flow = |i: usize| format!("[[flows]]\ncca = \"{cca}\"\napp = \"{app}\"\n{app_keys}access_delay_s = {}\nstart_s = {}\n", 0.002 * i as f64, 0.3 * i as f64);
            format!(
                "duration_s = 3\nseed = {seed}\n[path]\nrate_bps = {rate}\none_way_delay_s = {delay}\nbuffer_bytes = {buffer}\n\
                 [path.loss]\nper_byte = {per_byte}\nper_packet = {per_packet}\n{ge}\
                 [tcp]\nstack = \"{stack}\"\nsack = {sack}\ndelayed_ack = {delack}\npacing = {pacing}\nmin_rto_s = 0.2\nhandshake = {handshake}\n{}",
                (0..flows).map(flow).collect::<String>()
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn delivery_is_exact_and_packets_are_conserved(toml in scenario()) {
        check_delivery(&Config::from_toml(&toml).unwrap());
    }

    #[test]
    fn the_same_seed_gives_the_same_run(toml in scenario()) {
        check_determinism(&Config::from_toml(&toml).unwrap())?;
    }
}

/// Delivery exactly once and in order and packet conservation, checked at several
/// instants of the run, not only at the end.
fn check_delivery(cfg: &Config) {
    let mut world = World::new(cfg);
    for step in 1..=6 {
        world.run_until(from_secs(0.5 * step as f64));
        world.check_invariants();
    }
}

fn check_determinism(cfg: &Config) -> Result<(), TestCaseError> {
    let (mut a, mut b) = (wavecc_core::run(cfg), wavecc_core::run(cfg));
    a.summary.wall_time_s = 0.0;
    b.summary.wall_time_s = 0.0;
    // Compared through their bits (Debug prints every f64 exactly, NaN included),
    // since NaN != NaN would fail a plain comparison of identical runs.
    prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
    Ok(())
}

/// The same invariants in every other stack (ns-3 3.37's, 3.29's), whose switches
/// change recovery, the pipe, the receive window and each algorithm's rules: every
/// algorithm, a few random scenarios each.
#[test]
fn invariants_hold_in_every_stack_for_every_algorithm() {
    for stack in &wavecc_core::scenario::stack::STACKS[1..] {
        for cca in wavecc_core::cc::names() {
            let mut runner = TestRunner::new(ProptestConfig {
                cases: 6,
                ..ProptestConfig::default()
            });
            runner
                .run(&scenario_with(vec![cca], stack.name), |toml| {
                    let cfg = Config::from_toml(&toml).unwrap();
                    assert_eq!(cfg.tcp.stack, stack.name);
                    check_delivery(&cfg);
                    check_determinism(&cfg)
                })
                .unwrap_or_else(|e| panic!("{cca} in the {} stack: {e}", stack.name));
        }
    }
}

#[test]
fn heavy_loss_exercises_recovery_and_timeouts_without_breaking_delivery() {
    // 5 % packet loss for 20 s: many recoveries, timeouts with back-off, lost
    // retransmissions.
    let toml = "duration_s = 20\n[path]\nrate_bps = 50e6\none_way_delay_s = 0.02\n[path.loss]\nper_packet = 0.05\n[tcp]\nmin_rto_s = 0.2\n[[flows]]\ncca = \"newreno\"\n";
    let cfg = Config::from_toml(toml).unwrap();
    let mut world = World::new(&cfg);
    for s in 1..=20 {
        world.run_until(from_secs(s as f64));
        world.check_invariants();
    }
    let f = &wavecc_core::run(&cfg).summary.flows[0];
    assert!(f.fast_recovery_episodes > 30 && f.rto_events > 0, "{f:?}");
    assert!(f.bytes_delivered > 0);
}

#[test]
fn different_seeds_give_different_lossy_runs() {
    let toml = |seed| {
        format!(
            "seed = {seed}\nduration_s = 5\n[path]\nrate_bps = 20e6\n[path.loss]\nper_byte = 1e-6\n[[flows]]\n"
        )
    };
    let a = wavecc_core::run(&Config::from_toml(&toml(1)).unwrap());
    let b = wavecc_core::run(&Config::from_toml(&toml(2)).unwrap());
    assert_ne!(format!("{:?}", a.events), format!("{:?}", b.events));
}
