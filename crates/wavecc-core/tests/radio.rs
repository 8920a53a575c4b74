//! Whole runs over the mmWave radio: what TCP and UDP see through blockage, RLC
//! buffers, HARQ, several UEs and handover, and the invariants (exact delivery,
//! packet conservation, determinism) with the radio in the path.

use proptest::prelude::*;
use wavecc_core::engine::from_secs;
use wavecc_core::scenario::builtin;
use wavecc_core::world::World;
use wavecc_core::{Config, RunOutput};

/// A built-in scenario run for `duration_s` (None: its own), with its flows
/// replaced by `extra` (flows, and more radio tables).
fn scenario(id: &str, duration_s: Option<f64>, extra: &str) -> Config {
    let text = builtin::get(id).unwrap();
    let body = &text[..text.find("# The papers' server").expect("flows at the end")];
    let toml = format!("{body}{extra}");
    let mut cfg = Config::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    cfg.duration_s = duration_s.unwrap_or(cfg.duration_s);
    cfg
}

fn udp_flow(rate_bps: f64, ue: u32) -> String {
    format!("[[flows]]\napp = \"udp\"\nrate_bps = {rate_bps}\nwrite_bytes = 1400\nue = {ue}\n")
}

fn tcp_flow(cca: &str) -> String {
    format!("[[flows]]\ncca = \"{cca}\"\napp = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400\n")
}

/// Mean goodput of flow `f` over samples with t in (from, to].
fn goodput_between(out: &RunOutput, f: u32, from: f64, to: f64) -> f64 {
    let rows: Vec<f64> = (0..out.flows.t_s.len())
        .filter(|&i| out.flows.flow[i] == f && out.flows.t_s[i] > from && out.flows.t_s[i] <= to)
        .map(|i| out.flows.goodput_mbps[i])
        .collect();
    rows.iter().sum::<f64>() / rows.len() as f64
}

#[test]
fn udp_at_1g_passes_in_los_and_falls_behind_buildings() {
    let cfg = scenario("fbtcp-2", None, &udp_flow(1e9, 0));
    let out = wavecc_core::run(&cfg);
    // LoS at ~68 m: MCS 28 (3.1 Gb/s PHY), so the 1 Gb/s source passes in full.
    let los = goodput_between(&out, 0, 0.5, 2.0);
    assert!((los - 1000.0).abs() < 20.0, "LoS goodput {los}");
    // Behind the first building (2.33-7.77 s) the SNR is about 75.8 - 20 log10(70)
    // - 35.96 = 3 dB, give or take the beamforming draw: MCS 8-12 (0.5-0.84 Gb/s).
    // The radio is the bottleneck; the RLC buffer fills and overflows.
    let nlos = goodput_between(&out, 0, 3.0, 7.5);
    assert!(nlos > 300.0 && nlos < 800.0, "NLoS goodput {nlos}");
    let ue = &out.summary.ues[0];
    assert!(ue.rlc_drops > 0, "the 2.5 MB RLC buffer overflows in NLoS");
    assert!(
        out.summary.flows[0]
            .losses
            .get("rlc_overflow")
            .copied()
            .unwrap_or(0)
            > 0
    );
}

#[test]
fn uplink_data_costs_the_downlink_one_slot_per_status_prohibit_period() {
    // Behind fbtcp-2's first building (3-7 s) the radio is the bottleneck. The gNB's
    // status reports on the ACKs, requested under the module's 1 ms prohibit timer,
    // take one downlink data opportunity in ten; with the timer at 0 they travel
    // beside data. Under TCP that cost is now within the spread of the flow's own
    // recoveries (seeds 1-3, 3-7 s: 209, 285, 281 Mb/s at 0 against 279, 289, 254 at
    // 1 ms), so it is checked where nothing else moves: UDP, which sends nothing up
    // but the UE's own reports on the downlink TBs,
    // each in an uplink symbol of its own that the downlink loses: with the timer at
    // 0 every TB's poll makes a report and earns a grant, one symbol in each subframe
    // of 22 (the downlink keeps 21/22 = 0.955 of its symbols), with it at 1 ms one
    // per millisecond (0.995): 0.96 of the goodput. With the timer at 0 a report
    // delayed by HARQ is overtaken by the next slot's, and the module's RLC, when
    // asked to, misreads it (radio/acks.rs), which stalls the flow once the misread
    // report leaves a PDU that HARQ gave up on unrepaired: in most seeds, not all
    // (seed 1 runs on at 123 Mb/s, seeds 2-6 stop), so three seeds together.
    let run_misreading = |prohibit: f64, flows: &str, misreads: bool, seed: u64| {
        let mut cfg = scenario("fbtcp-2", Some(7.0), flows);
        cfg.seed = seed;
        let radio = cfg.radio.as_mut().expect("a radio scenario");
        radio.ns3_mmwave.status_prohibit_s = prohibit;
        radio.ns3_mmwave.misread_overtaken_reports = misreads;
        wavecc_core::run(&cfg)
    };
    let run = |prohibit: f64, flows: &str| run_misreading(prohibit, flows, false, 1);
    let tcp = tcp_flow("newreno");
    let (mut misread, mut off) = (0.0, 0.0);
    for seed in 1..=3 {
        let out = run_misreading(0.0, &tcp, true, seed);
        assert!(out.summary.ues[0].misread_status_reports > 0);
        misread += goodput_between(&out, 0, 3.0, 7.0);
        off += goodput_between(&run_misreading(0.0, &tcp, false, seed), 0, 3.0, 7.0);
    }
    assert!(
        misread < 0.5 * off,
        "{off} -> {misread} Mb/s over three seeds"
    );
    let udp = udp_flow(1e9, 0);
    let off = goodput_between(&run(0.0, &udp), 0, 3.0, 7.0);
    let on = goodput_between(&run(0.001, &udp), 0, 3.0, 7.0);
    assert!(off < 0.98 * on && off > 0.94 * on, "{on} -> {off} Mb/s");
}

#[test]
fn nlos_intervals_are_the_seeds_blocked_periods() {
    let cfg = scenario("fbtcp-2", None, &udp_flow(1e8, 0));
    let out = wavecc_core::run(&cfg);
    let got = &out.summary.ues[0].nlos_intervals_s;
    let want = [[2.33, 7.77], [11.0, 16.56], [19.67, 25.36]];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g[0] - w[0]).abs() < 0.06 && (g[1] - w[1]).abs() < 0.06,
            "{got:?}"
        );
    }
}

#[test]
fn tcp_over_the_radio_sees_the_base_rtt_and_delivers_in_order() {
    let cfg = scenario("fbtcp-2", Some(2.0), &tcp_flow("cubic"));
    let mut world = World::new(&cfg);
    for step in 1..=4 {
        world.run_until(from_secs(0.5 * step as f64));
        world.check_invariants();
    }
    let out = wavecc_core::run(&cfg);
    let f = &out.summary.flows[0];
    // 2 x (10 ms Internet + 1 ms S1-U) plus slot alignment, HARQ and the uplink grant.
    assert!(
        f.min_rtt_ms > 22.0 && f.min_rtt_ms < 24.0,
        "min RTT {}",
        f.min_rtt_ms
    );
    assert!(f.goodput_mbps > 300.0, "goodput {}", f.goodput_mbps);
}

#[test]
fn the_scheduler_shares_a_cell_between_two_saturating_ues() {
    // Two UEs side by side in LoS, each offered 3 Gb/s: about half of the cell each.
    let radio = "[[radio.ues]]\nposition = [0.0, 60.0, 1.5]\n";
    let mut flows = udp_flow(3e9, 0);
    flows += &udp_flow(3e9, 1);
    for sched in ["rr", "pf"] {
        let mut cfg = scenario("fbtcp-1", Some(1.0), &(radio.to_string() + &flows));
        let r = cfg.radio.as_mut().unwrap();
        r.scheduler = serde_json::from_value(serde_json::json!(sched)).unwrap();
        r.obstacles.clear();
        let out = wavecc_core::run(&cfg);
        let (a, b) = (
            out.summary.flows[0].goodput_mbps,
            out.summary.flows[1].goodput_mbps,
        );
        assert!(
            a > 1000.0 && b > 1000.0 && (a - b).abs() / (a + b) < 0.1,
            "{sched}: {a} {b}"
        );
        assert!(a + b < 3135.0, "{sched}: more than the PHY peak: {a} + {b}");
    }
}

#[test]
fn a_ue_walking_between_two_gnbs_hands_over_without_losing_packets() {
    let cfg = scenario(
        "fbtcp-1",
        Some(6.0),
        &("[[radio.gnbs]]\nposition = [60.0, 0.0, 15.0]\n".to_string() + &tcp_flow("cubic")),
    );
    let mut cfg = cfg;
    let r = cfg.radio.as_mut().unwrap();
    r.obstacles.clear();
    // From near gNB 0 to near gNB 1 at 15 m/s.
    r.ues[0].position = [5.0, 10.0, 1.5];
    r.ues[0].legs = serde_json::from_value(serde_json::json!([{"at_s": 0.5, "velocity": [15.0, 0.0, 0.0]}, {"at_s": 4.0, "velocity": [0.0, 0.0, 0.0]}])).unwrap();
    let out = wavecc_core::run(&cfg);
    let ue = &out.summary.ues[0];
    // It ends on gNB 1. Near the midpoint the two links' beamforming draws (redrawn
    // every 100 ms, 10-90% spread 6 dB) could beat the 3 dB hysteresis either way; the
    // 200 ms measurement filter keeps ping-pong rare.
    assert!(
        ue.handovers >= 1 && ue.handovers <= 3 && ue.cell == 1,
        "{ue:?}"
    );
    assert!(!out.summary.flows[0].losses.contains_key("handover"));
    let handovers: Vec<f64> = (0..out.radio_events.t_s.len())
        .filter(|&i| out.radio_events.kind[i] == "handover")
        .map(|i| out.radio_events.t_s[i])
        .collect();
    assert_eq!(handovers.len() as u32, ue.handovers);
    // The UE crosses the midpoint (30 m) at 0.5 + 25/15 = 2.17 s: every handover
    // happens around it, none while one gNB is clearly nearer.
    assert!(
        handovers.iter().all(|&t| t > 1.3 && t < 3.0),
        "handovers at {handovers:?}"
    );
    assert!(out.summary.flows[0].goodput_mbps > 300.0);
}

#[test]
fn the_handover_filter_damps_ping_pong_from_beamforming_draws() {
    let run = |filter_s: f64| {
        let mut cfg = scenario(
            "fbtcp-1",
            Some(6.0),
            &("[[radio.gnbs]]\nposition = [60.0, 0.0, 15.0]\n".to_string() + &udp_flow(1e8, 0)),
        );
        let r = cfg.radio.as_mut().unwrap();
        // The wideband channel's independent 100 ms draws (10-90% 6 dB apart) are what
        // makes a raw measurement ping-pong; fbtcp-1 itself uses the multipath channel.
        r.ns3_mmwave.channel = wavecc_core::scenario::Ns3Channel::Wideband;
        r.obstacles.clear();
        r.handover.filter_s = filter_s;
        r.ues[0].position = [5.0, 10.0, 1.5];
        r.ues[0].legs = serde_json::from_value(serde_json::json!([{"at_s": 0.5, "velocity": [15.0, 0.0, 0.0]}, {"at_s": 4.0, "velocity": [0.0, 0.0, 0.0]}])).unwrap();
        wavecc_core::run(&cfg).summary.ues[0].handovers
    };
    let (raw, filtered) = (run(0.0), run(0.2));
    assert!(
        filtered >= 1 && filtered < raw,
        "raw {raw}, filtered {filtered}"
    );
}

#[test]
fn handover_without_forwarding_drops_the_rlc_buffer() {
    let mut cfg = scenario(
        "fbtcp-1",
        Some(4.0),
        &("[[radio.gnbs]]\nposition = [60.0, 0.0, 15.0]\n".to_string() + &udp_flow(1e9, 0)),
    );
    let r = cfg.radio.as_mut().unwrap();
    r.obstacles.clear();
    r.handover.forwarding = wavecc_core::scenario::Forwarding::Drop;
    r.ues[0].position = [5.0, 10.0, 1.5];
    r.ues[0].legs =
        serde_json::from_value(serde_json::json!([{"at_s": 0.5, "velocity": [15.0, 0.0, 0.0]}]))
            .unwrap();
    let mut world = World::new(&cfg);
    world.run_until(from_secs(4.0));
    world.check_invariants();
    let out = wavecc_core::run(&cfg);
    assert!(
        out.summary.flows[0]
            .losses
            .get("handover")
            .copied()
            .unwrap_or(0)
            > 0,
        "{:?}",
        out.summary.flows[0].losses
    );
}

#[test]
fn sinr_reaches_cross_layer_algorithms_and_the_traces() {
    let cfg = scenario("fbtcp-2", Some(4.0), &tcp_flow("cubic"));
    let out = wavecc_core::run(&cfg);
    let u = &out.ues;
    assert_eq!(u.t_s.len(), 40);
    // LoS at 68 m: 30 dBm - 61.4 - 20 log10(71) + ~28 dB beamforming + 79 dBm noise ~ 38 dB.
    assert!(
        u.sinr_db[5] > 25.0 && u.sinr_db[5] < 50.0,
        "{}",
        u.sinr_db[5]
    );
    assert!(u.los[5] && !u.los[30], "LoS at 0.6 s, blocked at 3.1 s");
    assert_eq!(u.mcs[5], 28);
    assert!(out.summary.ues[0].mean_sinr_db.is_finite());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Exact delivery and conservation through RLC, HARQ and ARQ, at several instants,
    /// with RLC retransmitting byte ranges or PDUs, and with the module's placing of
    /// segments and misreading of reports (a stalled bearer holds its SDUs).
    #[test]
    fn delivery_is_exact_through_the_radio(
        cca in prop::sample::select(vec!["newreno", "cubic", "bbr", "vegas"]),
        rlc in prop::sample::select(vec![100_000u64, 2_621_440]),
        per_byte in prop::sample::select(vec![0.0, 1e-6]),
        start in 1.0f64..8.0,
        seed in 0u64..1000,
        (pdus, misplace, misread) in (any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let mut cfg = scenario("fbtcp-2", Some(start + 2.0), &tcp_flow(cca));
        cfg.seed = seed;
        let ns3 = &mut cfg.radio.as_mut().unwrap().ns3_mmwave;
        ns3.rlc_retransmits_pdus = pdus;
        ns3.misplace_segments = misplace;
        ns3.misread_overtaken_reports = misread;
        cfg.radio.as_mut().unwrap().rlc_buffer_bytes = rlc;
        cfg.path.loss.per_byte = per_byte;
        cfg.flows[0].start_s = start;
        let mut world = World::new(&cfg);
        for step in 1..=4 {
            world.run_until(from_secs(start + 0.5 * step as f64));
            world.check_invariants();
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_radio_run() {
    let mut module = scenario("fbtcp-2", Some(4.0), &tcp_flow("newreno"));
    module.radio.as_mut().unwrap().ns3_mmwave.misplace_segments = true;
    for cfg in [scenario("urban", Some(3.0), &tcp_flow("cubic")), module] {
        let (mut a, mut b) = (wavecc_core::run(&cfg), wavecc_core::run(&cfg));
        a.summary.wall_time_s = 0.0;
        b.summary.wall_time_s = 0.0;
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
}

#[test]
fn the_3gpp_profile_runs_the_same_scenario_with_its_own_numerology() {
    let mut cfg = scenario("fbtcp-2", Some(10.0), &udp_flow(1e9, 0));
    cfg.radio.as_mut().unwrap().profile = wavecc_core::scenario::ProfileName::ThreeGpp;
    let out = wavecc_core::run(&cfg);
    // UMi LoS at ~71 m (3D): 32.4 + 21 log10(71) + 20 log10(28) = 100.2 dB, 30 dBm,
    // 30 dB of array gain, noise -83.2 dBm: about 43 dB, minus shadowing. The
    // 400 MHz carrier peaks near 1.5 Gb/s, so the 1 Gb/s source passes in LoS.
    let los = goodput_between(&out, 0, 0.5, 2.0);
    assert!((los - 1000.0).abs() < 30.0, "LoS goodput {los}");
    // Behind a building the 38.901 NLoS path loss applies: 35.3 log10(71) + 22.4 +
    // 21.3 log10(28) = 118.6 dB, 18.4 dB more, with 7.82 dB of shadowing instead of 4.
    // That still leaves ~25 dB of SINR: street-canyon reflections carry 1 Gb/s.
    let mean_sinr = |from: f64, to: f64| {
        let v: Vec<f64> = (0..out.ues.t_s.len())
            .filter(|&i| out.ues.t_s[i] > from && out.ues.t_s[i] <= to)
            .map(|i| out.ues.sinr_db[i])
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let drop = mean_sinr(0.0, 2.3) - mean_sinr(2.4, 7.7);
    assert!(drop > 8.0 && drop < 30.0, "SINR drop {drop} dB");
    // The exact-3d test is the profile's default; it agrees with the papers' here.
    let first = out.summary.ues[0].nlos_intervals_s[0];
    assert!(
        (first[0] - 2.33).abs() < 0.06 && (first[1] - 7.77).abs() < 0.06,
        "{first:?}"
    );
}

#[test]
fn radio_config_errors_name_the_key() {
    let text = builtin::get("fbtcp-1").unwrap();
    let err = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        Config::from_toml(&text.replacen(from, to, 1))
            .unwrap_err()
            .to_string()
    };
    let e = err("profile = \"ns3-mmwave\"", "profile = \"ns3\"");
    assert!(
        e.contains("radio.profile") && e.contains("ns3-mmwave") && e.contains("3gpp"),
        "{e}"
    );
    let e = err("rlc_buffer_bytes = 2621440", "rlc_buffer_byte = 2621440");
    assert!(
        e.contains("rlc_buffer_byte") && e.contains("rlc_buffer_bytes"),
        "{e}"
    );
    let e = err("x = [1.5, 2]", "x = [2, 1.5]");
    assert!(e.contains("radio.obstacles[0].x"), "{e}");
    let e = err("write_bytes = 1400", "write_bytes = 1400\nue = 3");
    assert!(e.contains("flows[0].ue") && e.contains("0..0"), "{e}");
    let e = err("class = \"tree\"", "class = \"bush\"");
    assert!(
        e.contains("radio.obstacles[0].class") && e.contains("building"),
        "{e}"
    );
    let e = err("{ at_s = 1, velocity", "{ at_s = -1, velocity");
    assert!(e.contains("radio.ues[0]"), "{e}");
    // fbtcp-2's first building spans x 2-10, y 67-74, z 0-30.
    let buildings = builtin::get("fbtcp-2").unwrap().replacen(
        "position = [0.0, 0.0, 15.0]",
        "position = [5.0, 70.0, 10.0]",
        1,
    );
    let e = Config::from_toml(&buildings).unwrap_err().to_string();
    assert!(
        e.contains("radio.gnbs[0].position") && e.contains("inside a building"),
        "{e}"
    );
}

/// The papers' "UDP saturated" goodput (the 1 Gb/s server over UDP: the radio alone)
/// from their text, against the built-ins with the calibrated blockage loss
/// (docs/validation.md): within 10% each.
/// A built-in, the config keys it changes, and the published goodput (Mb/s).
type UdpCase = (&'static str, &'static [(&'static str, f64)], f64);

#[test]
fn udp_saturated_goodput_is_within_10_percent_of_the_seeds() {
    let cases: [UdpCase; 7] = [
        ("fbtcp-1", &[], 886.72),
        ("fbtcp-2", &[], 636.62),
        ("fbtcp-3", &[], 590.66),
        ("urban", &[], 824.8),
        ("urban", &[("rlc", 2_621_440.0)], 810.55),
        ("urban", &[("rlc", 262_144.0)], 807.5),
        ("urban", &[("rlc", 2_621_440.0), ("mss", 14_000.0)], 839.38),
    ];
    for (id, changes, published) in cases {
        let mss = changes
            .iter()
            .find(|c| c.0 == "mss")
            .map_or(1400, |c| c.1 as u32);
        let mut cfg = scenario(
            id,
            None,
            &format!(
                "[[flows]]\napp = \"udp\"\nrate_bps = 1e9\nwrite_bytes = {}\n",
                mss.min(1400)
            ),
        );
        if mss > 1400 {
            // The urban study's MSS 14000 run: MTU 15000 and 14000-byte datagrams.
            cfg.tcp.mss_bytes = mss;
            cfg.path.mtu_bytes = 15_000;
            cfg.flows[0].write_bytes = Some(mss);
        }
        if let Some(rlc) = changes.iter().find(|c| c.0 == "rlc") {
            cfg.radio.as_mut().unwrap().rlc_buffer_bytes = rlc.1 as u64;
        }
        let got = wavecc_core::run(&cfg).summary.flows[0].goodput_mbps;
        assert!(
            (got - published).abs() / published < 0.10,
            "{id} {changes:?}: {got:.1} Mb/s vs the paper's {published}"
        );
    }
}

/// The `multipath` channel chooses the MCS from the chunks' mutual information, below
/// what the wideband (mean-linear) SINR alone would allow where the chunks spread, most
/// at low SINR; the `wideband` channel chooses from the wideband SINR.
#[test]
fn multipath_link_adaptation_uses_the_effective_sinr() {
    use wavecc_core::radio::McsTable;
    use wavecc_core::scenario::Ns3Channel;
    let table = McsTable::ns3_mmwave();
    // Mean of (MCS the wideband SINR allows - MCS chosen) over blocked samples.
    let shortfall = |channel: Ns3Channel| {
        let mut cfg = scenario("fbtcp-2", Some(6.0), &udp_flow(1e9, 0));
        cfg.trace.interval_s = 0.01;
        let radio = cfg.radio.as_mut().unwrap();
        radio.ns3_mmwave.channel = channel;
        radio.ns3_mmwave.blockage_loss_db = 35.964785;
        let out = wavecc_core::run(&cfg);
        let u = &out.ues;
        let blocked: Vec<usize> = (0..u.t_s.len())
            .filter(|&i| !u.los[i] && u.sinr_db[i] < 10.0)
            .collect();
        assert!(blocked.len() > 100, "{}", blocked.len());
        blocked
            .iter()
            .map(|&i| f64::from(table.select(u.sinr_db[i], 0.1)) - f64::from(u.mcs[i]))
            .sum::<f64>()
            / blocked.len() as f64
    };
    let wideband = shortfall(Ns3Channel::Wideband);
    let multipath = shortfall(Ns3Channel::Multipath);
    // Wideband: only the 1 ms CQI delay could separate the two (measured: 0).
    assert!(wideband.abs() < 0.3, "wideband {wideband}");
    // Multipath: about half an (even) MCS step lower on average behind the buildings
    // (measured: 1.08 MCS indices).
    assert!(multipath > 0.7, "multipath {multipath}");
}

/// The first `ues` UEs of the built-in city with their flows: the city's member with
/// that many UEs (python/wavecc/city.py gives UE i the same walk and flows in every
/// member), run for `duration_s`.
fn small_city(ues: usize, duration_s: f64) -> Config {
    let mut cfg = Config::from_toml(builtin::get("city-100ue").unwrap()).unwrap();
    cfg.radio.as_mut().unwrap().ues.truncate(ues);
    cfg.flows.retain(|f| (f.ue as usize) < ues);
    cfg.duration_s = duration_s;
    cfg
}

/// Exact delivery and conservation with many UEs, cells, handovers and a mix of
/// bulk, rate and on/off flows sharing the cells' schedulers.
#[test]
fn the_city_delivers_every_byte_once_and_conserves_packets() {
    let cfg = small_city(20, 2.0);
    let mut world = World::new(&cfg);
    for step in 1..=4 {
        world.run_until(from_secs(0.5 * f64::from(step)));
        world.check_invariants();
    }
}

#[test]
fn the_city_is_deterministic_and_every_flow_and_cell_is_used() {
    let cfg = small_city(30, 1.5);
    let (mut a, mut b) = (wavecc_core::run(&cfg), wavecc_core::run(&cfg));
    a.summary.wall_time_s = 0.0;
    b.summary.wall_time_s = 0.0;
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let s = &a.summary;
    assert!(
        s.flows.iter().all(|f| f.bytes_delivered > 0),
        "{:?}",
        s.flows
    );
    let apps: std::collections::BTreeSet<&str> = s.flows.iter().map(|f| f.app.as_str()).collect();
    assert_eq!(apps.len(), 3, "{apps:?}");
    assert!(s.ues.iter().map(|u| u.handovers).sum::<u32>() > 0);
    let cells: std::collections::BTreeSet<u32> = s.ues.iter().map(|u| u.cell).collect();
    assert!(cells.len() >= 5, "{cells:?}");
}
