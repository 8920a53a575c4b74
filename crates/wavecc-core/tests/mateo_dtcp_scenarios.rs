//! The built-in scenarios of the Mateo study (Jiménez Mateo et al.) and the D-TCP paper. The papers
//! describe their layouts only in words and blockage durations; these tests check that the
//! geometry we chose gives those durations (from the geometry and, once, from a run), that
//! the handover street and the high-speed road hand over, that the ten-UE application mix
//! runs with every UE receiving data, and that the wired bottleneck and fairness scenarios
//! are what the D-TCP paper describes.

use wavecc_core::radio::{self, LosTest, Obstacle, Point, blocked_intervals};
use wavecc_core::scenario::{AppKind, builtin};
use wavecc_core::{Config, RunOutput};

fn builtin_config(id: &str) -> Config {
    Config::from_toml(builtin::get(id).unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Blocked periods of UE `ue` towards gNB `gnb` from the geometry alone, with `test`
/// (None: the scenario's own LoS test), edges to 0.1 ms.
fn blocked_with(cfg: &Config, ue: usize, gnb: usize, test: Option<LosTest>) -> Vec<(f64, f64)> {
    let r = cfg.radio.as_ref().expect("a radio scenario");
    let obstacles: Vec<Obstacle> = r.obstacles.iter().map(radio::obstacle).collect();
    let [x, y, z] = r.gnbs[gnb].position;
    let traj = radio::trajectory(&r.ues[ue]).unwrap();
    blocked_intervals(
        test.unwrap_or_else(|| radio::los_test(r)),
        Point::new(x, y, z),
        &traj,
        &obstacles,
        cfg.duration_s,
        0.01,
    )
}

fn blocked(cfg: &Config, ue: usize, gnb: usize) -> Vec<(f64, f64)> {
    blocked_with(cfg, ue, gnb, None)
}

/// `got` has one interval per `want` (start, duration), each within `tol` seconds.
fn assert_intervals(what: &str, got: &[(f64, f64)], want: &[(f64, f64)], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?}");
    for (&(a, b), &(start, dur)) in got.iter().zip(want) {
        assert!(
            (a - start).abs() < tol && (b - a - dur).abs() < tol,
            "{what}: {got:?}, want (start, duration) {want:?}"
        );
    }
}

/// The scenario's radio and path with its flows replaced by `flows` (TOML).
fn with_flows(id: &str, duration_s: f64, flows: &str) -> Config {
    let text = builtin::get(id).unwrap();
    let body = &text[..text.find("[[flows]]").expect("flows at the end")];
    let mut cfg = Config::from_toml(&format!("{body}{flows}")).unwrap();
    cfg.duration_s = duration_s;
    cfg
}

fn udp(rate_bps: f64, ue: usize) -> String {
    format!("[[flows]]\napp = \"udp\"\nrate_bps = {rate_bps}\nwrite_bytes = 1400\nue = {ue}\n")
}

fn handover_times(out: &RunOutput, ue: u32) -> Vec<f64> {
    let ev = &out.radio_events;
    (0..ev.t_s.len())
        .filter(|&i| ev.kind[i] == "handover" && ev.ue[i] == ue)
        .map(|i| ev.t_s[i])
        .collect()
}

/// A built-in, its blockages as (start s, length s), and the tolerance on each (s).
type BlockageCase = (&'static str, &'static [(f64, f64)], f64);

#[test]
fn seed_004_single_flow_blockages_last_13_s_4_s_and_a_quarter_second() {
    // "a building creating an extensive blockage of 13 s, ii) two small buildings creating
    // medium-extensive blockages of 4 s each, and iii) 6 small obstacles creating multiple
    // short blockages of 0.25 s each", while the UE walks between 2 and 23 s.
    let cases: [BlockageCase; 3] = [
        ("mateo-building13", &[(6.0, 13.0)], 0.02),
        ("mateo-buildings4", &[(6.5, 4.0), (14.5, 4.0)], 0.02),
        (
            "mateo-obstacles",
            &[
                (4.0, 0.25),
                (7.0, 0.25),
                (10.0, 0.25),
                (13.0, 0.25),
                (16.0, 0.25),
                (19.0, 0.25),
            ],
            0.005,
        ),
    ];
    for (id, want, tol) in cases {
        let cfg = builtin_config(id);
        assert_eq!(cfg.duration_s, 25.0);
        let r = cfg.radio.as_ref().unwrap();
        assert_eq!(
            (
                r.gnbs.len(),
                r.ues.len(),
                r.rlc_buffer_bytes,
                cfg.tcp.min_rto_s
            ),
            (1, 1, 1 << 20, 1.0),
            "{id}"
        );
        // 150 m from the AP, static for 2 s, 21 s at 1.5 m/s, static for 2 s.
        let t = radio::trajectory(&r.ues[0]).unwrap();
        let g = Point::new(r.gnbs[0].position[0], r.gnbs[0].position[1], 0.0);
        let d = |s: f64| Point::new(t.position(s).x, t.position(s).y, 0.0).distance(g);
        assert!(
            (d(0.0) - 150.0).abs() < 0.5 && d(25.0) < 155.0,
            "{id}: {} .. {}",
            d(0.0),
            d(25.0)
        );
        assert_eq!(t.position(0.0), t.position(2.0));
        assert!((t.position(23.0).distance(t.position(2.0)) - 31.5).abs() < 1e-9);
        assert_eq!(t.position(23.0), t.position(25.0));
        assert_intervals(id, &blocked(&cfg, 0, 0), want, tol);
        // Every box is tall enough to block the 3D ray as well.
        assert_intervals(
            id,
            &blocked_with(&cfg, 0, 0, Some(LosTest::Exact3d)),
            want,
            tol,
        );
    }
}

#[test]
fn seed_004_short_blockages_reach_the_run() {
    // The radio sees the same six quarter-second blockages (1 ms channel updates).
    let cfg = with_flows("mateo-obstacles", 25.0, &udp(1e7, 0));
    let out = wavecc_core::run(&cfg);
    let got: Vec<(f64, f64)> = out.summary.ues[0]
        .nlos_intervals_s
        .iter()
        .map(|&[a, b]| (a, b))
        .collect();
    let want = [
        (4.0, 0.25),
        (7.0, 0.25),
        (10.0, 0.25),
        (13.0, 0.25),
        (16.0, 0.25),
        (19.0, 0.25),
    ];
    assert_intervals("mateo-obstacles run", &got, &want, 0.003);
}

#[test]
fn seed_004_handover_street_hands_over_at_lampposts_and_the_truck() {
    let cfg = builtin_config("mateo-handover");
    let r = cfg.radio.as_ref().unwrap();
    assert_eq!(r.gnbs.len(), 3);
    assert_eq!(
        (
            r.gnbs[1].position[0] - r.gnbs[0].position[0],
            r.gnbs[2].position[0] - r.gnbs[1].position[0]
        ),
        (20.0, 20.0)
    );
    assert_eq!(r.handover.time_to_trigger_s, 200e-6);
    assert_eq!((r.rlc_buffer_bytes, cfg.tcp.min_rto_s), (7 << 20, 0.2));
    let truck = r
        .obstacles
        .iter()
        .find(|o| o.class == wavecc_core::radio::ObstacleClass::Vehicle)
        .unwrap();
    assert_eq!(truck.x[1] - truck.x[0], 13.5);
    let lampposts: Vec<f64> = r
        .obstacles
        .iter()
        .filter(|o| o.class == wavecc_core::radio::ObstacleClass::Lamppost)
        .map(|o| o.x[0])
        .collect();
    assert!(
        lampposts
            .windows(2)
            .all(|w| (w[1] - w[0] - 20.0).abs() < 1e-9)
            && lampposts.len() >= 3,
        "{lampposts:?}"
    );
    // AP 1: only short lamppost blockages; AP 2 and AP 3: the truck for long stretches.
    let short = |b: &[(f64, f64)]| b.iter().filter(|(a, e)| e - a < 0.5).count();
    let long = |b: &[(f64, f64)]| b.iter().filter(|(a, e)| e - a > 10.0).count();
    let (b1, b2, b3) = (
        blocked(&cfg, 0, 0),
        blocked(&cfg, 0, 1),
        blocked(&cfg, 0, 2),
    );
    assert!(short(&b1) == b1.len() && b1.len() >= 2, "AP 1: {b1:?}");
    assert!(long(&b2) == 1 && short(&b2) >= 2, "AP 2: {b2:?}");
    assert!(long(&b3) == 1 && short(&b3) >= 1, "AP 3: {b3:?}");
    // A run: the UE starts on AP 1, ends on AP 3, and hands over on the way, also at
    // lampposts (the paper's suboptimal quick handovers).
    let out = wavecc_core::run(&with_flows("mateo-handover", 42.0, &udp(1e7, 0)));
    let ue = &out.summary.ues[0];
    let hos = handover_times(&out, 0);
    assert!(ue.handovers >= 3 && ue.cell == 2, "{ue:?} at {hos:?}");
    assert_eq!(hos.len() as u32, ue.handovers);
    assert!(out.summary.flows[0].bytes_delivered > 0);
}

#[test]
fn seed_004_multiuser_runs_and_every_ue_receives_data() {
    let cfg = builtin_config("mateo-multiuser");
    let r = cfg.radio.as_ref().unwrap();
    assert_eq!((r.gnbs.len(), r.ues.len(), cfg.flows.len()), (4, 10, 10));
    // Table I: UE0 500 Mb/s always on; UEs 2, 4, 5 stream 4 Mb/s 30 s on / 2 s off; the
    // others send 4 Mb/s for 0.8 s every 3 s.
    for (i, f) in cfg.flows.iter().enumerate() {
        assert_eq!(f.ue as usize, i);
        match i {
            0 => assert_eq!(
                (f.app, f.rate_bps, f.stop_s),
                (AppKind::Rate, Some(500e6), None)
            ),
            2 | 4 | 5 => assert_eq!(
                (f.app, f.rate_bps, f.on_s, f.off_s),
                (AppKind::Onoff, Some(4e6), Some(30.0), Some(2.0))
            ),
            _ => assert_eq!(
                (f.app, f.rate_bps, f.on_s, f.off_s),
                (AppKind::Onoff, Some(4e6), Some(0.8), Some(2.2))
            ),
        }
    }
    // UEs 0-5 move, UEs 6-9 stand still.
    for (i, u) in r.ues.iter().enumerate() {
        let t = radio::trajectory(u).unwrap();
        let moved = t.position(0.0).distance(t.position(cfg.duration_s));
        assert!(
            if i < 6 { moved > 20.0 } else { moved == 0.0 },
            "UE{i} moved {moved} m"
        );
    }
    // UE3 crosses shadows again and again.
    let ue3: usize = (0..4).map(|g| blocked(&cfg, 3, g).len()).sum();
    assert!(ue3 >= 10, "UE3 has {ue3} blocked periods");
    let mut short = cfg.clone();
    short.duration_s = 4.0;
    let out = wavecc_core::run(&short);
    // 4 s ends inside an on-period of every flow (see the scenario file): no idle wake-ups.
    assert!(
        out.summary.events < 20_000_000,
        "{} events",
        out.summary.events
    );
    for f in &out.summary.flows {
        assert!(
            f.bytes_delivered > 0,
            "UE{} received nothing: {f:?}",
            f.flow
        );
    }
    // The 500 Mb/s download gets most of it in LoS.
    assert!(
        out.summary.flows[0].goodput_mbps > 250.0,
        "{:?}",
        out.summary.flows[0]
    );
    let cells: Vec<u64> = out
        .summary
        .cells
        .iter()
        .map(|c| c.transport_blocks)
        .collect();
    assert!(
        cells.iter().filter(|&&n| n > 0).count() >= 3,
        "transport blocks per AP {cells:?}"
    );
}

#[test]
fn seed_004_multiuser_moving_ues_hand_over() {
    // The whole 40 s with a light UDP flow per UE: every moving UE (0-5) hands over at
    // least once ("Except UEs 6-9 all UEs experience handovers"), the static ones stay put.
    let flows: String = (0..10).map(|u| udp(1e6, u)).collect();
    let out = wavecc_core::run(&with_flows("mateo-multiuser", 40.0, &flows));
    for ue in &out.summary.ues {
        if ue.ue < 6 {
            assert!(ue.handovers >= 1, "UE{}: {ue:?}", ue.ue);
        }
    }
}

#[test]
fn seed_003_walks_are_blocked_3_s_three_times_or_12_s_then_half_a_second() {
    let cfg = builtin_config("dtcp-small-building");
    assert_intervals(
        "dtcp-small-building",
        &blocked(&cfg, 0, 0),
        &[(5.0, 3.0), (14.0, 3.0), (23.0, 3.0)],
        0.01,
    );
    let cfg = builtin_config("dtcp-large-building");
    assert_intervals(
        "dtcp-large-building",
        &blocked(&cfg, 0, 0),
        &[(7.0, 12.0), (24.0, 0.5)],
        0.01,
    );
    for id in [
        "dtcp-small-building",
        "dtcp-large-building",
        "dtcp-highspeed",
    ] {
        let cfg = builtin_config(id);
        let r = cfg.radio.as_ref().unwrap();
        // The D-TCP paper's Table 4: 10 MB RLC, 1 ms core, 10 ms remote host, a 2 Gb/s source.
        assert_eq!(
            (r.rlc_buffer_bytes, r.s1u_delay_s, cfg.path.one_way_delay_s),
            (10 << 20, 0.001, 0.010),
            "{id}"
        );
        assert_eq!(
            (cfg.flows[0].rate_bps, cfg.flows[0].write_bytes),
            (Some(2e9), Some(1400)),
            "{id}"
        );
    }
}

#[test]
fn seed_003_high_speed_road_hands_over_between_three_gnbs() {
    let cfg = builtin_config("dtcp-highspeed");
    let r = cfg.radio.as_ref().unwrap();
    let t = radio::trajectory(&r.ues[0]).unwrap();
    assert!(
        (t.position(11.0).distance(t.position(10.0)) - 30.0).abs() < 1e-9,
        "108 km/h"
    );
    // The nearest gNB is blocked for under a second at a time.
    for (g, from, to) in [(0, 0.0, 7.0), (1, 8.0, 14.0), (2, 15.0, 22.0)] {
        let b: Vec<(f64, f64)> = blocked(&cfg, 0, g)
            .into_iter()
            .filter(|&(a, _)| a >= from && a < to)
            .collect();
        assert!(
            !b.is_empty() && b.iter().all(|(a, e)| e - a < 1.0),
            "gNB {g}: {b:?}"
        );
    }
    let out = wavecc_core::run(&with_flows("dtcp-highspeed", 22.0, &udp(1e7, 0)));
    let ue = &out.summary.ues[0];
    assert!(
        ue.handovers >= 2 && ue.cell == 2,
        "{ue:?} at {:?}",
        handover_times(&out, 0)
    );
}

#[test]
fn seed_003_bottleneck_and_fairness_are_5_mbps_at_40_ms() {
    let cfg = builtin_config("dtcp-bottleneck");
    assert!(cfg.radio.is_none());
    assert_eq!(
        (
            cfg.path.rate_bps,
            2.0 * cfg.path.one_way_delay_s,
            cfg.path.loss.per_packet,
            cfg.duration_s
        ),
        (5e6, 0.040, 1e-4, 60.0)
    );
    let mut short = cfg.clone();
    short.duration_s = 10.0;
    let out = wavecc_core::run(&short);
    let f = &out.summary.flows[0];
    assert!(f.goodput_mbps > 2.0 && f.goodput_mbps < 5.0, "{f:?}");
    assert!(f.min_rtt_ms > 40.0 && f.min_rtt_ms < 45.0, "{f:?}");

    let cfg = builtin_config("dtcp-fairness");
    assert_eq!(cfg.path.rate_bps, 5e6);
    let starts: Vec<f64> = cfg.flows.iter().map(|f| f.start_s).collect();
    assert_eq!(starts, [0.0, 10.0, 20.0, 30.0, 40.0]);
    assert!(cfg.flows.iter().all(|f| f.cca == "dtcp"));
    let out = wavecc_core::run(&cfg);
    let total: f64 = out
        .summary
        .flows
        .iter()
        .map(|f| f.bytes_delivered as f64)
        .sum::<f64>()
        * 8.0
        / 60.0
        / 1e6;
    assert!(
        out.summary.flows.iter().all(|f| f.bytes_delivered > 0) && total > 4.0 && total < 5.0,
        "{total} Mb/s"
    );
}
