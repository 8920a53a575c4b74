//! Traffic sources. They are evaluated lazily: instead of an event per write, the
//! sender asks "how much has the application written by now?" whenever it could
//! send, and schedules a wake-up only when it is waiting for the application.
//!
//! The kinds of application a flow's config names are declared here and the
//! scenario's schema uses them; a source is built from an [`AppSpec`], which the
//! scenario makes from the flow's config, so the sources read no config.

use crate::engine::{Rng, RngExt as _, Time, from_secs};
use serde::{Deserialize, Serialize};

/// What a flow's application does.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AppKind {
    /// Always has data to send.
    Bulk,
    /// Writes `write_bytes` chunks at `rate_bps` (the papers' 1 Gb/s server).
    Rate,
    /// Alternates on periods (writing at `rate_bps`) and silent off periods.
    Onoff,
    /// UDP datagrams of `write_bytes` at `rate_bps`; no congestion control.
    Udp,
}

impl AppKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AppKind::Bulk => "bulk",
            AppKind::Rate => "rate",
            AppKind::Onoff => "onoff",
            AppKind::Udp => "udp",
        }
    }
}

/// How on/off period lengths are drawn.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PeriodDistribution {
    Constant,
    Exponential,
}

/// What an application does and when, as its source needs it: the scenario's flow
/// config gives it (`FlowConfig::app_spec`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AppSpec {
    /// When the application starts writing, seconds into the run.
    pub start_s: f64,
    /// When it stops; absent: at the end of the run.
    pub stop_s: Option<f64>,
    pub traffic: Traffic,
}

/// How the application writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Traffic {
    /// Keeps the send buffer full.
    Bulk,
    /// Writes `write_bytes` at a time at `rate_bps`, inside on-periods if `onoff`
    /// gives them (else all the time).
    Paced {
        rate_bps: f64,
        write_bytes: u32,
        onoff: Option<Periods>,
    },
}

/// The on and off periods of an on/off application: their means and how their
/// lengths are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Periods {
    pub on_s: f64,
    pub off_s: f64,
    pub distribution: PeriodDistribution,
}

/// An application writing into a send buffer of `buf` bytes.
#[derive(Debug)]
pub struct Source {
    start: Time,
    stop: Time,
    kind: Kind,
    /// Bytes written so far.
    written: u64,
    /// `acked` of the last call to [`Self::written`]: what the writes since then found.
    acked: u64,
}

#[derive(Debug)]
enum Kind {
    /// Keeps the send buffer full.
    Bulk,
    /// Writes `chunk` bytes every `interval` ns inside on-windows (the whole
    /// [start, stop) for a constant-rate writer).
    Paced(Paced),
}

#[derive(Debug)]
struct Paced {
    chunk: u64,
    /// ns between writes (fractional, so that 1400 B at 1 Gb/s is exactly 11.2 us).
    interval: f64,
    /// Current on-window and the write attempts made in it.
    window: (Time, Time),
    attempts: u64,
    /// When the next write attempt of the window falls (its start plus `attempts`
    /// intervals, rounded up to the ns; past the window's end once it holds no
    /// more): worked out when the attempts change, read by every call in between.
    next_due: Time,
    onoff: Option<OnOff>,
}

#[derive(Debug)]
struct OnOff {
    periods: Periods,
    rng: Rng,
}

impl OnOff {
    fn draw(&mut self, mean_s: f64) -> Time {
        from_secs(match self.periods.distribution {
            PeriodDistribution::Constant => mean_s,
            // Inverse transform of a uniform in (0, 1].
            PeriodDistribution::Exponential => -mean_s * (1.0 - self.rng.random::<f64>()).ln(),
        })
    }
}

impl Source {
    pub fn new(app: &AppSpec, duration: Time, rng: Rng) -> Self {
        let start = from_secs(app.start_s);
        let stop = app.stop_s.map_or(duration, from_secs).min(duration);
        let kind = match app.traffic {
            Traffic::Bulk => Kind::Bulk,
            Traffic::Paced {
                rate_bps,
                write_bytes,
                onoff,
            } => {
                let chunk = write_bytes as u64;
                let mut onoff = onoff.map(|periods| OnOff { periods, rng });
                let first_end = match &mut onoff {
                    Some(o) => start + o.draw(o.periods.on_s),
                    None => stop,
                };
                Kind::Paced(Paced {
                    chunk,
                    interval: chunk as f64 * 8.0 * 1e9 / rate_bps,
                    window: (start, first_end.min(stop)),
                    attempts: 0,
                    next_due: start,
                    onoff,
                })
            }
        };
        Self {
            start,
            stop,
            kind,
            written: 0,
            acked: 0,
        }
    }

    /// Bytes written by `now`, given that `acked` bytes have left a send buffer of
    /// `buf` bytes. A write that finds the buffer full is lost, as with the papers'
    /// ns-3 application (`Socket::Send` fails and the packet is dropped).
    ///
    /// Calls need not come at every write: writes since the last call found the
    /// buffer as that call's `acked` left it, and only a write at `now` itself sees
    /// the new `acked` (at one instant ACKs come before the application's writes).
    /// So a sender whose buffer is full need not wake for writes that will be lost:
    /// the ACK that makes room calls here and settles them. `acked` must reach this
    /// call at every instant it grows.
    pub fn written(&mut self, now: Time, acked: u64, buf: u64) -> u64 {
        let acked_before = std::mem::replace(&mut self.acked, acked);
        if now < self.start {
            return self.written;
        }
        match &mut self.kind {
            Kind::Bulk => {
                if now < self.stop {
                    self.written = self.written.max(acked + buf);
                }
            }
            Kind::Paced(p) => {
                if acked != acked_before && now > 0 {
                    p.attempt_until(now - 1, acked_before + buf, &mut self.written, self.stop);
                }
                p.attempt_until(now, acked + buf, &mut self.written, self.stop);
            }
        }
        self.written
    }

    /// True when a write now would be lost: the buffer, with `acked` bytes gone
    /// from it, has no room for a whole write.
    pub fn buffer_full(&self, acked: u64, buf: u64) -> bool {
        match &self.kind {
            Kind::Bulk => self.written >= acked + buf,
            Kind::Paced(p) => (acked + buf).saturating_sub(self.written) < p.chunk,
        }
    }

    /// Bytes written as of the last call to [`Self::written`].
    pub fn written_so_far(&self) -> u64 {
        self.written
    }

    /// When the application next writes, if it ever does.
    pub fn next_write(&self) -> Option<Time> {
        match &self.kind {
            Kind::Bulk => (self.written == 0).then_some(self.start),
            Kind::Paced(p) => {
                let (t, we) = (p.next_due, p.window.1);
                (t < we && t < self.stop).then_some(t).or_else(|| {
                    // The window is exhausted; with on/off the next one starts
                    // after a silent period that `written` will draw.
                    (p.onoff.is_some() && we < self.stop).then_some(we)
                })
            }
        }
    }
}

/// `x.ceil() as Time` for `0 <= x < 2^63`, without `f64::ceil`'s library call on
/// baseline x86-64 (this runs at every write of a paced application), through
/// signed conversions (see `Paced::attempt_until`).
fn ceil_non_negative(x: f64) -> Time {
    let t = x as i64;
    (if (t as f64) < x { t + 1 } else { t }) as Time
}

impl Paced {
    /// Makes the write attempts due by `t` (those of windows before it too), each
    /// accepted while the written bytes stay within `limit` (acked + buffer).
    ///
    /// Inlined, so that the calls with nothing due (most calls from ACKs, between
    /// two writes) skip the call and the register saves of the count.
    #[inline]
    fn attempt_until(&mut self, t: Time, limit: u64, written: &mut u64, stop: Time) {
        // Nothing is due yet (with a nanosecond to spare for the rounding of the
        // count in `attempt_due`).
        if t.saturating_add(1) < self.next_due.min(self.window.1) {
            return;
        }
        self.attempt_due(t, limit, written, stop);
    }

    /// [`Self::attempt_until`] once a write may be due. Inside the current window
    /// (every call of a constant-rate writer before its stop) it needs no loop
    /// and leaves `next_due` alone unless a write was due: a lean frame, where
    /// the loop over windows and their draws spilled registers at every call.
    #[inline(never)]
    fn attempt_due(&mut self, t: Time, limit: u64, written: &mut u64, stop: Time) {
        let (ws, we) = self.window;
        if t >= we {
            return self.attempt_across_windows(t, limit, written, stop);
        }
        if t < ws {
            return;
        }
        let new = self.due_in_window(t).saturating_sub(self.attempts);
        if new == 0 {
            return;
        }
        // One write (the usual case) fits when the room holds a chunk: the
        // division's quotient, capped at 1, without the division.
        let room = limit.saturating_sub(*written);
        let ok = if new == 1 {
            (room >= self.chunk) as u64
        } else {
            new.min(room / self.chunk)
        };
        *written += ok * self.chunk;
        self.attempts += new;
        self.set_next_due();
    }

    /// Attempts of the current window due by `due_end`, which lies in it: its
    /// start plus the whole intervals since, plus one.
    #[inline(always)]
    fn due_in_window(&self, due_end: Time) -> u64 {
        // The quotient is non-negative, so truncation is its floor (`f64::floor` is
        // a library call on baseline x86-64); signed conversions are single
        // instructions there, unsigned ones are not, and times are far below 2^63.
        ((due_end - self.window.0) as i64 as f64 / self.interval) as i64 as u64 + 1
    }

    /// `next_due` from the attempts made (through a signed conversion, one
    /// instruction where the unsigned one takes five, exact below 2^63).
    #[inline(always)]
    fn set_next_due(&mut self) {
        let made = self.attempts as i64 as f64;
        self.next_due = self.window.0 + ceil_non_negative(made * self.interval);
    }

    /// [`Self::attempt_due`] at or past the current window's end: its last
    /// attempts, then those of the windows after it.
    #[cold]
    #[inline(never)]
    fn attempt_across_windows(&mut self, t: Time, limit: u64, written: &mut u64, stop: Time) {
        // Writes the buffer has room for, worked out only when one is due.
        let mut room = None;
        loop {
            let (ws, we) = self.window;
            let due_end = t.min(we.saturating_sub(1));
            if due_end >= ws {
                let new = self.due_in_window(due_end).saturating_sub(self.attempts);
                if new > 0 {
                    let room =
                        room.get_or_insert_with(|| limit.saturating_sub(*written) / self.chunk);
                    let ok = new.min(*room);
                    *written += ok * self.chunk;
                    *room -= ok;
                    self.attempts += new;
                }
            }
            if t < we || !self.next_window(stop) {
                break;
            }
        }
        self.set_next_due();
    }

    /// Moves to the next on-window after an off period; false when none is left
    /// (the window is then the empty one at `stop`, so nothing more is due).
    fn next_window(&mut self, stop: Time) -> bool {
        let Some(o) = &mut self.onoff else {
            return false;
        };
        let start = self.window.1 + o.draw(o.periods.off_s);
        if start >= stop {
            self.window = (stop, stop);
            return false;
        }
        let end = (start + o.draw(o.periods.on_s)).min(stop);
        self.window = (start, end);
        self.attempts = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;

    /// The application of a flow written in TOML, with 1400-byte default writes.
    fn app(toml_flow: &str) -> AppSpec {
        let c = crate::Config::from_toml(&format!("[[flows]]\n{toml_flow}\n")).unwrap();
        c.flows[0].app_spec(1400)
    }

    fn source(f: &str) -> Source {
        Source::new(&app(f), from_secs(10.0), RngStreams::new(1).stream("app"))
    }

    const BIG: u64 = 1 << 40;

    #[test]
    fn bulk_keeps_the_buffer_full() {
        let mut s = source("app = \"bulk\"");
        assert_eq!(s.written(0, 0, 1000), 1000);
        assert_eq!(s.written(5, 400, 1000), 1400);
    }

    #[test]
    fn rate_writer_writes_on_its_clock() {
        // 1400 B at 1 Gb/s: one write every 11.2 us, the first at t = 0.
        let mut s = source("app = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400");
        assert_eq!(s.written(0, 0, BIG), 1400);
        assert_eq!(s.next_write(), Some(11_200));
        assert_eq!(s.written(11_199, 0, BIG), 1400);
        assert_eq!(s.written(112_000, 0, BIG), 11 * 1400);
        // One simulated second writes 1 Gb.
        // Writes at 0, 11.2 us, ... before 1 s: floor((1e9 - 1) / 11200) + 1 of them.
        assert_eq!(s.written(from_secs(1.0) - 1, 0, BIG), 89_286 * 1400);
    }

    #[test]
    fn calls_between_writes_see_what_a_fresh_count_sees() {
        // A rate whose interval is not a whole number of ns (1000 B at 3 Gb/s:
        // 2666.67 ns), queried at every ns around many write instants: the early
        // return between writes must agree with counting afresh at each instant.
        let cfg = "app = \"rate\"\nrate_bps = 3e9\nwrite_bytes = 1000";
        let mut s = source(cfg);
        for now in (0..40_000).chain(1_000_000_000..1_000_040_000) {
            let fresh = source(cfg).written(now, 0, BIG);
            assert_eq!(s.written(now, 0, BIG), fresh, "at {now} ns");
        }
    }

    #[test]
    fn writes_that_find_the_buffer_full_are_lost() {
        let mut s = source("app = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400");
        // Ten writes are due but the buffer holds three.
        assert_eq!(s.written(100_000, 0, 3 * 1400), 3 * 1400);
        // Once acknowledged, only later writes succeed: the lost ones stay lost.
        // Writes 9 and 10 fall at 100.8 us and 112 us.
        assert_eq!(s.written(100_000, 3 * 1400, 3 * 1400), 3 * 1400);
        assert_eq!(s.written(112_000, 3 * 1400, 3 * 1400), 5 * 1400);
    }

    #[test]
    fn a_write_due_alone_needs_a_whole_chunk_of_room() {
        // One write at each call, into a buffer of two writes: the second finds
        // exactly a chunk of room and fits, the third none, the fourth a byte too
        // little; the fifth a whole chunk again.
        let mut s = source("app = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400");
        let buf = 2 * 1400;
        assert_eq!(s.written(0, 0, buf), 1400);
        assert_eq!(s.written(11_200, 0, buf), 2800);
        assert_eq!(s.written(22_400, 0, buf), 2800);
        assert_eq!(s.written(33_600, 1399, buf), 2800);
        assert_eq!(s.written(44_800, 1400, buf), 4200);
    }

    #[test]
    fn writes_before_an_ack_find_the_buffer_it_found() {
        // The buffer holds three writes; one is made at t = 0. An ACK of three
        // writes' bytes comes at 112 us, with no call in between: of the nine
        // writes before it two fit and seven are lost; the write at 112 us itself
        // sees the room the ACK made.
        let mut s = source("app = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400");
        let buf = 3 * 1400;
        assert_eq!(s.written(0, 0, buf), 1400);
        assert!(!s.buffer_full(0, buf));
        assert_eq!(s.written(112_000, 3 * 1400, buf), 4 * 1400);
        assert!(!s.buffer_full(3 * 1400, buf));
        assert_eq!(s.written(112_000, 3 * 1400, buf), 4 * 1400);
        assert!(s.buffer_full(1400, buf));
    }

    proptest::proptest! {
        /// A sender that skips the wake-ups of writes that find its buffer full,
        /// calling only when ACKs come, counts the same bytes as one woken at
        /// every write.
        #[test]
        fn calls_only_at_acks_count_what_calls_at_every_write_count(
            acks in proptest::collection::vec((1u64..200_000, 0u64..3), 1..40),
            buf_writes in 1u64..6,
        ) {
            let cfg = "app = \"rate\"\nrate_bps = 1e9\nwrite_bytes = 1400";
            let buf = buf_writes * 1400 + 200;
            let (mut lazy, mut eager) = (source(cfg), source(cfg));
            let (mut now, mut acked) = (0, 0);
            for (gap, writes_acked) in acks {
                // Every write instant up to the ACK, each with the acked count before it.
                let ack_at = now + gap;
                while let Some(t) = eager.next_write().filter(|&t| t < ack_at) {
                    eager.written(t, acked, buf);
                }
                acked = (acked + writes_acked * 1400).min(eager.written_so_far());
                now = ack_at;
                proptest::prop_assert_eq!(lazy.written(now, acked, buf), eager.written(now, acked, buf));
            }
        }
    }

    proptest::proptest! {
        /// An on/off writer called at any instants, inside its windows (the count's
        /// own path) or across them (the loop), counts what one call counts.
        #[test]
        fn on_off_calls_anywhere_count_what_one_call_counts(
            gaps in proptest::collection::vec(1u64..3_000_000, 1..60),
        ) {
            let cfg = "app = \"onoff\"\nrate_bps = 1e8\nwrite_bytes = 1000\non_s = 0.002\noff_s = 0.001";
            let mut s = source(cfg);
            let mut now = 0;
            for gap in gaps {
                now += gap;
                let mut fresh = source(cfg);
                proptest::prop_assert_eq!(s.written(now, 0, BIG), fresh.written(now, 0, BIG), "at {} ns", now);
                proptest::prop_assert_eq!(s.next_write(), fresh.next_write());
            }
        }
    }

    #[test]
    fn constant_on_off_alternates() {
        let mut s = source(
            "app = \"onoff\"\nrate_bps = 8e6\nwrite_bytes = 1000\non_s = 0.001\noff_s = 0.001\nperiod_distribution = \"constant\"",
        );
        // 8 Mb/s of 1000-byte writes is one write per ms: one write per on period.
        assert_eq!(s.written(0, 0, BIG), 1000);
        assert_eq!(s.written(from_secs(0.0019), 0, BIG), 1000, "off period");
        assert_eq!(
            s.written(from_secs(0.002), 0, BIG),
            2000,
            "second on period"
        );
        assert_eq!(s.next_write(), Some(from_secs(0.003)));
    }

    #[test]
    fn a_call_at_a_windows_end_counts_only_its_writes() {
        // One write per ms in on periods of 2 ms every 3 ms: a call at 2 ms, the
        // first window's end, finds its two writes and none of its own instant.
        let mut s = source(
            "app = \"onoff\"\nrate_bps = 8e6\nwrite_bytes = 1000\non_s = 0.002\noff_s = 0.001\nperiod_distribution = \"constant\"",
        );
        assert_eq!(s.written(from_secs(0.001), 0, BIG), 2000);
        assert_eq!(s.written(from_secs(0.002), 0, BIG), 2000);
        assert_eq!(s.written(from_secs(0.003), 0, BIG), 3000);
    }

    #[test]
    fn on_off_stops_writing_when_the_next_on_period_would_start_after_stop() {
        // On 0-6 s, off 6 s: the next period would start at 12 s, after the 10 s run.
        let mut s = source(
            "app = \"onoff\"\nrate_bps = 8e6\nwrite_bytes = 1000\non_s = 6\noff_s = 6\nperiod_distribution = \"constant\"",
        );
        assert_eq!(s.written(from_secs(6.5), 0, BIG), 6000 * 1000);
        // No wake-up is left: before the fix the sender woke every ns until the end.
        assert_eq!(s.next_write(), None);
        assert_eq!(s.written(from_secs(9.0), 0, BIG), 6000 * 1000);
    }

    #[test]
    fn exponential_on_off_averages_the_duty_cycle() {
        let mut s = source(
            "app = \"onoff\"\nrate_bps = 8e6\nwrite_bytes = 100\non_s = 0.01\noff_s = 0.03\nstop_s = 10",
        );
        let bytes = s.written(from_secs(10.0), 0, BIG) as f64;
        let expected = 1e6 * 10.0 * 0.25;
        assert!(
            (bytes - expected).abs() < 0.1 * expected,
            "{bytes} vs {expected}"
        );
    }

    #[test]
    fn nothing_before_start_or_after_stop() {
        let mut s = source("app = \"rate\"\nrate_bps = 1e9\nstart_s = 1\nstop_s = 2");
        assert_eq!(s.written(from_secs(0.5), 0, BIG), 0);
        assert_eq!(s.next_write(), Some(from_secs(1.0)));
        let all = s.written(from_secs(5.0), 0, BIG);
        assert!((all as f64 - 125e6).abs() <= 1400.0, "{all}");
        assert_eq!(s.next_write(), None);
    }
}
