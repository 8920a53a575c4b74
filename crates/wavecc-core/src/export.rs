//! A scenario's path as a link trace (`wavecc trace export`, docs/traces.md), so that
//! the simulator (`path.trace`) and the emulator can replay the same link.
//!
//! A wired path becomes a constant rate in short slots with its delay, buffer and
//! random loss. A radio path is measured: the scenario runs with one UDP flow above the
//! radio's peak rate to the first flow's UE, and the bytes its downlink hands up in
//! each slot are the trace's delivery opportunities; the delays of the wired hops
//! (and, for ACKs, the uplink grant and its slot) are summed per direction, the RLC
//! buffer is the buffer, and the Internet link's random loss is the loss.

use crate::engine::{RngStreams, Stopped, Time, Watch, from_secs, to_secs};
use crate::net::LinkTrace;
use crate::radio::Ran;
use crate::run_recording_deliveries;
use crate::scenario::{AppKind, Config, ConfigError, FlowConfig, LossDirection, PathConfig};

/// The shortest slot of an exported wired trace: a finer one would only lengthen the file.
const MIN_WIRED_SLOT_S: f64 = 1e-6;
/// The saturating UDP flow's rate over the radio's peak: enough that the RLC
/// buffer never runs dry.
const SATURATION: f64 = 1.2;

/// The link trace of `config`'s path; a radio path is measured by a run that `watch`
/// may stop.
pub fn link_trace(
    config: &Config,
    watch: &mut impl Watch,
) -> Result<Result<LinkTrace, ConfigError>, Stopped> {
    if config.radio.is_none() {
        return Ok(wired_trace(&config.path));
    }
    if config.path.trace.is_some() {
        return Ok(Err(ConfigError::invalid(
            "path.trace",
            "a radio scenario's Internet link cannot be a trace when its path is exported",
        )));
    }
    match iid_loss(&config.path) {
        Ok(loss) => radio_trace(config, loss, watch).map(Ok),
        Err(e) => Ok(Err(e)),
    }
}

/// A wired path: its rate in slots of one MTU's serialisation (at least
/// `MIN_WIRED_SLOT_S`), so that a packet leaves within a slot of when the rate would
/// send it, and the rest of the path as it is.
fn wired_trace(path: &PathConfig) -> Result<LinkTrace, ConfigError> {
    if let Some(trace) = &path.trace_link {
        return Ok(trace.as_ref().clone());
    }
    let (loss_per_packet, loss_per_byte) = iid_loss(path)?;
    let mtu_time = f64::from(path.mtu_bytes) * 8.0 / path.rate_bps;
    let slot: Time = from_secs(mtu_time.max(MIN_WIRED_SLOT_S));
    let slot_bytes = (path.rate_bps * to_secs(slot) / 8.0).round() as u64;
    let reverse_rate = if path.reverse_rate_bps > 0.0 {
        path.reverse_rate_bps
    } else {
        path.rate_bps
    };
    Ok(LinkTrace {
        slot_s: to_secs(slot),
        bytes: vec![slot_bytes],
        forward_delay_s: path.one_way_delay_s,
        reverse_delay_s: path.one_way_delay_s,
        buffer_bytes: Some(buffer_bytes(path)),
        loss_per_packet,
        loss_per_byte,
        reverse_rate_bps: Some(reverse_rate),
    })
}

/// The path's buffer in bytes: a limit in packets counts full-size (MTU) packets.
fn buffer_bytes(path: &PathConfig) -> u64 {
    if path.buffer_packets > 0 {
        u64::from(path.buffer_packets) * u64::from(path.mtu_bytes)
    } else {
        path.buffer_bytes
    }
}

/// The path's random loss as a trace carries it, (per packet, per byte): i.i.d., on
/// data only.
fn iid_loss(path: &PathConfig) -> Result<(f64, f64), ConfigError> {
    let loss = &path.loss;
    if loss.gilbert_elliott.is_some() {
        return Err(ConfigError::invalid(
            "path.loss.gilbert_elliott",
            "a link trace carries only i.i.d. loss (per packet, per byte); remove it to export",
        ));
    }
    let any = loss.per_packet > 0.0 || loss.per_byte > 0.0;
    if any && loss.direction != LossDirection::Data {
        return Err(ConfigError::invalid(
            "path.loss.direction",
            "a link trace carries random loss of the data direction only; set it to \"data\" to export",
        ));
    }
    Ok((loss.per_packet, loss.per_byte))
}

/// A radio path, measured by a UDP-saturated run of the scenario, with the wired
/// path's random `loss` (per packet, per byte).
fn radio_trace(
    config: &Config,
    (loss_per_packet, loss_per_byte): (f64, f64),
    watch: &mut impl Watch,
) -> Result<LinkTrace, Stopped> {
    let radio = config.radio.as_ref().expect("a radio scenario");
    let ran = Ran::new(radio, &RngStreams::new(config.seed));
    let slot = ran.slot();
    let ue = config.flows[0].ue;
    let saturated = saturated(config, ue, SATURATION * ran.peak_rate_bps());
    let (_, deliveries) = run_recording_deliveries(&saturated, ue, watch)?;
    let wired = config.path.one_way_delay_s + radio.s1u_delay_s;
    Ok(LinkTrace {
        slot_s: to_secs(slot),
        bytes: opportunities(deliveries.slot_bytes, from_secs(config.duration_s) / slot),
        forward_delay_s: wired,
        reverse_delay_s: wired + radio.uplink_grant_delay_s + to_secs(slot),
        buffer_bytes: Some(radio.rlc_buffer_bytes),
        loss_per_packet,
        loss_per_byte,
        reverse_rate_bps: None,
    })
}

/// `config` with its flows replaced by one UDP flow of full segments at `rate_bps` to
/// UE `ue` for the whole run, and no event log (the run is only measured).
fn saturated(config: &Config, ue: u32, rate_bps: f64) -> Config {
    let mut saturated = config.clone();
    saturated.flows = vec![FlowConfig {
        cca: config.flows[0].cca.clone(),
        cc: None,
        app: AppKind::Udp,
        rate_bps: Some(rate_bps),
        write_bytes: Some(config.tcp.mss_bytes),
        on_s: None,
        off_s: None,
        period_distribution: None,
        start_s: 0.0,
        stop_s: None,
        access_delay_s: 0.0,
        access_rate_bps: None,
        ue,
    }];
    saturated.trace.events = false;
    saturated
}

/// The slots from the first that delivered anything (before it the data was still
/// on its way to the radio) to the end of the run.
fn opportunities(mut slot_bytes: Vec<u64>, slots_in_run: u64) -> Vec<u64> {
    slot_bytes.resize(slots_in_run.max(slot_bytes.len() as u64) as usize, 0);
    let first = slot_bytes.iter().position(|&b| b > 0).unwrap_or(0);
    slot_bytes.split_off(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Unwatched;

    fn export(toml: &str) -> Result<LinkTrace, ConfigError> {
        let config = Config::from_toml(toml).unwrap();
        link_trace(&config, &mut Unwatched).unwrap()
    }

    #[test]
    fn a_wired_path_is_its_rate_in_mtu_slots() {
        let trace = export(
            "[path]\nrate_bps = 1e8\nreverse_rate_bps = 1e7\none_way_delay_s = 0.02\n\
             buffer_packets = 100\nbuffer_bytes = 0\n[path.loss]\nper_packet = 1e-4\n[[flows]]\n",
        )
        .unwrap();
        assert_eq!(trace.slot_s, 120e-6);
        assert_eq!(trace.bytes, vec![1500]);
        assert!((trace.mean_rate_bps() - 1e8).abs() < 1.0);
        assert_eq!((trace.forward_delay_s, trace.reverse_delay_s), (0.02, 0.02));
        assert_eq!(trace.buffer_bytes, Some(150_000));
        assert_eq!(trace.loss_per_packet, 1e-4);
        assert_eq!(trace.reverse_rate_bps, Some(1e7));
    }

    #[test]
    fn a_fast_wired_path_keeps_microsecond_slots() {
        let trace = export("[path]\nrate_bps = 1e11\n[[flows]]\n").unwrap();
        assert_eq!((trace.slot_s, trace.bytes.clone()), (1e-6, vec![12_500]));
    }

    #[test]
    fn loss_a_trace_cannot_carry_is_refused_by_its_key() {
        let bursty =
            "[path.loss.gilbert_elliott]\np_good_to_bad = 0.1\np_bad_to_good = 0.5\n[[flows]]\n";
        let e = export(bursty).unwrap_err().to_string();
        assert!(e.starts_with("path.loss.gilbert_elliott: "), "{e}");
        let acks = "[path.loss]\nper_packet = 0.01\ndirection = \"ack\"\n[[flows]]\n";
        let e = export(acks).unwrap_err().to_string();
        assert!(e.starts_with("path.loss.direction: "), "{e}");
    }

    #[test]
    fn the_run_is_cut_to_the_first_delivery_and_padded_to_its_end() {
        assert_eq!(
            opportunities(vec![0, 0, 5, 0, 7], 8),
            vec![5, 0, 7, 0, 0, 0]
        );
    }
}
