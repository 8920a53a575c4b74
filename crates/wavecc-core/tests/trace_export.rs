//! The radio's per-slot delivery record (`Ran::record_deliveries`) that
//! `wavecc trace export` turns into a link trace.

use wavecc_core::engine::Unwatched;
use wavecc_core::net::UDP_HEADER_BYTES;
use wavecc_core::scenario::builtin;
use wavecc_core::{Config, run_recording_deliveries};

/// `urban` for 1 s with one UDP flow at `rate_bps` of 1400-byte datagrams.
fn urban_udp(rate_bps: f64) -> Config {
    let text = builtin::get("urban").unwrap();
    let body = &text[..text.find("# The papers' server").expect("flows at the end")];
    let flow = format!("[[flows]]\napp = \"udp\"\nrate_bps = {rate_bps}\nwrite_bytes = 1400\n");
    let mut config = Config::from_toml(&format!("{body}{flow}")).unwrap();
    config.duration_s = 1.0;
    config
}

#[test]
fn the_record_holds_every_byte_the_ue_received_in_its_slot() {
    let (out, deliveries) = run_recording_deliveries(&urban_udp(200e6), 0, &mut Unwatched).unwrap();
    let packet = u64::from(1400 + UDP_HEADER_BYTES);
    let recorded: u64 = deliveries.slot_bytes.iter().sum();
    assert_eq!(recorded % packet, 0, "whole packets");
    assert_eq!(
        recorded / packet * 1400,
        out.summary.flows[0].bytes_delivered
    );
    // 200 Mb/s is below the radio's rate: each 100 us slot delivers what arrived in
    // about one slot (2500 bytes), never a slot's worth of the 10 ms before the first
    // datagram reaches the gNB.
    let first = deliveries.slot_bytes.iter().position(|&b| b > 0).unwrap();
    assert!(
        (100..=120).contains(&first),
        "first delivery in slot {first}"
    );
    assert!(
        deliveries.slot_bytes.len() <= 10_000,
        "no slot after the run"
    );
}
