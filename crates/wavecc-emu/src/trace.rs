//! wavecc's link trace (docs/emulation.md): a CSV of delivery opportunities, `t_s,bytes`
//! (slot start in seconds, bytes deliverable in the slot), after `# key = value` lines
//! that carry the rest of the path. The simulator's `path.trace` reads the same file.

use crate::link::{Capacity, LinkParams, Loss};

/// The first line of every trace, naming the format and its version.
pub const MAGIC: &str = "# wavecc link trace 1";

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub slot_s: f64,
    pub bytes: Vec<u64>,
    pub forward_delay_s: f64,
    pub reverse_delay_s: f64,
    /// None: unbounded.
    pub buffer_bytes: Option<u64>,
    pub loss: Loss,
    /// The reverse direction's rate; None: unlimited.
    pub reverse_rate_bps: Option<f64>,
}

impl Trace {
    pub fn parse(text: &str) -> Result<Trace, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == MAGIC => {}
            _ => return Err(format!("the first line must be '{MAGIC}'")),
        }
        let mut meta = Meta::default();
        let mut header = false;
        let mut rows: Vec<(f64, u64)> = Vec::new();
        for (index, line) in lines {
            let line = line.trim();
            let at = |message: String| format!("line {}: {message}", index + 1);
            if line.is_empty() {
                continue;
            }
            if let Some(pair) = line.strip_prefix('#') {
                if header {
                    return Err(at("metadata must come before the 't_s,bytes' header".into()));
                }
                meta.set(pair).map_err(at)?;
            } else if !header {
                if line.replace(' ', "") != "t_s,bytes" {
                    return Err(at(format!(
                        "expected the header 't_s,bytes', found '{line}'"
                    )));
                }
                header = true;
            } else {
                rows.push(parse_row(line).map_err(at)?);
            }
        }
        meta.into_trace(rows)
    }

    /// The two directions: forward served by the slots, reverse by its own rate.
    pub fn links(&self) -> (LinkParams, LinkParams) {
        let forward = LinkParams {
            capacity: Capacity::Slots {
                slot_ns: (self.slot_s * 1e9).round() as u64,
                bytes: self.bytes.clone(),
            },
            delay_ns: (self.forward_delay_s * 1e9).round() as u64,
            buffer_bytes: self.buffer_bytes,
            loss: self.loss,
        };
        let reverse = LinkParams {
            capacity: self
                .reverse_rate_bps
                .map_or(Capacity::Unlimited, |bps| Capacity::Rate { bps }),
            delay_ns: (self.reverse_delay_s * 1e9).round() as u64,
            buffer_bytes: self.buffer_bytes,
            loss: Loss::default(),
        };
        (forward, reverse)
    }
}

fn parse_row(line: &str) -> Result<(f64, u64), String> {
    let (t, bytes) = line
        .split_once(',')
        .ok_or_else(|| format!("expected 't_s,bytes', found '{line}'"))?;
    let t: f64 = t
        .trim()
        .parse()
        .map_err(|_| format!("t_s '{}' is not a number", t.trim()))?;
    let bytes: u64 = bytes
        .trim()
        .parse()
        .map_err(|_| format!("bytes '{}' is not a whole number", bytes.trim()))?;
    Ok((t, bytes))
}

#[derive(Default)]
struct Meta {
    slot_s: Option<f64>,
    forward_delay_s: Option<f64>,
    reverse_delay_s: Option<f64>,
    buffer_bytes: Option<f64>,
    loss_per_packet: Option<f64>,
    loss_per_byte: Option<f64>,
    reverse_rate_bps: Option<f64>,
}

impl Meta {
    /// One `key = value` line (comments without '=' are allowed and ignored).
    fn set(&mut self, pair: &str) -> Result<(), String> {
        let Some((key, value)) = pair.split_once('=') else {
            return Ok(());
        };
        let (key, value) = (key.trim(), value.trim());
        let number: f64 = value
            .parse()
            .map_err(|_| format!("{key} = '{value}' is not a number"))?;
        if !number.is_finite() || number < 0.0 {
            return Err(format!("{key} = {value} must be a finite number >= 0"));
        }
        let slot = match key {
            "slot_s" => &mut self.slot_s,
            "forward_delay_s" => &mut self.forward_delay_s,
            "reverse_delay_s" => &mut self.reverse_delay_s,
            "buffer_bytes" => &mut self.buffer_bytes,
            "loss_per_packet" => &mut self.loss_per_packet,
            "loss_per_byte" => &mut self.loss_per_byte,
            "reverse_rate_bps" => &mut self.reverse_rate_bps,
            _ => return Err(format!("unknown key '{key}' (known: {})", KEYS.join(", "))),
        };
        *slot = Some(number);
        Ok(())
    }

    fn into_trace(self, rows: Vec<(f64, u64)>) -> Result<Trace, String> {
        let slot_s = self
            .slot_s
            .filter(|s| *s > 0.0)
            .ok_or("slot_s (> 0) is required")?;
        if rows.is_empty() || rows.iter().all(|(_, b)| *b == 0) {
            return Err("the trace has no slot with bytes > 0".into());
        }
        for (i, (t, _)) in rows.iter().enumerate() {
            if (t - i as f64 * slot_s).abs() > slot_s * 1e-3 {
                return Err(format!(
                    "row {} has t_s = {t}, expected {} (consecutive slots of slot_s)",
                    i + 1,
                    i as f64 * slot_s
                ));
            }
        }
        for (key, p) in [
            ("loss_per_packet", self.loss_per_packet),
            ("loss_per_byte", self.loss_per_byte),
        ] {
            if p.is_some_and(|p| p > 1.0) {
                return Err(format!("{key} must be in [0, 1]"));
            }
        }
        Ok(Trace {
            slot_s,
            bytes: rows.into_iter().map(|(_, b)| b).collect(),
            forward_delay_s: self.forward_delay_s.unwrap_or(0.0),
            reverse_delay_s: self.reverse_delay_s.unwrap_or(0.0),
            buffer_bytes: self.buffer_bytes.filter(|b| *b > 0.0).map(|b| b as u64),
            loss: Loss {
                per_packet: self.loss_per_packet.unwrap_or(0.0),
                per_byte: self.loss_per_byte.unwrap_or(0.0),
            },
            reverse_rate_bps: self.reverse_rate_bps.filter(|r| *r > 0.0),
        })
    }
}

const KEYS: [&str; 7] = [
    "slot_s",
    "forward_delay_s",
    "reverse_delay_s",
    "buffer_bytes",
    "loss_per_packet",
    "loss_per_byte",
    "reverse_rate_bps",
];

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "# wavecc link trace 1
# exported from urban (a comment)
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

    #[test]
    fn a_trace_carries_the_slots_and_the_path() {
        let trace = Trace::parse(EXAMPLE).unwrap();
        assert_eq!(trace.bytes, vec![3000, 0, 1500]);
        assert_eq!(trace.buffer_bytes, Some(1_000_000));
        assert_eq!(trace.reverse_rate_bps, None);
        let (forward, reverse) = trace.links();
        assert_eq!(
            forward.capacity,
            Capacity::Slots {
                slot_ns: 125_000,
                bytes: vec![3000, 0, 1500]
            }
        );
        assert_eq!((forward.delay_ns, reverse.delay_ns), (5_000_000, 4_000_000));
        assert_eq!(forward.loss.per_packet, 0.001);
        assert_eq!(
            reverse.loss,
            Loss::default(),
            "random loss is the data direction's"
        );
        assert_eq!(reverse.capacity, Capacity::Unlimited);
    }

    #[test]
    fn bad_traces_are_refused_with_the_line_at_fault() {
        let cases = [
            ("t_s,bytes\n0,1\n", "first line"),
            ("# wavecc link trace 1\nt_s,bytes\n0,1\n", "slot_s"),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,1\n0.003,1\n",
                "row 2 has t_s",
            ),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,0\n",
                "no slot",
            ),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\n# speed = 3\nt_s,bytes\n0,1\n",
                "line 3: unknown key 'speed'",
            ),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,-1\n",
                "line 4: bytes '-1'",
            ),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\n# loss_per_packet = 2\nt_s,bytes\n0,1\n",
                "loss_per_packet must be",
            ),
        ];
        for (text, expected) in cases {
            let error = Trace::parse(text).unwrap_err();
            assert!(error.contains(expected), "{error:?} lacks {expected:?}");
        }
    }
}
