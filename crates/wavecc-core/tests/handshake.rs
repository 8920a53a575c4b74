//! `tcp.handshake`: a flow that opens its connection sends its first data segment a
//! round trip after its start, and a lost SYN is sent again after the SYN timeout.

use wavecc_core::Config;
use wavecc_core::engine::from_secs;
use wavecc_core::scenario::builtin;
use wavecc_core::world::World;

/// The dumbbell (10 ms each way) with its flow starting at 0.1 s.
fn dumbbell(handshake: bool) -> Config {
    let mut cfg = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
    cfg.duration_s = 2.0;
    cfg.tcp.handshake = handshake;
    cfg.flows[0].start_s = 0.1;
    cfg
}

fn segments_sent_by(world: &mut World, t: f64) -> u64 {
    world.run_until(from_secs(t));
    world.sender_mut(0).unwrap().counters.segments_sent
}

#[test]
fn the_first_segment_leaves_a_round_trip_after_the_start() {
    let mut plain = World::new(&dumbbell(false));
    assert_eq!(
        segments_sent_by(&mut plain, 0.1),
        10,
        "the initial window at the start"
    );
    let mut opening = World::new(&dumbbell(true));
    // SYN and SYN-ACK: 20 ms of propagation and two 60-byte serialisations.
    assert_eq!(segments_sent_by(&mut opening, 0.1199), 0);
    assert_eq!(segments_sent_by(&mut opening, 0.1201), 10);
    opening.run_until(from_secs(2.0));
    opening.check_invariants();
}

#[test]
fn a_lost_syn_is_sent_again_after_the_timeout() {
    // Nine packets in ten are lost. With this seed the SYNs of 0.1, 0.15, 0.25, 0.45
    // and 0.85 s (50 ms, then doubling) or their SYN-ACKs go astray, and the one of
    // 1.65 s opens the connection: no SYN sent again, no data ever.
    let mut cfg = dumbbell(true);
    cfg.path.loss.per_packet = 0.9;
    cfg.tcp.syn_timeout_s = 0.05;
    cfg.duration_s = 30.0;
    let mut world = World::new(&cfg);
    assert_eq!(segments_sent_by(&mut world, 1.6), 0);
    assert!(
        segments_sent_by(&mut world, 1.7) > 0,
        "the sixth SYN opened it"
    );
    world.run_until(from_secs(30.0));
    world.check_invariants();
}
