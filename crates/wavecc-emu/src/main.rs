//! wavecc-emu: the link emulator behind `wavecc emulate` (docs/emulation.md).
//!
//!   wavecc-emu bulk        < SPEC.json   a TCP flow (bulk or at a rate) across the path
//!   wavecc-emu link        < SPEC, LINES the path alone, for a command run beside it
//!   wavecc-emu selftest [PHASE_S]        the accuracy table
//!   wavecc-emu cleanup                   removes namespaces killed runs left
//!
//! It reports JSON lines on stdout; an error is one line on stderr and exit code 2.

mod bulk;
mod forward;
mod link;
mod netns;
mod selftest;
mod sys;
mod trace;

use std::io::{Read, Write};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use link::{Capacity, Link, LinkParams, Loss};

/// One direction as the CLI gives it (a wired scenario's `path`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSpec {
    /// None: unlimited.
    rate_bps: Option<f64>,
    delay_s: f64,
    /// None: unbounded.
    buffer_bytes: Option<u64>,
    #[serde(default)]
    loss_per_packet: f64,
    #[serde(default)]
    loss_per_byte: f64,
}

impl LinkSpec {
    fn params(&self) -> LinkParams {
        LinkParams {
            capacity: self
                .rate_bps
                .map_or(Capacity::Unlimited, |bps| Capacity::Rate { bps }),
            delay_ns: (self.delay_s * 1e9).round() as u64,
            buffer_bytes: self.buffer_bytes,
            loss: Loss {
                per_packet: self.loss_per_packet,
                per_byte: self.loss_per_byte,
            },
        }
    }
}

/// `wavecc-emu bulk`'s input: the path (two directions, or a trace file) and the flow.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BulkSpec {
    forward: Option<LinkSpec>,
    reverse: Option<LinkSpec>,
    trace: Option<String>,
    cca: String,
    duration_s: f64,
    #[serde(default = "default_interval")]
    interval_s: f64,
    #[serde(default)]
    seed: u64,
    /// The flow's application when it writes at a rate; absent: bulk.
    #[serde(default)]
    rate: Option<bulk::Rate>,
}

fn default_interval() -> f64 {
    0.1
}

impl BulkSpec {
    fn links(&self) -> Result<(LinkParams, LinkParams), String> {
        match (&self.trace, &self.forward, &self.reverse) {
            (Some(path), None, None) => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                Ok(trace::Trace::parse(&text)
                    .map_err(|e| format!("{path}: {e}"))?
                    .links())
            }
            (None, Some(f), Some(r)) => Ok((f.params(), r.params())),
            _ => Err("the spec needs either 'trace' or both 'forward' and 'reverse'".into()),
        }
    }
}

fn main() {
    sys::install_signal_handlers();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    let mut emit = |value: Value| {
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    };
    let result = match args.first().map(String::as_str) {
        Some("bulk") => bulk_command(&mut emit),
        Some("link") => link_command(&mut emit),
        Some("selftest") => selftest_command(args.get(1), &mut emit),
        Some("cleanup") => root().map(|_| netns::remove_stale()),
        _ => Err("usage: wavecc-emu bulk < SPEC.json | link | selftest [PHASE_S] | cleanup".into()),
    };
    if let Err(message) = result {
        eprintln!("wavecc-emu: error: {message}");
        std::process::exit(2);
    }
    if sys::stopped() {
        std::process::exit(130);
    }
}

fn bulk_command(emit: &mut dyn FnMut(Value)) -> Result<(), String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("stdin: {e}"))?;
    let spec: BulkSpec = serde_json::from_str(&input).map_err(|e| format!("the spec: {e}"))?;
    let (forward, reverse) = spec.links()?;
    root()?;
    let ns = netns::Namespaces::create()?;
    let (sender, receiver) = ns.tun_pair()?;
    let (sender, receiver) = (Arc::new(sender), Arc::new(receiver));
    // A trace's slot 0 is now, just before the flow (or the command) starts.
    let epoch = sys::now_ns();
    let links = forward::Forwarders::start(
        &sender,
        &receiver,
        Link::new(forward, spec.seed).starting_at(epoch),
        Link::new(reverse, spec.seed ^ 0x5eed).starting_at(epoch),
    );
    let flow = bulk::Flow {
        cca: spec.cca,
        duration_s: spec.duration_s,
        interval_s: spec.interval_s,
        rate: spec.rate,
    };
    bulk::run(&ns, &links, &flow, emit)
}

/// The path without a flow: `cca` becomes both namespaces' default congestion control,
/// a `ready` line names the namespaces, then every line read on stdin is answered with
/// the link's counters; it ends at the end of stdin or on a signal. The spec is the
/// first line, as for `bulk` (its duration is the caller's business).
fn link_command(emit: &mut dyn FnMut(Value)) -> Result<(), String> {
    let mut lines = std::io::stdin().lines();
    let first = lines
        .next()
        .unwrap_or(Ok(String::new()))
        .map_err(|e| format!("stdin: {e}"))?;
    let spec: BulkSpec = serde_json::from_str(&first).map_err(|e| format!("the spec: {e}"))?;
    let (forward, reverse) = spec.links()?;
    root()?;
    let ns = netns::Namespaces::create()?;
    ns.default_congestion_control(&spec.cca)?;
    let (sender, receiver) = ns.tun_pair()?;
    let (sender, receiver) = (Arc::new(sender), Arc::new(receiver));
    // A trace's slot 0 is now, just before the flow (or the command) starts.
    let epoch = sys::now_ns();
    let links = forward::Forwarders::start(
        &sender,
        &receiver,
        Link::new(forward, spec.seed).starting_at(epoch),
        Link::new(reverse, spec.seed ^ 0x5eed).starting_at(epoch),
    );
    emit(serde_json::json!({"ready": {
        "sender_ns": ns.sender, "receiver_ns": ns.receiver,
        "sender_addr": netns::SENDER_ADDR, "receiver_addr": netns::RECEIVER_ADDR,
    }}));
    while sys::wait_readable_or_stop(0) {
        match lines.next() {
            Some(Ok(_)) => emit(serde_json::json!({"link": bulk::link_counters(&links)})),
            _ => break,
        }
    }
    Ok(())
}

fn selftest_command(phase_s: Option<&String>, emit: &mut dyn FnMut(Value)) -> Result<(), String> {
    let phase_s: f64 = match phase_s {
        Some(text) => text
            .parse()
            .ok()
            .filter(|s: &f64| *s >= 0.5)
            .ok_or("PHASE_S must be a number of seconds >= 0.5")?,
        None => 1.5,
    };
    root()?;
    let ns = netns::Namespaces::create()?;
    let (sender, receiver) = ns.tun_pair()?;
    selftest::run(&ns, &(Arc::new(sender), Arc::new(receiver)), phase_s, emit)
}

/// Namespaces and TUN devices need root (CAP_NET_ADMIN and CAP_SYS_ADMIN).
fn root() -> Result<(), String> {
    if unsafe { libc::geteuid() } != 0 {
        return Err("emulation needs root (it creates network namespaces and TUN devices)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &str) -> BulkSpec {
        serde_json::from_str(&format!(r#"{{{path} "cca": "cubic", "duration_s": 1}}"#)).unwrap()
    }

    #[test]
    fn a_spec_names_its_path_one_way() {
        let side =
            r#"{"rate_bps": 1e8, "delay_s": 0.01, "buffer_bytes": 3000, "loss_per_byte": 1e-6}"#;
        let (forward, reverse) = spec(&format!(r#""forward": {side}, "reverse": {side},"#))
            .links()
            .unwrap();
        assert_eq!(forward.capacity, Capacity::Rate { bps: 1e8 });
        assert_eq!(
            (forward.delay_ns, forward.buffer_bytes),
            (10_000_000, Some(3000))
        );
        assert_eq!(
            reverse.loss,
            Loss {
                per_packet: 0.0,
                per_byte: 1e-6
            }
        );
        let unlimited = r#"{"rate_bps": null, "delay_s": 0, "buffer_bytes": null}"#;
        let (forward, _) = spec(&format!(
            r#""forward": {unlimited}, "reverse": {unlimited},"#
        ))
        .links()
        .unwrap();
        assert_eq!(
            (forward.capacity, forward.buffer_bytes),
            (Capacity::Unlimited, None)
        );
        for path in [
            "",
            &format!(r#""forward": {side},"#),
            &format!(r#""trace": "x.csv", "forward": {side}, "reverse": {side},"#),
        ] {
            assert!(
                spec(path)
                    .links()
                    .unwrap_err()
                    .contains("either 'trace' or both"),
                "{path}"
            );
        }
    }
}
