//! `tcp.cwnd_validation`: Linux grows the window only while it limits sending; ns-3
//! (which the seeds ran) grows it on every ACK, so an application-limited flow's
//! window climbs without bound there.

use wavecc_core::Config;
use wavecc_core::scenario::builtin;

/// The largest cwnd (segments) of a 100 Mb/s application over the 1 Gb/s dumbbell.
fn peak_cwnd(validation: bool) -> f64 {
    let mut cfg = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
    cfg.duration_s = 5.0;
    cfg.tcp.cwnd_validation = validation;
    cfg.flows[0].cca = "newreno".into();
    cfg.flows[0].app = wavecc_core::scenario::AppKind::Rate;
    cfg.flows[0].rate_bps = Some(100e6);
    let out = wavecc_core::run(&cfg);
    assert!(
        (out.summary.flows[0].goodput_mbps - 100.0).abs() < 5.0,
        "the application sets the rate either way"
    );
    out.flows.cwnd_segments.iter().copied().fold(0.0, f64::max)
}

#[test]
fn an_application_limited_window_grows_only_without_validation() {
    // 100 Mb/s x 20 ms is about 180 segments in flight: with validation, slow start
    // stops at twice the most ever in flight (1,246 segments here, measured).
    let linux = peak_cwnd(true);
    assert!(linux < 2000.0, "{linux}");
    // ns-3's reading: every ACK grows the window, about 8,900 ACKed segments a second.
    let ns3 = peak_cwnd(false);
    assert!(ns3 > 10.0 * linux, "{ns3} vs {linux}");
}
