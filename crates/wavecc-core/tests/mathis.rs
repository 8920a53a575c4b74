//! Golden check of the foundation: the built-in 1 Gb/s, 20 ms dumbbell runs near
//! capacity without loss, and with random per-byte loss NewReno follows the Mathis
//! et al. model, goodput = 1.22 MSS / (RTT sqrt(p)), within a factor of 1.5.

use wavecc_core::Config;
use wavecc_core::net::{HEADER_BYTES, LossModel};
use wavecc_core::scenario::builtin;
use wavecc_core::trace::FlowSummary;

fn run(cca: &str, per_byte: f64) -> FlowSummary {
    let mut cfg = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
    cfg.flows[0].cca = cca.into();
    cfg.path.loss.per_byte = per_byte;
    wavecc_core::run(&cfg).summary.flows.remove(0)
}

/// Mathis et al. (1997) with the per-packet loss rate of a full segment.
fn mathis_mbps(f: &FlowSummary, per_byte: f64) -> f64 {
    let mss = 1400.0;
    let p = LossModel::per_byte_probability(per_byte, 1400 + HEADER_BYTES);
    1.22 * mss * 8.0 / (f.mean_rtt_ms / 1e3 * p.sqrt()) / 1e6
}

#[test]
fn loss_free_runs_fill_the_link() {
    for cca in ["newreno", "cubic"] {
        let f = run(cca, 0.0);
        assert!(f.goodput_mbps > 900.0, "{cca}: {f:?}");
        // Payload can never exceed the link's share of payload bytes.
        assert!(
            f.goodput_mbps < 1e3 * 1400.0 / (1400 + HEADER_BYTES) as f64,
            "{cca}: {f:?}"
        );
    }
}

#[test]
fn newreno_follows_the_mathis_model() {
    for per_byte in [1e-8, 1e-7] {
        let f = run("newreno", per_byte);
        let ratio = f.goodput_mbps / mathis_mbps(&f, per_byte);
        assert!(
            (1.0 / 1.5..=1.5).contains(&ratio),
            "p = {per_byte}: ratio {ratio}, {f:?}"
        );
    }
}

#[test]
fn goodput_falls_with_loss() {
    for cca in ["newreno", "cubic"] {
        let g: Vec<f64> = [0.0, 1e-8, 1e-7]
            .iter()
            .map(|&p| run(cca, p).goodput_mbps)
            .collect();
        assert!(g[0] > 2.0 * g[1] && g[1] > 2.0 * g[2], "{cca}: {g:?}");
    }
}
