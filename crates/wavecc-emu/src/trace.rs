//! wavecc's link trace (docs/traces.md) as the emulator's two directions. The file is
//! parsed by the core's parser (`wavecc_core::net::LinkTrace`), the one the
//! simulator's `path.trace` uses, so both run the same link.

use crate::link::{Capacity, LinkParams, Loss};
use wavecc_core::net::LinkTrace;

/// A parsed trace, ready to become the emulator's links.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace(LinkTrace);

impl Trace {
    pub fn parse(text: &str) -> Result<Trace, String> {
        LinkTrace::parse(text).map(Trace)
    }

    /// The two directions: forward served by the slots, reverse by its own rate.
    pub fn links(&self) -> (LinkParams, LinkParams) {
        let trace = &self.0;
        let forward = LinkParams {
            capacity: Capacity::Slots {
                slot_ns: (trace.slot_s * 1e9).round() as u64,
                bytes: trace.bytes.clone(),
            },
            delay_ns: (trace.forward_delay_s * 1e9).round() as u64,
            buffer_bytes: trace.buffer_bytes,
            loss: Loss {
                per_packet: trace.loss_per_packet,
                per_byte: trace.loss_per_byte,
            },
        };
        let reverse = LinkParams {
            capacity: trace
                .reverse_rate_bps
                .map_or(Capacity::Unlimited, |bps| Capacity::Rate { bps }),
            delay_ns: (trace.reverse_delay_s * 1e9).round() as u64,
            buffer_bytes: trace.buffer_bytes,
            loss: Loss::default(),
        };
        (forward, reverse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_becomes_the_two_directions() {
        let text = "# wavecc link trace 1
# slot_s = 0.000125
# forward_delay_s = 0.005
# reverse_delay_s = 0.004
# buffer_bytes = 1000000
# loss_per_packet = 0.001
t_s,bytes
0.000000,3000
0.000125,0
0.000250,1500
";
        let (forward, reverse) = Trace::parse(text).unwrap().links();
        assert_eq!(
            forward.capacity,
            Capacity::Slots {
                slot_ns: 125_000,
                bytes: vec![3000, 0, 1500]
            }
        );
        assert_eq!((forward.delay_ns, reverse.delay_ns), (5_000_000, 4_000_000));
        assert_eq!(forward.buffer_bytes, Some(1_000_000));
        assert_eq!(forward.loss.per_packet, 0.001);
        assert_eq!(
            reverse.loss,
            Loss::default(),
            "random loss is the data direction's"
        );
        assert_eq!(reverse.capacity, Capacity::Unlimited);
    }

    #[test]
    fn a_bad_trace_is_refused_with_the_line_at_fault() {
        let error =
            Trace::parse("# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,x\n").unwrap_err();
        assert_eq!(error, "line 4: bytes 'x' is not a whole number");
    }
}
