//! wavecc's link trace (docs/traces.md): a CSV of delivery opportunities, `t_s,bytes`
//! (slot start in seconds, bytes deliverable in the slot), after `# key = value` lines
//! that carry the rest of the path. The simulator's `path.trace` and the emulator
//! (`wavecc-emu`) read it with this one parser.

use std::path::Path;

/// The first line of every trace, naming the format and its version.
pub const MAGIC: &str = "# wavecc link trace 1";

/// A parsed link trace: what one path offers in each direction.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LinkTrace {
    pub slot_s: f64,
    /// IP bytes deliverable in each slot, looping after the last.
    pub bytes: Vec<u64>,
    pub forward_delay_s: f64,
    pub reverse_delay_s: f64,
    /// Drop-tail buffer of each direction; None: unbounded.
    pub buffer_bytes: Option<u64>,
    /// I.i.d. random loss of the forward (data) direction.
    pub loss_per_packet: f64,
    pub loss_per_byte: f64,
    /// The reverse direction's rate; None: unlimited.
    pub reverse_rate_bps: Option<f64>,
}

impl LinkTrace {
    /// Reads and parses the trace at `path`; the error names the file and, for a
    /// malformed trace, the line at fault.
    pub fn load(path: &Path) -> Result<LinkTrace, String> {
        let shown = path.display();
        // A device or a pipe (`/dev/zero`) could be read forever.
        if path.exists() && !path.is_file() {
            return Err(format!("{shown}: not a regular file"));
        }
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{shown}: no such file"),
            std::io::ErrorKind::InvalidData => format!("{shown}: not UTF-8 text"),
            _ => format!("{shown}: cannot read: {e}"),
        })?;
        LinkTrace::parse(&text).map_err(|e| format!("{shown}: {e}"))
    }

    pub fn parse(text: &str) -> Result<LinkTrace, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == MAGIC => {}
            _ => return Err(format!("line 1: the first line must be '{MAGIC}'")),
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

    /// The mean rate the slots offer over one period, bits per second.
    pub fn mean_rate_bps(&self) -> f64 {
        let total: u64 = self.bytes.iter().sum();
        total as f64 * 8.0 / (self.bytes.len() as f64 * self.slot_s)
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

    fn into_trace(self, rows: Vec<(f64, u64)>) -> Result<LinkTrace, String> {
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
        Ok(LinkTrace {
            slot_s,
            bytes: rows.into_iter().map(|(_, b)| b).collect(),
            forward_delay_s: self.forward_delay_s.unwrap_or(0.0),
            reverse_delay_s: self.reverse_delay_s.unwrap_or(0.0),
            buffer_bytes: self.buffer_bytes.filter(|b| *b > 0.0).map(|b| b as u64),
            loss_per_packet: self.loss_per_packet.unwrap_or(0.0),
            loss_per_byte: self.loss_per_byte.unwrap_or(0.0),
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
        let trace = LinkTrace::parse(EXAMPLE).unwrap();
        assert_eq!(trace.slot_s, 0.000125);
        assert_eq!(trace.bytes, vec![3000, 0, 1500]);
        assert_eq!(trace.buffer_bytes, Some(1_000_000));
        assert_eq!(trace.reverse_rate_bps, None);
        assert_eq!(
            (trace.forward_delay_s, trace.reverse_delay_s),
            (0.005, 0.004)
        );
        assert_eq!((trace.loss_per_packet, trace.loss_per_byte), (0.001, 0.0));
        // 4500 bytes per 375 us.
        assert!((trace.mean_rate_bps() - 96e6).abs() < 1.0);
    }

    #[test]
    fn bad_traces_are_refused_with_the_line_at_fault() {
        let cases = [
            ("t_s,bytes\n0,1\n", "line 1: the first line"),
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
                "# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,1\n# slot_s = 1\n",
                "line 5: metadata must come before",
            ),
            (
                "# wavecc link trace 1\n# slot_s = 0.001\n# loss_per_packet = 2\nt_s,bytes\n0,1\n",
                "loss_per_packet must be",
            ),
        ];
        for (text, expected) in cases {
            let error = LinkTrace::parse(text).unwrap_err();
            assert!(error.contains(expected), "{error:?} lacks {expected:?}");
        }
    }

    #[test]
    fn loading_names_the_file() {
        let missing = Path::new("/nonexistent/wavecc-trace.csv");
        assert_eq!(
            LinkTrace::load(missing).unwrap_err(),
            "/nonexistent/wavecc-trace.csv: no such file"
        );
        assert_eq!(
            LinkTrace::load(Path::new("/dev/zero")).unwrap_err(),
            "/dev/zero: not a regular file"
        );
        let dir = std::env::temp_dir().join(format!("wavecc-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(
            LinkTrace::load(&dir)
                .unwrap_err()
                .ends_with(": not a regular file")
        );
        let file = dir.join("bad.csv");
        std::fs::write(&file, "# wavecc link trace 1\n# slot_s = x\n").unwrap();
        let error = LinkTrace::load(&file).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            error.ends_with("bad.csv: line 2: slot_s = 'x' is not a number"),
            "{error}"
        );
    }
}
