//! Behaviour of the source papers' own algorithms on the built-in 1 Gb/s, 20 ms
//! dumbbell with random per-byte loss 1e-7 (about one segment in 7,000): the
//! RTT-variation family keeps several times NewReno's goodput, FB-TCP (delay-based,
//! one segment off per random loss) stays near capacity with little queueing, and
//! D-TCP beats NewReno. Each figure is the mean of three seeds over 15 s, enough to
//! hold the ordering with margin (single 10 s runs of NewReno range 52-111 Mb/s).
//! Then every name runs on the mmWave scenarios with the papers' 1 Gb/s server.

use wavecc_core::Config;
use wavecc_core::net::HEADER_BYTES;
use wavecc_core::scenario::builtin;

const SEEDS: [u64; 3] = [1, 2, 3];
const DURATION_S: f64 = 15.0;
const PER_BYTE: f64 = 1e-7;

/// Mean goodput (Mb/s) and mean RTT (ms) of one bulk flow over the three seeds.
fn dumbbell(cca: &str) -> (f64, f64) {
    let (mut goodput, mut rtt) = (0.0, 0.0);
    for seed in SEEDS {
        let mut cfg = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
        cfg.seed = seed;
        cfg.duration_s = DURATION_S;
        cfg.flows[0].cca = cca.into();
        cfg.path.loss.per_byte = PER_BYTE;
        let out = wavecc_core::run(&cfg);
        let f = &out.summary.flows[0];
        goodput += f.goodput_mbps;
        rtt += f.mean_rtt_ms;
    }
    (goodput / SEEDS.len() as f64, rtt / SEEDS.len() as f64)
}

/// The most payload the 1 Gb/s link can carry (Mb/s).
fn capacity_mbps() -> f64 {
    1e3 * 1400.0 / (1400 + HEADER_BYTES) as f64
}

#[test]
fn rtt_variation_family_keeps_several_times_newreno() {
    // Measured (15 s, seeds 1-3): NewReno ~80, RTTV ~360, MSS-CCA ~450, MRVHS ~570.
    let (newreno, _) = dumbbell("newreno");
    let mut previous = 0.0;
    for cca in ["rttv", "mss", "mrvhs"] {
        let (g, _) = dumbbell(cca);
        assert!(
            g > 3.0 * newreno,
            "{cca}: {g:.1} Mb/s vs NewReno {newreno:.1}"
        );
        assert!(g < capacity_mbps(), "{cca}: {g:.1}");
        // F grows from RTTV's sqrt(TimeRatio x cwnd) to sqrt(1400 x TimeRatio), and
        // MRVHS then takes less than half off at large windows: each keeps more.
        assert!(g > previous, "{cca}: {g:.1} not above {previous:.1}");
        previous = g;
    }
}

#[test]
fn fbtcp_stays_near_capacity_without_a_standing_queue() {
    // Measured ~880 Mb/s of ~964 (91 %), mean RTT ~21.5 ms on a 20 ms path.
    let (g, rtt) = dumbbell("fbtcp");
    assert!(
        g > 0.85 * capacity_mbps(),
        "{g:.1} Mb/s of {:.1}",
        capacity_mbps()
    );
    assert!(rtt < 1.15 * 20.0, "mean RTT {rtt:.2} ms");
}

#[test]
fn dtcp_beats_newreno() {
    // Measured ~275 vs ~80 Mb/s. With Eq. 12's `x W` term N runs to its bound (the
    // window), so y = 2 / (3N + 1) is near 0: the window sits at the receive window
    // and the buffer overflows (see docs/algorithms.md); the margin is kept modest.
    let (newreno, _) = dumbbell("newreno");
    let (g, _) = dumbbell("dtcp");
    assert!(
        g > 1.5 * newreno,
        "D-TCP {g:.1} Mb/s vs NewReno {newreno:.1}"
    );
}

/// A built-in mmWave scenario, 10 s, one flow of `cca` with the scenario's 1 Gb/s
/// server.
fn mmwave(id: &str, cca: &str) -> wavecc_core::trace::RunOutput {
    let mut cfg = Config::from_toml(builtin::get(id).unwrap()).unwrap();
    cfg.duration_s = 10.0;
    cfg.flows[0].cca = cca.into();
    wavecc_core::run(&cfg)
}

#[test]
fn every_seed_algorithm_runs_on_the_mmwave_scenarios() {
    // 10 s of each covers a blockage: urban 5.06-9.15 s, fbtcp-2 2.33-7.77 s.
    // Measured: NewReno 869 (urban), 554 (fbtcp-2); the five 858-871 and 420-633
    // (D-TCP lowest on fbtcp-2, 0.76 of NewReno, since its multipath channel).
    for id in ["urban", "fbtcp-2"] {
        let newreno = mmwave(id, "newreno").summary.flows[0].goodput_mbps;
        for cca in ["fbtcp", "rttv", "mss", "mrvhs", "dtcp"] {
            let out = mmwave(id, cca);
            let f = &out.summary.flows[0];
            assert_eq!(f.cca, cca);
            assert!(
                f.goodput_mbps > 0.75 * newreno,
                "{id} {cca}: {f:?} (NewReno {newreno:.1})"
            );
            assert!(f.goodput_mbps < 1e3, "{id} {cca}: {f:?}");
            if cca == "dtcp" {
                // The radio's link hints reach D-TCP's normalisation.
                assert!(out.cc.var.contains(&"sinr_db"), "{id}: no SINR traced");
            }
        }
    }
}
