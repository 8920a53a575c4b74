//! FB-TCP (Poorzare and Calveras Augé, "FB-TCP: A 5G mmWave Friendly TCP for Urban
//! Deployments", IEEE Access 2021; the FB-TCP paper), as docs/algorithms.md section
//! "FB-TCP" fixes it, with the authors' public ns-3 code (`Tcpfbtcp`, a
//! `TcpNewReno` child built on ns-3's `TcpVegas`) as the reference wherever the paper is
//! silent.
//!
//! # What it does
//!
//! FB-TCP is delay/model-based and reacts **once per RTT cycle**, Vegas-style, and only
//! in the Open state. A cycle ends on the first ACK whose cumulative acknowledgement
//! passes the `snd_nxt` recorded when the cycle began; cwnd does not move between
//! cycle ends.
//! Over the cycle it keeps `baseRtt` (the connection's minimum RTT), `minRtt` (the
//! cycle's minimum RTT sample) and the number of samples. At a cycle end:
//!
//! 1. fewer than `min_rtt_samples` (3) samples: one NewReno step, nothing else;
//! 2. otherwise `CSI = baseRtt / minRtt`, `targetCwnd = floor(cwnd x CSI)`,
//!    `Diff = cwnd - targetCwnd`, `CAD = targetCwnd / cwnd` (Eqs. 2-4 and 6);
//! 3. start-up: while `cwnd < startup_cwnd` (900 segments) the window doubles;
//! 4. otherwise `maxCwnd = max(maxCwnd, rate x baseRtt / 8 / MSS x rho)` (Eq. 1) and
//!    the fuzzy rules run: Convergence (Tables 1-4) when `cwnd <= maxCwnd`, Divergence
//!    (Tables 5-6) otherwise, first matching row of [`RuleTable`] wins;
//! 5. every cycle of steps 3-4 ends with `ssthresh = max(ssthresh, 0.75 cwnd)`.
//!
//! A loss (duplicate ACKs/SACK or timeout alike) sets `ssthresh = max(min(ssthresh,
//! cwnd - 1), 2)` (the reference's `GetSsThresh`): while ssthresh is still infinite this
//! takes one segment off, the "immunity to random loss" the paper reports. Outside the
//! Open state NewReno's per-ACK rules apply (reference: `TcpNewReno::IncreaseWindow`).
//!
//! # The rule table and its trace codes
//!
//! | code | rule | CSI | condition | action (default) |
//! | --- | --- | --- | --- | --- |
//! | 1-5 | C1-C5 | [0.98, 1] | Diff <= 10, (10, 15], (15, 20], (20, 30], > 30 | + a..e |
//! | 6 / 7 | C6 / C7 | [0.95, 0.98] | CAD >= 0.95 / < 0.95 | + f (40) / + g (30) |
//! | 8 / 9 | C8 / C9 | [0.7, 0.98) | CAD >= 0.95 / < 0.95 | + h (25) / + i (20) |
//! | 10, 10.5 | C10 | [0.3, 0.7) | - | hold; 31st: x alpha, maxCwnd x beta (0.9) |
//! | 11, 11.5 | C11, C11.b | [0.05, 0.3) | CAD >= 0.95 | - j (10), - k (20) |
//! | 12, 12.5 | C12, C12.b | [0.05, 0.3) | CAD < 0.95 | - l (25), - m (50) |
//! | 13, 13.5 | C13, C13.b | [0, 0.05) | CAD >= 0.95 | x n (0.75), / o (2) |
//! | 14, 14.5 | C14, C14.b | [0, 0.05) | CAD < 0.95 | x p (0.4), / q (3) |
//! | 101 | D1 | [0.99, 1] | - | + r (1) |
//! | 102 | D2 | [0.7, 0.99) | CAD >= 0.95 | + s (1) |
//! | 103, 103.5 | D3 | [0.7, 0.99) | CAD < 0.95 | hold; 31st: x gamma, maxCwnd x theta |
//! | 104, 104.5 | D4 | [0.3, 0.7) | - | as D3 |
//! | 105, 105.5 | D5, D5.b | [0.05, 0.3) | - | x t (0.75), / u (2) |
//! | 106, 106.5 | D6, D6.b | [0, 0.05) | - | / v (2), / w (4) |
//! | 0 | none | outside [0, 1] | - | hold, both counters reset (see below) |
//! | -1 | NewReno fallback | | fewer than `min_rtt_samples` samples | one NewReno step |
//! | -2 | start-up | | `cwnd < startup_cwnd` | cwnd x `startup_gain` (2) |
//! | -3 | | | no FB-TCP cycle has ended yet | |
//!
//! Add-rows (C1-C9: a..i = 120, 100, 70, 60, 50, 40, 30, 25, 20; D1, D2: r, s = 1, 1)
//! grow the window by that many segments. Code 0 is the reference's "None of the
//! conditions" branch, unreachable since `baseRtt <= minRtt` keeps CSI in [0, 1].
//! A `.5` code is the ".b" variant of a decrease rule, or the x0.9 step of a hold rule.
//! Note that CAD equals CSI up to the floor in `targetCwnd` (CAD <= CSI), so C8, C11
//! and C13 (CAD >= 0.95 with CSI < 0.95) cannot fire with the seed's definitions, and
//! C7 only where the floor pulls CAD just under 0.95; the project keeps the rows as
//! written, and [`RuleTable::decide`] takes CSI, CAD and Diff as independent inputs so
//! that every row is testable.
//!
//! # Counters (per connection)
//!
//! - `congestion`: consecutive decrease cycles (C11-C14, D5, D6, whichever row).
//!   The "a" action applies while it is below `b_variant_cycle` (3), the ".b" action on
//!   the third, which resets it. The paper says "the same sub-phase for more than two
//!   consecutive RTTs"; the reference (and the project's reading) count any decrease rule, which is
//!   what is built.
//! - `hold`: consecutive hold cycles (C10, D3, D4 share it, as in the reference). Cycles
//!   1..=`hold_cycles` (30) hold; the next one (the 31st) applies the row's x0.9 steps to
//!   cwnd and maxCwnd and resets it. A hold cycle resets `congestion`; a decrease cycle
//!   resets `hold`; an increase row (and row 0) resets both.
//!
//! NewReno-fallback cycles, start-up cycles and time outside Open leave both counters
//! as they are (the reference touches them only inside the rule branches). The
//! reference keeps the counters and maxCwnd in C++ globals shared by every flow of the
//! simulation; the project calls that a bug, and here they belong to the instance.
//!
//! # Decisions where the seed or the reference is ambiguous
//!
//! - **Cycle end.** Default `cycle_end = "passed"`: the cycle ends when `snd_una >` the
//!   recorded `snd_nxt`, the project's reading, "the cumulative ACK passes the snd_nxt recorded at
//!   the cycle's start" read as [`super::vegas`] reads it (Linux `tcp_vegas`'s
//!   `after(ack, beg_snd_nxt)`). `"reached"` is the reference's `m_lastAckedSeq >=
//!   m_begSndNxt` (all data outstanding at the cycle start acknowledged), which ends
//!   each cycle one ACK earlier.
//! - **NewReno fallback.** As the reference, one NewReno step on the cycle-ending ACK
//!   (slow start while `cwnd < ssthresh`, else `1/cwnd` per segment), computed per
//!   acknowledged segment as Linux and [`super::newreno`] do by default; ns-3 counts
//!   per ACK (`reno_increase_per`). It touches neither counters nor ssthresh.
//! - **Start-up.** As the reference: doubling happens only at cycle ends with enough
//!   RTT samples (the check sits after the fallback test), ignores ssthresh (the
//!   reference comments `m_ssThresh` out in favour of the fixed 900), and runs again
//!   whenever cwnd falls below 900 in Open (after an RTO's slow start, or a deep
//!   decrease). There is no growth between cycle ends, unlike Vegas' Reno slow start.
//! - **maxCwnd.** Updated at rule cycles only (cwnd >= 900; the reference computes it
//!   in that branch), from the rate of the last *completed* window, with `baseRtt` (the
//!   reference; the paper's Eq. 1 writes `minRtt` but defines it as "the minimum RTT in
//!   the network for a connection", which is `baseRtt`). It starts at 0, so until a
//!   window has completed every rule cycle is in Divergence. Kept in floating point
//!   (the reference truncates it to whole segments, less than one segment apart).
//! - **Rate.** `rate_source = "sender"` (default, deployable): bytes newly acknowledged
//!   (cumulatively or by SACK, `acked_sacked x MSS`) per window at the sender.
//!   `"receiver"` (an oracle on windows of its own, not the scripts' grid: see `"sink"`):
//!   the growth of `LinkHints::receiver_delivered_bytes`. Windows of `rate_window_ms`
//!   (100 ms) start at `init`; one closes at the first ACK at least `rate_window_ms`
//!   after it opened, and the rate is its bytes over its actual length (an algorithm
//!   sees time only on ACKs; dividing by the nominal 100 ms would overstate the rate
//!   after an ACK gap). The next window opens at that ACK.
//!   `"sink"` is what the paper's scripts hand the reference code: their
//!   `CalculateThroughput` runs at 0 s and then every 100 ms, sets a global to the
//!   sink's bytes of the last 100 ms x 8 / 0.1 s (bit/s), and the reference reads that
//!   global at its rule cycles. So the rate is that of the last complete interval of a
//!   fixed 100 ms grid from time 0 (`LinkHints::receiver_grid`), held until the next
//!   grid point: 0 to 100 ms old at its end when a cycle reads it, 0 before 0.1 s.
//!   `rate_window_ms` does not apply to it (values other than 100 are refused).
//! - **ssthresh in decrease rules.** The reference writes the new cwnd first and then
//!   calls `GetSsThresh`, so a decrease sets `ssthresh = max(min(ssthresh, cwnd' - 1),
//!   2)` with the *new* window `cwnd'`, for the "a" and ".b" actions alike; the x0.9
//!   hold steps do not lower ssthresh. The end-of-cycle `max(ssthresh, 0.75 cwnd)` runs
//!   after both, as in the reference (and ns-3 Vegas, which it comes from).
//! - **Floors.** cwnd stays >= 1 segment after a rule (never binding with the
//!   defaults: rules run at cwnd >= 900 and the deepest cut is /4); ssthresh >= 2.
//! - **RTT samples.** Non-positive samples are ignored (the reference skips zero RTTs).
//!   Samples count in any state; entering Open starts a fresh cycle (the reference's
//!   `Enablefbtcp`), which clears the cycle's minimum and count but keeps `baseRtt`,
//!   maxCwnd and the counters.
//!
//! Written in floating point from the paper, the project's decisions and the behaviour of the
//! reference code; the reference's integer segment arithmetic (`GetCwndInSegments`,
//! `uint32_t diff`) is not reproduced beyond the project's `floor` in `targetCwnd`.

use super::newreno::{IncreasePer, reno_grow};
use super::{
    CaState, CongestionControl, Range, RateSample, SINK_GRID, Socket, check_ranges,
    floor_non_negative, parse_params,
};
use crate::engine::{Time, to_secs};
use serde::Deserialize;

pub const SUMMARY: &str = "FB-TCP (Poorzare & Calveras 2021): per-RTT fuzzy rules on CSI/CAD/Diff \
     around maxCwnd from the delivered rate; a loss takes one segment off";

/// Where the delivered rate behind maxCwnd is measured.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RateSource {
    /// Bytes acknowledged at the sender per window: what a real sender can know.
    Sender,
    /// Bytes received by the receiving application per window
    /// (`LinkHints::receiver_delivered_bytes`): the reference code's oracle.
    Receiver,
    /// The receiving application's bytes of the last complete interval of the fixed
    /// 100 ms grid from time 0 (`LinkHints::receiver_grid`), held between grid points:
    /// exactly what the paper's scripts hand the reference code.
    Sink,
}

/// Which cumulative ACK ends a cycle, compared with the `snd_nxt` recorded at its start.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CycleEnd {
    /// `snd_una > snd_nxt` at the start: the project's reading, "passes", Linux `tcp_vegas`.
    Passed,
    /// `snd_una >= snd_nxt` at the start: the reference code (ns-3 `TcpVegas` style).
    Reached,
}

/// Every constant of the paper, with its value as default. The one-letter names are
/// the paper's (Tables 2, 4 and 6), so a config reads against the tables.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// `true` runs the kernel program's integer arithmetic (the fixed-point twin,
    /// docs/kernel.md) instead of this floating-point version; with default
    /// parameters only. Default false.
    pub fixed_point: bool,
    /// Table 2: segments added by C1 (120), C2 (100), C3 (70), C4 (60), C5 (50),
    /// C6 (40), C7 (30), C8 (25), C9 (20).
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub e: f64,
    pub f: f64,
    pub g: f64,
    pub h: f64,
    pub i: f64,
    /// Table 4: segments taken off by C11 (10), C11.b (20), C12 (25), C12.b (50).
    pub j: f64,
    pub k: f64,
    pub l: f64,
    pub m: f64,
    /// Table 4: C13 multiplies by `n` (0.75), C13.b divides by `o` (2), C14 multiplies
    /// by `p` (0.4), C14.b divides by `q` (3).
    pub n: f64,
    pub o: f64,
    pub p: f64,
    pub q: f64,
    /// Table 6: segments added by D1 (`r`, 1) and D2 (`s`, 1); D5 multiplies by `t`
    /// (0.75), D5.b divides by `u` (2), D6 divides by `v` (2), D6.b by `w` (4).
    pub r: f64,
    pub s: f64,
    pub t: f64,
    pub u: f64,
    pub v: f64,
    pub w: f64,
    /// Eqs. 7-8: C10's step after `hold_cycles` cycles, on cwnd (`alpha`, 0.9) and on
    /// maxCwnd (`beta`, 0.9).
    pub alpha: f64,
    pub beta: f64,
    /// Eqs. 9-10: the same for D3 and D4 (`gamma`, `theta`, 0.9 each).
    pub gamma: f64,
    pub theta: f64,
    /// Hold cycles before the x0.9 step: the step fires on hold cycle
    /// `hold_cycles + 1` (the paper: "more than thirty consecutive RTTs"; the
    /// reference: `fixCounter <= 30` holds). Default 30.
    pub hold_cycles: u32,
    /// The consecutive decrease cycle that gets the ".b" action (the paper: "more than
    /// two RTTs"; the reference: `congestionCounter < 3` is "a"). Default 3.
    pub b_variant_cycle: u32,
    /// Start-up doubles cwnd once per cycle while `cwnd < startup_cwnd` (900 segments,
    /// "roughly double the conventional TCP's slow start threshold").
    pub startup_cwnd: f64,
    /// Start-up growth factor per cycle (2: "doubles the sending rate in every RTT").
    pub startup_gain: f64,
    /// RTT samples a cycle needs for FB-TCP's rules; fewer means NewReno for that
    /// cycle (reference: `m_cntRtt <= 2` falls back). Default 3.
    pub min_rtt_samples: u32,
    /// Eq. 1: maxCwnd is the delivered rate's BDP times `rho` (1.05).
    pub rho: f64,
    /// Length of the delivered-rate windows in ms (100, "every 100 ms").
    pub rate_window_ms: f64,
    /// Where the delivered rate is measured. Default `sender`; `receiver` and `sink`
    /// read the receiver (an oracle); `sink` on the paper's scripts' 100 ms grid.
    pub rate_source: RateSource,
    /// After every FB-TCP cycle, `ssthresh = max(ssthresh, ssthresh_keep x cwnd)`
    /// (0.75, the reference's `3 * m_cWnd / 4`, inherited from ns-3 Vegas).
    pub ssthresh_keep: f64,
    /// Lower CSI edge of C1-C5 (0.98), which is also the upper edge of C6-C9.
    pub csi_c1: f64,
    /// Lower CSI edge of C6/C7 (0.95).
    pub csi_c6: f64,
    /// Lower CSI edge of C8/C9 (0.7), upper edge of C10.
    pub csi_c8: f64,
    /// Lower CSI edge of C10 (0.3), upper edge of C11/C12.
    pub csi_c10: f64,
    /// Lower CSI edge of C11/C12 (0.05), upper edge of C13/C14.
    pub csi_c11: f64,
    /// Lower CSI edge of D1 (0.99), upper edge of D2/D3.
    pub csi_d1: f64,
    /// Lower CSI edge of D2/D3 (0.7), upper edge of D4.
    pub csi_d2: f64,
    /// Lower CSI edge of D4 (0.3), upper edge of D5.
    pub csi_d4: f64,
    /// Lower CSI edge of D5 (0.05), upper edge of D6.
    pub csi_d5: f64,
    /// Diff upper edges (inclusive) of C1 (10), C2 (15), C3 (20), C4 (30); C5 is above.
    pub diff_c1: f64,
    pub diff_c2: f64,
    pub diff_c3: f64,
    pub diff_c4: f64,
    /// CAD threshold of C6-C9, C11-C14, D2 and D3 (`CAD >= 0.95` or `< 0.95`).
    pub cad_threshold: f64,
    /// When a cycle ends. Default `passed` (the project's decision, Linux Vegas); `reached` is the
    /// reference code's test (see [`CycleEnd`]).
    pub cycle_end: CycleEnd,
    /// NewReno's growth outside Open and in cycles with too few RTT samples: per
    /// acknowledged segment (`segment`, Linux `tcp_reno_cong_avoid`), or per ACK as
    /// the reference's `TcpNewReno::IncreaseWindow` (`ack_bytes` on ns-3 3.29: one
    /// segment per ACK in slow start, `max(1, MSS^2 / cwnd)` whole bytes after).
    pub reno_increase_per: IncreasePer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            fixed_point: false,
            a: 120.0,
            b: 100.0,
            c: 70.0,
            d: 60.0,
            e: 50.0,
            f: 40.0,
            g: 30.0,
            h: 25.0,
            i: 20.0,
            j: 10.0,
            k: 20.0,
            l: 25.0,
            m: 50.0,
            n: 0.75,
            o: 2.0,
            p: 0.4,
            q: 3.0,
            r: 1.0,
            s: 1.0,
            t: 0.75,
            u: 2.0,
            v: 2.0,
            w: 4.0,
            alpha: 0.9,
            beta: 0.9,
            gamma: 0.9,
            theta: 0.9,
            hold_cycles: 30,
            b_variant_cycle: 3,
            startup_cwnd: 900.0,
            startup_gain: 2.0,
            min_rtt_samples: 3,
            rho: 1.05,
            rate_window_ms: 100.0,
            rate_source: RateSource::Sender,
            ssthresh_keep: 0.75,
            csi_c1: 0.98,
            csi_c6: 0.95,
            csi_c8: 0.7,
            csi_c10: 0.3,
            csi_c11: 0.05,
            csi_d1: 0.99,
            csi_d2: 0.7,
            csi_d4: 0.3,
            csi_d5: 0.05,
            diff_c1: 10.0,
            diff_c2: 15.0,
            diff_c3: 20.0,
            diff_c4: 30.0,
            cad_threshold: 0.95,
            cycle_end: CycleEnd::Passed,
            reno_increase_per: IncreasePer::Segment,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        use Range::*;
        check_ranges(&[
            ("a", self.a, NonNegative),
            ("b", self.b, NonNegative),
            ("c", self.c, NonNegative),
            ("d", self.d, NonNegative),
            ("e", self.e, NonNegative),
            ("f", self.f, NonNegative),
            ("g", self.g, NonNegative),
            ("h", self.h, NonNegative),
            ("i", self.i, NonNegative),
            ("j", self.j, NonNegative),
            ("k", self.k, NonNegative),
            ("l", self.l, NonNegative),
            ("m", self.m, NonNegative),
            ("n", self.n, OpenUnit),
            ("o", self.o, AboveOne),
            ("p", self.p, OpenUnit),
            ("q", self.q, AboveOne),
            ("r", self.r, NonNegative),
            ("s", self.s, NonNegative),
            ("t", self.t, OpenUnit),
            ("u", self.u, AboveOne),
            ("v", self.v, AboveOne),
            ("w", self.w, AboveOne),
            ("alpha", self.alpha, OpenUnit),
            ("beta", self.beta, OpenUnit),
            ("gamma", self.gamma, OpenUnit),
            ("theta", self.theta, OpenUnit),
            (
                "b_variant_cycle",
                f64::from(self.b_variant_cycle),
                AtLeastOne,
            ),
            ("startup_cwnd", self.startup_cwnd, NonNegative),
            ("startup_gain", self.startup_gain, AtLeastOne),
            (
                "min_rtt_samples",
                f64::from(self.min_rtt_samples),
                AtLeastOne,
            ),
            ("rho", self.rho, Positive),
            ("rate_window_ms", self.rate_window_ms, Positive),
            ("ssthresh_keep", self.ssthresh_keep, NonNegative),
            ("csi_c1", self.csi_c1, OpenUnit),
            ("csi_c6", self.csi_c6, OpenUnit),
            ("csi_c8", self.csi_c8, OpenUnit),
            ("csi_c10", self.csi_c10, OpenUnit),
            ("csi_c11", self.csi_c11, OpenUnit),
            ("csi_d1", self.csi_d1, OpenUnit),
            ("csi_d2", self.csi_d2, OpenUnit),
            ("csi_d4", self.csi_d4, OpenUnit),
            ("csi_d5", self.csi_d5, OpenUnit),
            ("diff_c1", self.diff_c1, NonNegative),
            ("diff_c2", self.diff_c2, NonNegative),
            ("diff_c3", self.diff_c3, NonNegative),
            ("diff_c4", self.diff_c4, NonNegative),
            ("cad_threshold", self.cad_threshold, OpenUnit),
        ])?;
        if self.rate_source == RateSource::Sink
            && crate::engine::from_secs(self.rate_window_ms * 1e-3) != SINK_GRID
        {
            return Err(format!(
                "rate_window_ms = {}: rate_source = \"sink\" samples the scripts' fixed 100 ms grid; \
                 leave rate_window_ms at 100 or use rate_source \"sender\" or \"receiver\"",
                self.rate_window_ms
            ));
        }
        if !self.startup_cwnd.is_finite() {
            return Err(format!(
                "startup_cwnd = {}: must be finite",
                self.startup_cwnd
            ));
        }
        // Each chain must be increasing for the bands to be the paper's.
        let chains: [&[(&str, f64)]; 3] = [
            &[
                ("csi_c11", self.csi_c11),
                ("csi_c10", self.csi_c10),
                ("csi_c8", self.csi_c8),
                ("csi_c6", self.csi_c6),
                ("csi_c1", self.csi_c1),
            ],
            &[
                ("csi_d5", self.csi_d5),
                ("csi_d4", self.csi_d4),
                ("csi_d2", self.csi_d2),
                ("csi_d1", self.csi_d1),
            ],
            &[
                ("diff_c1", self.diff_c1),
                ("diff_c2", self.diff_c2),
                ("diff_c3", self.diff_c3),
                ("diff_c4", self.diff_c4),
            ],
        ];
        for chain in chains {
            for pair in chain.windows(2) {
                let ((lo_key, lo), (hi_key, hi)) = (pair[0], pair[1]);
                if lo >= hi {
                    return Err(format!(
                        "{lo_key} = {lo} >= {hi_key} = {hi}: the band edges must increase"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Smallest slow-start threshold (RFC 5681, the reference's `2 * segmentSize`).
const MIN_SSTHRESH: f64 = 2.0;
/// Smallest window FB-TCP's rules leave (the common floor of one segment).
const MIN_CWND: f64 = 1.0;

/// Trace codes that are not rows of the table (see the module documentation).
pub const RULE_NONE: f64 = 0.0;
pub const RULE_NEWRENO: f64 = -1.0;
pub const RULE_STARTUP: f64 = -2.0;
pub const RULE_NO_CYCLE: f64 = -3.0;
/// Added to a row's code for its ".b" action or its x0.9 hold step.
const B_VARIANT: f64 = 0.5;

/// One change of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// `cwnd + x` (negative to take segments off).
    Add(f64),
    /// `cwnd x x`.
    Mul(f64),
    /// `cwnd / x`.
    Div(f64),
}

impl Step {
    fn apply(self, cwnd: f64) -> f64 {
        match self {
            Step::Add(x) => cwnd + x,
            Step::Mul(x) => cwnd * x,
            Step::Div(x) => cwnd / x,
        }
    }
}

/// What a row does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Grow by the given segments; resets both counters (C1-C9, D1, D2).
    Increase(f64),
    /// Keep the window; on the hold cycle after `hold_cycles`, scale cwnd by `cwnd` and
    /// maxCwnd by `max_cwnd` instead (C10, D3, D4).
    Hold { cwnd: f64, max_cwnd: f64 },
    /// Shrink by `a`, or by `b` on the `b_variant_cycle`-th consecutive decrease cycle;
    /// both lower ssthresh (C11-C14, D5, D6).
    Decrease { a: Step, b: Step },
}

/// Which side of the row's condition on Diff or CAD must hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extra {
    Any,
    /// `above < Diff <= at_most`.
    Diff {
        above: f64,
        at_most: f64,
    },
    /// `CAD >= threshold`.
    CadAtLeast(f64),
    /// `CAD < threshold`.
    CadBelow(f64),
}

/// One row of Tables 1, 3 and 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Trace code: C1..C14 = 1..14, D1..D6 = 101..106.
    pub code: f64,
    /// `csi_lo <= CSI`, and `CSI <= csi_hi` (`hi_inclusive`) or `CSI < csi_hi`.
    pub csi_lo: f64,
    pub csi_hi: f64,
    pub hi_inclusive: bool,
    pub extra: Extra,
    pub action: Action,
}

impl Row {
    fn matches(&self, x: &CycleInput) -> bool {
        let below_hi = if self.hi_inclusive {
            x.csi <= self.csi_hi
        } else {
            x.csi < self.csi_hi
        };
        self.csi_lo <= x.csi
            && below_hi
            && match self.extra {
                Extra::Any => true,
                Extra::Diff { above, at_most } => above < x.diff && x.diff <= at_most,
                Extra::CadAtLeast(t) => x.cad >= t,
                Extra::CadBelow(t) => x.cad < t,
            }
    }
}

/// A rule cycle's inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CycleInput {
    pub csi: f64,
    pub cad: f64,
    pub diff: f64,
    pub cwnd: f64,
    /// maxCwnd already updated with this cycle's rate.
    pub max_cwnd: f64,
}

/// The two counters the rules keep (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Consecutive decrease cycles (the reference's `congestionCounter`).
    pub congestion: u32,
    /// Consecutive hold cycles (the reference's `fixCounter`).
    pub hold: u32,
}

/// What a rule cycle decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// The trace code of the row that fired (plus 0.5 for ".b" or a hold step).
    pub rule: f64,
    pub cwnd: f64,
    pub max_cwnd: f64,
    pub counters: Counters,
    /// A decrease row fired: ssthresh is lowered to `max(min(ssthresh, cwnd - 1), 2)`.
    pub lower_ssthresh: bool,
}

/// The fuzzy rules as data: Convergence and Divergence rows in the paper's order.
#[derive(Clone, Debug)]
pub struct RuleTable {
    pub convergence: [Row; 14],
    pub divergence: [Row; 6],
    pub hold_cycles: u32,
    pub b_variant_cycle: u32,
}

impl RuleTable {
    pub fn new(p: &Params) -> Self {
        use Action::{Decrease, Hold, Increase};
        use Extra::{Any, CadAtLeast, CadBelow, Diff};
        let row = |code, (csi_lo, csi_hi, hi_inclusive), extra, action| Row {
            code,
            csi_lo,
            csi_hi,
            hi_inclusive,
            extra,
            action,
        };
        let (cad_hi, cad_lo) = (CadAtLeast(p.cad_threshold), CadBelow(p.cad_threshold));
        let diff = |above, at_most| Diff { above, at_most };
        let inf = f64::INFINITY;
        // Tables 1 and 3: (lower, upper, upper inclusive) CSI edges as the paper writes them.
        let c1 = (p.csi_c1, 1.0, true);
        let c6 = (p.csi_c6, p.csi_c1, true);
        let c8 = (p.csi_c8, p.csi_c1, false);
        let c10 = (p.csi_c10, p.csi_c8, false);
        let c11 = (p.csi_c11, p.csi_c10, false);
        let c13 = (0.0, p.csi_c11, false);
        let hold_c = Hold {
            cwnd: p.alpha,
            max_cwnd: p.beta,
        };
        let convergence = [
            row(1.0, c1, diff(-inf, p.diff_c1), Increase(p.a)),
            row(2.0, c1, diff(p.diff_c1, p.diff_c2), Increase(p.b)),
            row(3.0, c1, diff(p.diff_c2, p.diff_c3), Increase(p.c)),
            row(4.0, c1, diff(p.diff_c3, p.diff_c4), Increase(p.d)),
            row(5.0, c1, diff(p.diff_c4, inf), Increase(p.e)),
            row(6.0, c6, cad_hi, Increase(p.f)),
            row(7.0, c6, cad_lo, Increase(p.g)),
            row(8.0, c8, cad_hi, Increase(p.h)),
            row(9.0, c8, cad_lo, Increase(p.i)),
            row(10.0, c10, Any, hold_c),
            row(
                11.0,
                c11,
                cad_hi,
                Decrease {
                    a: Step::Add(-p.j),
                    b: Step::Add(-p.k),
                },
            ),
            row(
                12.0,
                c11,
                cad_lo,
                Decrease {
                    a: Step::Add(-p.l),
                    b: Step::Add(-p.m),
                },
            ),
            row(
                13.0,
                c13,
                cad_hi,
                Decrease {
                    a: Step::Mul(p.n),
                    b: Step::Div(p.o),
                },
            ),
            row(
                14.0,
                c13,
                cad_lo,
                Decrease {
                    a: Step::Mul(p.p),
                    b: Step::Div(p.q),
                },
            ),
        ];
        // Table 5.
        let hold_d = Hold {
            cwnd: p.gamma,
            max_cwnd: p.theta,
        };
        let d2 = (p.csi_d2, p.csi_d1, false);
        let d5 = Decrease {
            a: Step::Mul(p.t),
            b: Step::Div(p.u),
        };
        let d6 = Decrease {
            a: Step::Div(p.v),
            b: Step::Div(p.w),
        };
        let divergence = [
            row(101.0, (p.csi_d1, 1.0, true), Any, Increase(p.r)),
            row(102.0, d2, cad_hi, Increase(p.s)),
            row(103.0, d2, cad_lo, hold_d),
            row(104.0, (p.csi_d4, p.csi_d2, false), Any, hold_d),
            row(105.0, (p.csi_d5, p.csi_d4, false), Any, d5),
            row(106.0, (0.0, p.csi_d5, false), Any, d6),
        ];
        Self {
            convergence,
            divergence,
            hold_cycles: p.hold_cycles,
            b_variant_cycle: p.b_variant_cycle,
        }
    }

    /// One rule cycle, a pure function: Convergence when `cwnd <= maxCwnd`, else
    /// Divergence; the first matching row acts on the window, maxCwnd and counters.
    pub fn decide(&self, x: &CycleInput, counters: Counters) -> Outcome {
        let rows: &[Row] = if x.cwnd <= x.max_cwnd {
            &self.convergence
        } else {
            &self.divergence
        };
        let keep = |rule, counters| Outcome {
            rule,
            cwnd: x.cwnd,
            max_cwnd: x.max_cwnd,
            counters,
            lower_ssthresh: false,
        };
        let Some(row) = rows.iter().find(|r| r.matches(x)) else {
            return keep(RULE_NONE, Counters::default());
        };
        match row.action {
            Action::Increase(n) => Outcome {
                cwnd: x.cwnd + n,
                ..keep(row.code, Counters::default())
            },
            Action::Hold { cwnd, max_cwnd } => {
                let hold = counters.hold + 1;
                if hold <= self.hold_cycles {
                    keep(
                        row.code,
                        Counters {
                            congestion: 0,
                            hold,
                        },
                    )
                } else {
                    Outcome {
                        rule: row.code + B_VARIANT,
                        cwnd: x.cwnd * cwnd,
                        max_cwnd: x.max_cwnd * max_cwnd,
                        counters: Counters::default(),
                        lower_ssthresh: false,
                    }
                }
            }
            Action::Decrease { a, b } => {
                let congestion = counters.congestion + 1;
                let (rule, step, counters) = if congestion < self.b_variant_cycle {
                    (
                        row.code,
                        a,
                        Counters {
                            congestion,
                            hold: 0,
                        },
                    )
                } else {
                    (row.code + B_VARIANT, b, Counters::default())
                };
                Outcome {
                    rule,
                    cwnd: step.apply(x.cwnd),
                    max_cwnd: x.max_cwnd,
                    counters,
                    lower_ssthresh: true,
                }
            }
        }
    }
}

/// The reference's `GetSsThresh`: `max(min(ssthresh, cwnd - 1), 2)` segments.
fn lowered_ssthresh(ssthresh: f64, cwnd: f64) -> f64 {
    ssthresh.min(cwnd - 1.0).max(MIN_SSTHRESH)
}

/// ssthresh at the end of an FB-TCP cycle that left the window at `cwnd`: lowered
/// first if a decrease row fired, then kept at `keep x cwnd` at least.
fn cycle_ssthresh(ssthresh: f64, cwnd: f64, lower: bool, keep: f64) -> f64 {
    let s = if lower {
        lowered_ssthresh(ssthresh, cwnd)
    } else {
        ssthresh
    };
    s.max(keep * cwnd)
}

/// Delivered rate over fixed-length windows, each closed by the first observation at
/// least one window length after it opened.
#[derive(Clone, Debug)]
struct RateMeter {
    window: Time,
    /// Time and byte count when the current window opened.
    start: Option<(Time, u64)>,
    /// Rate of the last completed window, bit/s (0 before the first).
    rate_bps: f64,
}

impl RateMeter {
    fn new(window: Time) -> Self {
        Self {
            window,
            start: None,
            rate_bps: 0.0,
        }
    }

    fn observe(&mut self, now: Time, bytes: u64) {
        match self.start {
            None => self.start = Some((now, bytes)),
            Some((t0, b0)) if now.saturating_sub(t0) >= self.window => {
                let secs = (now - t0) as f64 * 1e-9;
                self.rate_bps = bytes.saturating_sub(b0) as f64 * 8.0 / secs;
                self.start = Some((now, bytes));
            }
            Some(_) => {}
        }
    }
}

/// Values of the last cycle, for the traces.
#[derive(Clone, Copy, Debug)]
struct LastCycle {
    rule: f64,
    csi: f64,
    cad: f64,
    diff: f64,
    target_cwnd: f64,
    min_rtt: f64,
}

pub struct FbTcp {
    p: Params,
    table: RuleTable,
    /// FB-TCP runs only in the Open state (the reference's `m_doingfbtcpNow`).
    enabled: bool,
    /// Smallest RTT sample of the connection, seconds (infinite before any).
    base_rtt: f64,
    /// Smallest RTT sample of the current cycle and their number.
    cycle_min_rtt: f64,
    cycle_samples: u32,
    /// `snd_nxt` when the current cycle began (bytes).
    cycle_end: u64,
    /// Bytes acknowledged at the sender so far (cumulatively or by SACK).
    acked_bytes: u64,
    meter: RateMeter,
    /// Segments; 0 until the first rule cycle with a measured rate.
    max_cwnd: f64,
    counters: Counters,
    last: LastCycle,
    cycles: u64,
    convergence_cycles: u64,
    divergence_cycles: u64,
    fallback_cycles: u64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if super::fixed::requested(params)? {
        return Ok(super::fixed::build("fbtcp"));
    }
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(FbTcp::new(p)))
}

impl FbTcp {
    fn new(p: Params) -> Self {
        let window = crate::engine::from_secs(p.rate_window_ms * 1e-3);
        Self {
            table: RuleTable::new(&p),
            p,
            enabled: true,
            base_rtt: f64::INFINITY,
            cycle_min_rtt: f64::INFINITY,
            cycle_samples: 0,
            cycle_end: 0,
            acked_bytes: 0,
            meter: RateMeter::new(window),
            max_cwnd: 0.0,
            counters: Counters::default(),
            last: LastCycle {
                rule: RULE_NO_CYCLE,
                csi: 0.0,
                cad: 0.0,
                diff: 0.0,
                target_cwnd: 0.0,
                min_rtt: 0.0,
            },
            cycles: 0,
            convergence_cycles: 0,
            divergence_cycles: 0,
            fallback_cycles: 0,
        }
    }

    fn restart_cycle(&mut self, snd_nxt: u64) {
        self.cycle_end = snd_nxt;
        self.cycle_min_rtt = f64::INFINITY;
        self.cycle_samples = 0;
    }

    fn cycle_over(&self, snd_una: u64) -> bool {
        match self.p.cycle_end {
            CycleEnd::Passed => snd_una > self.cycle_end,
            CycleEnd::Reached => snd_una >= self.cycle_end,
        }
    }

    /// Brings the rate up to `sock.now` from the configured source.
    fn observe_rate(&mut self, sock: &Socket) {
        let link = &sock.link;
        match self.p.rate_source {
            RateSource::Sender => self.meter.observe(sock.now, self.acked_bytes),
            RateSource::Receiver => self.meter.observe(sock.now, link.receiver_delivered_bytes),
            RateSource::Sink => {
                let bytes = link
                    .receiver_grid
                    .last_interval_bytes(sock.now, link.receiver_delivered_bytes);
                self.meter.rate_bps = bytes as f64 * 8.0 / to_secs(SINK_GRID);
            }
        }
    }

    /// Eq. 1 with the last completed window's rate: the BDP in segments times rho.
    fn max_cwnd_candidate(&self, mss: u32) -> f64 {
        self.meter.rate_bps * self.base_rtt / 8.0 / f64::from(mss) * self.p.rho
    }

    /// An FB-TCP cycle with enough RTT samples; `min_rtt` is the cycle's minimum.
    fn fuzzy_cycle(&mut self, sock: &mut Socket, min_rtt: f64) {
        let cwnd = sock.cwnd;
        let csi = self.base_rtt / min_rtt;
        let target = floor_non_negative(cwnd * csi);
        let (diff, cad) = (cwnd - target, target / cwnd);
        self.last = LastCycle {
            rule: RULE_STARTUP,
            csi,
            cad,
            diff,
            target_cwnd: target,
            min_rtt,
        };
        let mut lower = false;
        if cwnd < self.p.startup_cwnd {
            sock.cwnd = cwnd * self.p.startup_gain;
        } else {
            self.max_cwnd = self.max_cwnd.max(self.max_cwnd_candidate(sock.mss));
            if cwnd <= self.max_cwnd {
                self.convergence_cycles += 1;
            } else {
                self.divergence_cycles += 1;
            }
            let input = CycleInput {
                csi,
                cad,
                diff,
                cwnd,
                max_cwnd: self.max_cwnd,
            };
            let out = self.table.decide(&input, self.counters);
            sock.cwnd = out.cwnd.max(MIN_CWND);
            self.max_cwnd = out.max_cwnd;
            self.counters = out.counters;
            self.last.rule = out.rule;
            lower = out.lower_ssthresh;
        }
        sock.ssthresh = cycle_ssthresh(sock.ssthresh, sock.cwnd, lower, self.p.ssthresh_keep);
    }
}

impl CongestionControl for FbTcp {
    fn name(&self) -> &'static str {
        "fbtcp"
    }

    fn init(&mut self, sock: &mut Socket) {
        self.enabled = sock.ca_state == CaState::Open;
        self.restart_cycle(sock.snd_nxt);
        self.observe_rate(sock);
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        lowered_ssthresh(sock.ssthresh, sock.cwnd)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        if !self.enabled {
            reno_grow(sock, acked, self.p.reno_increase_per);
            return;
        }
        if !self.cycle_over(sock.snd_una) {
            return;
        }
        let (min_rtt, samples) = (self.cycle_min_rtt, self.cycle_samples);
        self.restart_cycle(sock.snd_nxt);
        self.cycles += 1;
        if samples < self.p.min_rtt_samples {
            self.fallback_cycles += 1;
            self.last.rule = RULE_NEWRENO;
            reno_grow(sock, acked, self.p.reno_increase_per);
        } else {
            self.fuzzy_cycle(sock, min_rtt);
        }
    }

    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        if let Some(rtt) = rs.rtt_s.filter(|&r| r > 0.0) {
            self.base_rtt = self.base_rtt.min(rtt);
            self.cycle_min_rtt = self.cycle_min_rtt.min(rtt);
            self.cycle_samples += 1;
        }
        self.acked_bytes += u64::from(rs.acked_sacked) * u64::from(sock.mss);
        self.observe_rate(sock);
    }

    /// On in Open with a fresh cycle (the reference's `Enablefbtcp`), off elsewhere.
    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        self.enabled = new == CaState::Open;
        if self.enabled {
            self.restart_cycle(sock.snd_nxt);
        }
    }

    /// `rule` is the code of the last cycle (module documentation); `csi`, `cad`,
    /// `diff`, `target_cwnd` and `cycle_min_rtt_ms` are the last FB-TCP cycle's
    /// (start-up or rules); RTTs in ms (0 before the first sample), rate in Mb/s.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let base = self.base_rtt;
        out.extend([
            ("rule", self.last.rule),
            ("csi", self.last.csi),
            ("cad", self.last.cad),
            ("diff", self.last.diff),
            ("target_cwnd", self.last.target_cwnd),
            ("max_cwnd", self.max_cwnd),
            ("rate_mbps", self.meter.rate_bps * 1e-6),
            (
                "base_rtt_ms",
                if base.is_finite() { base * 1e3 } else { 0.0 },
            ),
            ("cycle_min_rtt_ms", self.last.min_rtt * 1e3),
            ("congestion_counter", f64::from(self.counters.congestion)),
            ("hold_counter", f64::from(self.counters.hold)),
            ("cycles", self.cycles as f64),
            ("convergence_cycles", self.convergence_cycles as f64),
            ("divergence_cycles", self.divergence_cycles as f64),
            ("fallback_cycles", self.fallback_cycles as f64),
            ("fbtcp_on", f64::from(u8::from(self.enabled))),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1400;
    const SEG: u64 = MSS as u64;
    const MS: Time = 1_000_000;

    /// Equal up to rounding (relative 1e-9, absolute below 1).
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    // ------------------------------------------------------- the rule table --

    /// One row of the table through the pure rule function and the end-of-cycle
    /// ssthresh update: inputs (CSI, CAD, Diff, cwnd, maxCwnd, counters, ssthresh)
    /// and the expected (code, cwnd, maxCwnd, counters, ssthresh).
    #[allow(clippy::too_many_arguments)]
    fn check_row(
        (csi, cad, diff): (f64, f64, f64),
        (cwnd, max_cwnd): (f64, f64),
        (congestion, hold): (u32, u32),
        ssthresh: f64,
        rule: f64,
        (exp_cwnd, exp_max): (f64, f64),
        (exp_congestion, exp_hold): (u32, u32),
        exp_ssthresh: f64,
    ) {
        let p = Params::default();
        let table = RuleTable::new(&p);
        let x = CycleInput {
            csi,
            cad,
            diff,
            cwnd,
            max_cwnd,
        };
        let out = table.decide(&x, Counters { congestion, hold });
        let ss = cycle_ssthresh(ssthresh, out.cwnd, out.lower_ssthresh, p.ssthresh_keep);
        let got = (out.rule, out.cwnd, out.max_cwnd, out.counters, ss);
        let want = (
            rule,
            exp_cwnd,
            exp_max,
            Counters {
                congestion: exp_congestion,
                hold: exp_hold,
            },
            exp_ssthresh,
        );
        assert!(
            got.0 == want.0
                && close(got.1, want.1)
                && close(got.2, want.2)
                && got.3 == want.3
                && (got.4 == want.4 || close(got.4, want.4)),
            "{x:?}: got {got:?}, want {want:?}"
        );
    }

    /// Convergence: cwnd 1000 below maxCwnd 2000.
    const CONV: (f64, f64) = (1000.0, 2000.0);
    /// Divergence: cwnd 1000 above maxCwnd 800.
    const DIV: (f64, f64) = (1000.0, 800.0);
    const INF: f64 = f64::INFINITY;

    #[test]
    fn c1_adds_a_when_csi_is_high_and_diff_small() {
        // +120; counters reset; ssthresh max(500, 0.75 x 1120 = 840).
        check_row(
            (1.0, 1.0, 10.0),
            CONV,
            (2, 7),
            500.0,
            1.0,
            (1120.0, 2000.0),
            (0, 0),
            840.0,
        );
    }

    #[test]
    fn c2_adds_b_for_diff_in_10_15() {
        // +100; ssthresh max(500, 825).
        check_row(
            (0.99, 0.99, 10.5),
            CONV,
            (1, 3),
            500.0,
            2.0,
            (1100.0, 2000.0),
            (0, 0),
            825.0,
        );
    }

    #[test]
    fn c3_adds_c_for_diff_in_15_20() {
        // CSI 0.98 is still in [0.98, 1]. +70; infinite ssthresh stays.
        check_row(
            (0.98, 0.98, 20.0),
            CONV,
            (0, 0),
            INF,
            3.0,
            (1070.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c4_adds_d_for_diff_in_20_30() {
        check_row(
            (0.985, 0.98, 30.0),
            CONV,
            (0, 0),
            INF,
            4.0,
            (1060.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c5_adds_e_for_diff_above_30() {
        check_row(
            (1.0, 0.97, 30.5),
            CONV,
            (0, 0),
            INF,
            5.0,
            (1050.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c6_adds_f_for_csi_in_95_98_and_high_cad() {
        // CAD 0.95 counts as high (>=). +40; ssthresh max(700, 780) = 780.
        check_row(
            (0.97, 0.95, 30.0),
            CONV,
            (2, 1),
            700.0,
            6.0,
            (1040.0, 2000.0),
            (0, 0),
            780.0,
        );
    }

    #[test]
    fn c7_adds_g_for_csi_in_95_98_and_low_cad() {
        // CSI 0.95 is in C6/C7's band. +30.
        check_row(
            (0.95, 0.94, 50.0),
            CONV,
            (0, 0),
            INF,
            7.0,
            (1030.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c8_adds_h_for_csi_in_70_95_and_high_cad() {
        // Unreachable with CAD derived from CSI (CAD <= CSI), reachable as written. +25.
        check_row(
            (0.8, 0.96, 200.0),
            CONV,
            (1, 1),
            INF,
            8.0,
            (1025.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c9_adds_i_for_csi_in_70_95_and_low_cad() {
        // CSI 0.7 is C9's lower edge. +20.
        check_row(
            (0.7, 0.7, 300.0),
            CONV,
            (0, 0),
            INF,
            9.0,
            (1020.0, 2000.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn c10_holds_and_counts_hold_cycles() {
        // CSI 0.5: hold; hold counter 4 -> 5, congestion counter reset; ssthresh is
        // not lowered, only kept at 0.75 x 1000 = 750.
        check_row(
            (0.5, 0.5, 500.0),
            CONV,
            (2, 4),
            500.0,
            10.0,
            (1000.0, 2000.0),
            (0, 5),
            750.0,
        );
        // The 30th consecutive hold cycle still holds.
        check_row(
            (0.3, 0.3, 700.0),
            CONV,
            (0, 29),
            INF,
            10.0,
            (1000.0, 2000.0),
            (0, 30),
            INF,
        );
    }

    #[test]
    fn c10_steps_cwnd_by_alpha_and_max_cwnd_by_beta_on_its_31st_cycle() {
        // cwnd 0.9 x 1000 = 900, maxCwnd 0.9 x 2000 = 1800, counter reset; ssthresh
        // max(500, 0.75 x 900 = 675) = 675, no lowering.
        check_row(
            (0.69, 0.69, 310.0),
            CONV,
            (0, 30),
            500.0,
            10.5,
            (900.0, 1800.0),
            (0, 0),
            675.0,
        );
    }

    #[test]
    fn c11_takes_j_off_on_the_first_two_decrease_cycles() {
        // -10 -> 990; congestion 0 -> 1, hold reset; ssthresh min(inf, 989) = 989,
        // then max(989, 742.5) = 989.
        check_row(
            (0.2, 0.96, 800.0),
            CONV,
            (0, 9),
            INF,
            11.0,
            (990.0, 2000.0),
            (1, 0),
            989.0,
        );
    }

    #[test]
    fn c11b_takes_k_off_on_the_third_decrease_cycle() {
        // -20 -> 980, counter reset; ssthresh min(1500, 979) = 979.
        check_row(
            (0.29, 0.95, 710.0),
            CONV,
            (2, 0),
            1500.0,
            11.5,
            (980.0, 2000.0),
            (0, 0),
            979.0,
        );
    }

    #[test]
    fn c12_takes_l_off() {
        // CSI 0.05 is the band's lower edge. -25 -> 975; ssthresh 974.
        check_row(
            (0.05, 0.05, 950.0),
            CONV,
            (1, 0),
            INF,
            12.0,
            (975.0, 2000.0),
            (2, 0),
            974.0,
        );
    }

    #[test]
    fn c12b_takes_m_off() {
        // -50 -> 950; ssthresh 949.
        check_row(
            (0.1, 0.1, 900.0),
            CONV,
            (2, 0),
            INF,
            12.5,
            (950.0, 2000.0),
            (0, 0),
            949.0,
        );
    }

    #[test]
    fn c13_multiplies_by_n() {
        // x0.75 -> 750; ssthresh 749.
        check_row(
            (0.04, 0.96, 960.0),
            CONV,
            (0, 0),
            INF,
            13.0,
            (750.0, 2000.0),
            (1, 0),
            749.0,
        );
    }

    #[test]
    fn c13b_divides_by_o() {
        // /2 -> 500; ssthresh min(300, 499) = 300, then max(300, 0.75 x 500 = 375) = 375.
        check_row(
            (0.0, 0.97, 1000.0),
            CONV,
            (2, 0),
            300.0,
            13.5,
            (500.0, 2000.0),
            (0, 0),
            375.0,
        );
    }

    #[test]
    fn c14_multiplies_by_p() {
        // x0.4 -> 400; ssthresh 399.
        check_row(
            (0.0, 0.0, 1000.0),
            CONV,
            (1, 0),
            INF,
            14.0,
            (400.0, 2000.0),
            (2, 0),
            399.0,
        );
    }

    #[test]
    fn c14b_divides_by_q() {
        // /3 -> 333.33; ssthresh 332.33.
        let w = 1000.0 / 3.0;
        check_row(
            (0.01, 0.01, 990.0),
            CONV,
            (2, 5),
            INF,
            14.5,
            (w, 2000.0),
            (0, 0),
            w - 1.0,
        );
    }

    #[test]
    fn d1_adds_r_whatever_cad() {
        // CSI 0.99 is D1's edge; CAD is not looked at. +1; counters reset.
        check_row(
            (0.99, 0.1, 10.0),
            DIV,
            (2, 3),
            INF,
            101.0,
            (1001.0, 800.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn d2_adds_s_for_high_cad() {
        check_row(
            (0.9, 0.95, 100.0),
            DIV,
            (1, 1),
            600.0,
            102.0,
            (1001.0, 800.0),
            (0, 0),
            750.75,
        );
    }

    #[test]
    fn d3_holds_for_low_cad() {
        // Hold; hold 0 -> 1, congestion reset; ssthresh max(600, 750) = 750.
        check_row(
            (0.9, 0.9, 100.0),
            DIV,
            (2, 0),
            600.0,
            103.0,
            (1000.0, 800.0),
            (0, 1),
            750.0,
        );
    }

    #[test]
    fn d3_steps_by_gamma_and_theta_on_its_31st_cycle() {
        // cwnd 900, maxCwnd 0.9 x 800 = 720.
        check_row(
            (0.75, 0.75, 250.0),
            DIV,
            (0, 30),
            INF,
            103.5,
            (900.0, 720.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn d4_holds() {
        // CSI 0.3 is D4's lower edge.
        check_row(
            (0.3, 0.3, 700.0),
            DIV,
            (1, 10),
            INF,
            104.0,
            (1000.0, 800.0),
            (0, 11),
            INF,
        );
    }

    #[test]
    fn d4_steps_by_gamma_and_theta_on_its_31st_cycle() {
        check_row(
            (0.6, 0.6, 400.0),
            DIV,
            (0, 30),
            INF,
            104.5,
            (900.0, 720.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn d5_multiplies_by_t() {
        // x0.75 -> 750; hold reset; ssthresh 749.
        check_row(
            (0.1, 0.1, 900.0),
            DIV,
            (0, 4),
            INF,
            105.0,
            (750.0, 800.0),
            (1, 0),
            749.0,
        );
    }

    #[test]
    fn d5b_divides_by_u() {
        check_row(
            (0.05, 0.05, 950.0),
            DIV,
            (2, 0),
            INF,
            105.5,
            (500.0, 800.0),
            (0, 0),
            499.0,
        );
    }

    #[test]
    fn d6_divides_by_v() {
        check_row(
            (0.0, 0.0, 1000.0),
            DIV,
            (1, 0),
            INF,
            106.0,
            (500.0, 800.0),
            (2, 0),
            499.0,
        );
    }

    #[test]
    fn d6b_divides_by_w() {
        // /4 -> 250; ssthresh min(400, 249) = 249, max(249, 187.5) = 249.
        check_row(
            (0.049, 0.0, 1000.0),
            DIV,
            (2, 0),
            400.0,
            106.5,
            (250.0, 800.0),
            (0, 0),
            249.0,
        );
    }

    #[test]
    fn cwnd_equal_to_max_cwnd_is_convergence() {
        // Eq. 5: cwnd <= maxCwnd. C1 (+120), not D1 (+1).
        check_row(
            (1.0, 1.0, 0.0),
            (1000.0, 1000.0),
            (0, 0),
            INF,
            1.0,
            (1120.0, 1000.0),
            (0, 0),
            INF,
        );
        check_row(
            (1.0, 1.0, 0.0),
            (1000.0, 999.9),
            (0, 0),
            INF,
            101.0,
            (1001.0, 999.9),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn no_matching_row_holds_and_resets_both_counters() {
        // CSI above 1 cannot happen (baseRtt <= minRtt) but has the reference's answer.
        check_row(
            (1.2, 1.0, 0.0),
            CONV,
            (2, 7),
            INF,
            RULE_NONE,
            (1000.0, 2000.0),
            (0, 0),
            INF,
        );
        check_row(
            (1.2, 1.0, 0.0),
            DIV,
            (2, 7),
            INF,
            RULE_NONE,
            (1000.0, 800.0),
            (0, 0),
            INF,
        );
    }

    #[test]
    fn the_table_follows_its_parameters() {
        // a = 7, diff_c1 = 5: Diff 6 is now C2's (+b = 100), Diff 5 is C1's (+7).
        let p = parse_params::<Params>(&json!({ "a": 7.0, "diff_c1": 5.0 })).unwrap();
        let t = RuleTable::new(&p);
        let x = CycleInput {
            csi: 1.0,
            cad: 1.0,
            diff: 5.0,
            cwnd: 1000.0,
            max_cwnd: 2000.0,
        };
        assert_eq!(t.decide(&x, Counters::default()).cwnd, 1007.0);
        let x = CycleInput { diff: 6.0, ..x };
        assert_eq!(t.decide(&x, Counters::default()).cwnd, 1100.0);
        // Hold steps take their own factors: C10 alpha 0.8 on cwnd, beta 0.5 on maxCwnd;
        // D4 gamma 0.7, theta 0.6. hold_cycles 2: the third hold cycle steps.
        let p = parse_params::<Params>(&json!({
            "alpha": 0.8, "beta": 0.5, "gamma": 0.7, "theta": 0.6, "hold_cycles": 2
        }))
        .unwrap();
        let t = RuleTable::new(&p);
        let held = Counters {
            congestion: 0,
            hold: 2,
        };
        let x = CycleInput {
            csi: 0.5,
            cad: 0.5,
            diff: 500.0,
            cwnd: 1000.0,
            max_cwnd: 2000.0,
        };
        let out = t.decide(&x, held);
        assert_eq!((out.rule, out.cwnd, out.max_cwnd), (10.5, 800.0, 1000.0));
        let out = t.decide(
            &CycleInput {
                max_cwnd: 900.0,
                ..x
            },
            held,
        );
        assert_eq!((out.rule, out.cwnd, out.max_cwnd), (104.5, 700.0, 540.0));
        let out = t.decide(
            &x,
            Counters {
                congestion: 0,
                hold: 1,
            },
        );
        assert_eq!((out.rule, out.cwnd, out.counters.hold), (10.0, 1000.0, 2));
    }

    // ----------------------------------------------- the algorithm on a socket --

    fn fbtcp(params: serde_json::Value) -> FbTcp {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        FbTcp::new(p)
    }

    fn rtt(rtt_s: f64) -> RateSample {
        RateSample {
            acked_sacked: 1,
            rtt_s: Some(rtt_s),
            ..RateSample::default()
        }
    }

    /// A connection at `cwnd`/`ssthresh` with 100 segments sent, FB-TCP initialised,
    /// baseRtt 100 ms from an earlier sample that stays out of the first cycle.
    fn setup(params: serde_json::Value, cwnd: f64, ssthresh: f64) -> (FbTcp, Socket) {
        let mut cc = fbtcp(params);
        let mut s = Socket::new(MSS, cwnd, ssthresh);
        s.snd_nxt = 100 * SEG;
        cc.init(&mut s);
        cc.on_ack(&mut s, &rtt(0.1));
        cc.restart_cycle(s.snd_nxt);
        (cc, s)
    }

    /// Ends the current cycle: RTT samples `rtts`, then an ACK of `acked` segments
    /// passing the cycle's end; the sender has sent 100 more segments meanwhile.
    fn cycle(cc: &mut FbTcp, s: &mut Socket, rtts: &[f64], acked: u32) {
        for &r in rtts {
            cc.on_ack(s, &rtt(r));
        }
        s.snd_una = cc.cycle_end + SEG;
        s.snd_nxt = s.snd_una + 100 * SEG;
        cc.cong_avoid(s, acked);
    }

    fn state_of(cc: &dyn CongestionControl) -> Vec<(&'static str, f64)> {
        let mut v = Vec::new();
        cc.state(&mut v);
        v
    }

    fn var(state: &[(&'static str, f64)], key: &str) -> f64 {
        state
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, v)| v)
            .unwrap()
    }

    #[test]
    fn hold_rule_steps_on_its_31st_consecutive_cycle() {
        // CSI = 0.1 / 0.2 = 0.5: C10 with cwnd 1000 <= maxCwnd 2000 (no rate yet, so
        // maxCwnd keeps what it has).
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        cc.max_cwnd = 2000.0;
        for n in 1..=30 {
            cycle(&mut cc, &mut s, &[0.2; 3], 2);
            assert_eq!(
                (s.cwnd, cc.counters.hold, cc.last.rule),
                (1000.0, n, 10.0),
                "cycle {n}"
            );
        }
        cycle(&mut cc, &mut s, &[0.2; 3], 2);
        assert_eq!(
            (s.cwnd, cc.max_cwnd, cc.counters.hold, cc.last.rule),
            (900.0, 1800.0, 0, 10.5)
        );
        assert_eq!(s.ssthresh, INF); // a hold step does not lower ssthresh
        assert_eq!(cc.convergence_cycles, 31);
    }

    #[test]
    fn the_third_consecutive_decrease_cycle_takes_the_b_action() {
        // CSI = 0.1 / 0.5 = 0.2, CAD = floor(1000 x 0.2) / 1000 = 0.2 < 0.95: C12.
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        cc.max_cwnd = 5000.0;
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        // -25 -> 975; ssthresh min(inf, 974) = 974, max(974, 731.25) = 974.
        assert_eq!(
            (s.cwnd, s.ssthresh, cc.counters.congestion, cc.last.rule),
            (975.0, 974.0, 1, 12.0)
        );
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!(
            (s.cwnd, s.ssthresh, cc.counters.congestion, cc.last.rule),
            (950.0, 949.0, 2, 12.0)
        );
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        // C12.b: -50 -> 900, counter reset; ssthresh 899.
        assert_eq!(
            (s.cwnd, s.ssthresh, cc.counters.congestion, cc.last.rule),
            (900.0, 899.0, 0, 12.5)
        );
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!(
            (s.cwnd, cc.counters.congestion, cc.last.rule),
            (875.0, 1, 12.0)
        );
    }

    #[test]
    fn the_decrease_counter_spans_different_decrease_rows() {
        // Two C12 cycles (cwnd 1000 -> 975 -> 950), then maxCwnd drops below cwnd and
        // CSI 0.1 / 1.0 = 0.1 is D5: its first cycle is already the third decrease,
        // so D5.b halves: 475 (below 900, start-up follows).
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        cc.max_cwnd = 5000.0;
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        cc.max_cwnd = 100.0;
        cycle(&mut cc, &mut s, &[1.0; 3], 2);
        assert_eq!(
            (s.cwnd, cc.last.rule, cc.counters.congestion),
            (475.0, 105.5, 0)
        );
    }

    #[test]
    fn an_increase_resets_the_decrease_counter() {
        // C12, C12, then CSI 1 (C1, +120), then C12 again is an "a" cycle (-25).
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        cc.max_cwnd = 5000.0;
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        cycle(&mut cc, &mut s, &[0.1; 3], 2);
        assert_eq!(
            (s.cwnd, cc.last.rule, cc.counters.congestion),
            (1070.0, 1.0, 0)
        );
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!((s.cwnd, cc.last.rule), (1045.0, 12.0));
    }

    #[test]
    fn two_instances_share_no_state() {
        // One flow goes through two decrease cycles and learns a maxCwnd; the other,
        // built the same way, still has fresh counters, maxCwnd and baseRtt (the
        // reference's globals would have carried them over).
        let (mut a, mut sa) = setup(json!({}), 1000.0, INF);
        a.max_cwnd = 5000.0;
        cycle(&mut a, &mut sa, &[0.5; 3], 2);
        cycle(&mut a, &mut sa, &[0.5; 3], 2);
        let mut b = build(&json!({})).unwrap();
        let sb = state_of(b.as_ref());
        assert_eq!(
            (
                var(&sb, "congestion_counter"),
                var(&sb, "max_cwnd"),
                var(&sb, "base_rtt_ms")
            ),
            (0.0, 0.0, 0.0)
        );
        // The second flow's third decrease is an "a" cycle of its own, and the first
        // flow's counter is untouched by it.
        let mut s2 = Socket::new(MSS, 1000.0, INF);
        s2.snd_nxt = 100 * SEG;
        b.init(&mut s2);
        b.on_ack(&mut s2, &rtt(0.1));
        s2.snd_una = 101 * SEG;
        s2.snd_nxt = 200 * SEG;
        b.cong_avoid(&mut s2, 2); // 1 sample: NewReno fallback, the cycle restarts
        for _ in 0..3 {
            b.on_ack(&mut s2, &rtt(0.5));
        }
        s2.snd_una = 201 * SEG;
        b.cong_avoid(&mut s2, 2);
        // maxCwnd 0 < cwnd: Divergence, CSI 0.2 -> D5 (x0.75), congestion 1.
        let sb = state_of(b.as_ref());
        assert_eq!(
            (var(&sb, "rule"), var(&sb, "congestion_counter")),
            (105.0, 1.0)
        );
        assert_eq!(a.counters.congestion, 2);
        assert_eq!(a.max_cwnd, 5000.0);
    }

    #[test]
    fn two_or_fewer_rtt_samples_fall_back_to_newreno() {
        // Congestion avoidance (ssthresh 500): NewReno adds 2/1000 for 2 segments where
        // the rules would have fired C12 (CSI 0.2); counters and ssthresh untouched.
        let (mut cc, mut s) = setup(json!({}), 1000.0, 500.0);
        cc.max_cwnd = 5000.0;
        cc.counters = Counters {
            congestion: 2,
            hold: 0,
        };
        cycle(&mut cc, &mut s, &[0.5, 0.5], 2);
        assert!(close(s.cwnd, 1000.002), "{}", s.cwnd);
        assert_eq!(
            (s.ssthresh, cc.last.rule, cc.counters.congestion),
            (500.0, RULE_NEWRENO, 2)
        );
        assert_eq!((cc.cycle_samples, cc.fallback_cycles), (0, 1)); // the cycle was consumed
        // Slow start (infinite ssthresh, cwnd 20): NewReno adds one per segment, not x2.
        let (mut cc, mut s) = setup(json!({}), 20.0, INF);
        cycle(&mut cc, &mut s, &[0.1], 3);
        assert_eq!(s.cwnd, 23.0);
        // Three samples are enough: C12.b (third decrease).
        let (mut cc, mut s) = setup(json!({}), 1000.0, 500.0);
        cc.max_cwnd = 5000.0;
        cc.counters = Counters {
            congestion: 2,
            hold: 0,
        };
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!((s.cwnd, cc.last.rule), (950.0, 12.5));
    }

    #[test]
    fn the_newreno_fallback_can_grow_per_ack_as_the_reference() {
        // Slow start: one segment for the cycle-ending ACK of 3 segments, not 3.
        let (mut cc, mut s) = setup(json!({ "reno_increase_per": "ack_bytes" }), 20.0, INF);
        cycle(&mut cc, &mut s, &[0.1], 3);
        assert_eq!(s.cwnd, 21.0);
        // Avoidance at 1000 segments: max(1, MSS / 1000) bytes, truncated, per ACK.
        let (mut cc, mut s) = setup(json!({ "reno_increase_per": "ack_bytes" }), 1000.0, 500.0);
        cycle(&mut cc, &mut s, &[0.5, 0.5], 2);
        let step = (f64::from(MSS) / 1000.0).max(1.0).floor() / f64::from(MSS);
        assert!(close(s.cwnd, 1000.0 + step), "{}", s.cwnd);
    }

    #[test]
    fn start_up_doubles_once_per_cycle_below_900_segments() {
        let (mut cc, mut s) = setup(json!({}), 10.0, INF);
        // Between cycle ends nothing grows.
        s.snd_una = 50 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 10.0);
        // 10 -> 20 -> 40, whatever the CSI (0.1 / 0.5 = 0.2 would be a decrease rule).
        cycle(&mut cc, &mut s, &[0.1, 0.1, 0.1], 2);
        assert_eq!((s.cwnd, cc.last.rule), (20.0, RULE_STARTUP));
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!(s.cwnd, 40.0);
        assert_eq!(s.ssthresh, INF);
        // Measured on the window before doubling: target floor(20 x 0.2) = 4, CAD 4 / 20,
        // Diff 16.
        assert!(close(cc.last.csi, 0.2) && close(cc.last.cad, 0.2) && close(cc.last.diff, 16.0));
        // 899 is still start-up: 1798. 900 is not: the rules run (CSI 1 -> D1 with
        // maxCwnd 0, +1).
        s.cwnd = 899.0;
        cycle(&mut cc, &mut s, &[0.1; 3], 2);
        assert_eq!(s.cwnd, 1798.0);
        s.cwnd = 900.0;
        cycle(&mut cc, &mut s, &[0.1; 3], 2);
        assert_eq!((s.cwnd, cc.last.rule), (901.0, 101.0));
        // Start-up ignores ssthresh, and keeps ssthresh at 3/4 of the window after it:
        // 100 -> 200, ssthresh max(50, 150) = 150. maxCwnd is not updated in start-up.
        let (mut cc, mut s) = setup(json!({}), 100.0, 50.0);
        cc.meter.rate_bps = 1e9;
        cycle(&mut cc, &mut s, &[0.1; 3], 2);
        assert_eq!((s.cwnd, s.ssthresh, cc.max_cwnd), (200.0, 150.0, 0.0));
    }

    /// An ACK of `segments` at `t_ms`, with the receiver reporting `rx_bytes`.
    fn ack_at(cc: &mut FbTcp, s: &mut Socket, t_ms: u64, segments: u32, rx_bytes: u64) {
        s.now = t_ms * MS;
        s.link.receiver_delivered_bytes = rx_bytes;
        cc.on_ack(
            s,
            &RateSample {
                acked_sacked: segments,
                ..RateSample::default()
            },
        );
    }

    #[test]
    fn max_cwnd_follows_the_sender_rate_by_default() {
        // 1000 segments of 1400 B acknowledged in the 100 ms window: 112 Mb/s; BDP at
        // baseRtt 100 ms = 112e6 x 0.1 / 8 / 1400 = 1000 segments, x 1.05 = 1050.
        // The receiver's count (half as much) is ignored.
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        ack_at(&mut cc, &mut s, 50, 500, 350_000);
        ack_at(&mut cc, &mut s, 100, 499, 700_000); // + the setup's 1-segment sample
        assert!(close(cc.meter.rate_bps, 112e6), "{}", cc.meter.rate_bps);
        cycle(&mut cc, &mut s, &[0.1; 3], 0);
        assert!(close(cc.max_cwnd, 1050.0), "{}", cc.max_cwnd);
        // cwnd 1000 <= 1050: Convergence, C1 (+120).
        assert_eq!((s.cwnd, cc.last.rule), (1120.0, 1.0));
        // A window closes at the first ACK 100 ms or more after it opened and is rated
        // over its real length: 600 segments (3 from the cycle's samples) in 150 ms =
        // 44.8 Mb/s. maxCwnd only grows: it stays at 1050.
        ack_at(&mut cc, &mut s, 250, 597, 0);
        assert!(
            close(cc.meter.rate_bps, 600.0 * 1400.0 * 8.0 / 0.15),
            "{}",
            cc.meter.rate_bps
        );
        cycle(&mut cc, &mut s, &[0.1; 3], 0);
        assert!(close(cc.max_cwnd, 1050.0));
    }

    #[test]
    fn max_cwnd_follows_the_receiver_oracle_when_asked() {
        // The receiver got 2.8 MB in 100 ms: 224 Mb/s; at baseRtt 100 ms (not the
        // cycle's 105 ms) that is 2000 segments, x 1.05 = 2100. The sender's own count
        // (1 segment) is ignored.
        let (mut cc, mut s) = setup(json!({ "rate_source": "receiver" }), 1000.0, INF);
        ack_at(&mut cc, &mut s, 100, 0, 2_800_000);
        assert!(close(cc.meter.rate_bps, 224e6), "{}", cc.meter.rate_bps);
        cycle(&mut cc, &mut s, &[0.105; 3], 0);
        assert!(close(cc.max_cwnd, 2100.0), "{}", cc.max_cwnd);
        // Convergence with CSI 0.1 / 0.105 = 0.952, CAD floor(952.4) / 1000 = 0.952: C6.
        assert_eq!((s.cwnd, cc.last.rule), (1040.0, 6.0));
        let st = state_of(&cc);
        assert!(close(var(&st, "rate_mbps"), 224.0) && close(var(&st, "max_cwnd"), 2100.0));
    }

    /// The receiver gets `bytes` at `t_ms`, recorded as the simulator records it.
    fn deliver_at(s: &mut Socket, t_ms: u64, bytes: u64) {
        s.link
            .receiver_grid
            .advance(t_ms * MS, s.link.receiver_delivered_bytes);
        s.link.receiver_delivered_bytes += bytes;
    }

    /// An ACK at `t_ms` that acknowledges nothing new, with the receiver's current count.
    fn read_at(cc: &mut FbTcp, s: &mut Socket, t_ms: u64) {
        let rx_bytes = s.link.receiver_delivered_bytes;
        ack_at(cc, s, t_ms, 0, rx_bytes);
    }

    #[test]
    fn sink_rate_is_the_last_100_ms_of_the_fixed_grid_held_between_points() {
        // As the scripts: the sink's bytes of [0, 100 ms), [100, 200 ms), ... x 8 / 0.1 s,
        // from the grid point on, whenever the algorithm reads it.
        let (mut cc, mut s) = setup(json!({ "rate_source": "sink" }), 1000.0, INF);
        deliver_at(&mut s, 30, 1_400_000); // in [0, 100 ms): 112 Mb/s
        read_at(&mut cc, &mut s, 99);
        assert_eq!(
            cc.meter.rate_bps, 0.0,
            "no grid interval has ended before 100 ms"
        );
        deliver_at(&mut s, 130, 2_800_000); // in [100, 200 ms): 224 Mb/s
        read_at(&mut cc, &mut s, 150);
        assert!(close(cc.meter.rate_bps, 112e6), "{}", cc.meter.rate_bps);
        cycle(&mut cc, &mut s, &[0.1; 3], 0);
        assert!(close(cc.max_cwnd, 1050.0), "{}", cc.max_cwnd);
        read_at(&mut cc, &mut s, 199);
        assert!(
            close(cc.meter.rate_bps, 112e6),
            "held until the 200 ms point"
        );
        // A delivery on the point belongs to the interval it opens.
        deliver_at(&mut s, 200, 700_000);
        read_at(&mut cc, &mut s, 200);
        assert!(close(cc.meter.rate_bps, 224e6), "{}", cc.meter.rate_bps);
        let st = state_of(&cc);
        assert!(close(var(&st, "rate_mbps"), 224.0));
        // No ACK between 200 and 450 ms: read at 450 ms, [300, 400 ms) had nothing.
        read_at(&mut cc, &mut s, 450);
        assert_eq!(cc.meter.rate_bps, 0.0);
    }

    #[test]
    fn max_cwnd_uses_the_rate_window_and_rho_parameters() {
        // 50 ms windows, rho 1: 500 segments in 50 ms = 112 Mb/s -> 1000 segments.
        let (mut cc, mut s) = setup(json!({ "rate_window_ms": 50.0, "rho": 1.0 }), 1000.0, INF);
        ack_at(&mut cc, &mut s, 49, 400, 0);
        assert_eq!(cc.meter.rate_bps, 0.0); // not closed yet
        ack_at(&mut cc, &mut s, 50, 99, 0);
        cycle(&mut cc, &mut s, &[0.1; 3], 0);
        assert!(close(cc.max_cwnd, 1000.0), "{}", cc.max_cwnd);
    }

    #[test]
    fn a_loss_takes_one_segment_off_while_ssthresh_is_infinite() {
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        assert_eq!(cc.ssthresh(&s), 999.0);
        s.ssthresh = 500.0;
        assert_eq!(cc.ssthresh(&s), 500.0);
        s.cwnd = 2.5;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn cycles_end_when_the_ack_passes_the_recorded_snd_nxt() {
        // Default (spec, Linux Vegas): an ACK up to exactly the recorded snd_nxt (100
        // segments) does not end the cycle, one byte more does (start-up: 10 -> 20).
        let (mut cc, mut s) = setup(json!({}), 10.0, INF);
        for r in [0.1; 3] {
            cc.on_ack(&mut s, &rtt(r));
        }
        s.snd_una = 100 * SEG;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 10.0);
        s.snd_una = 100 * SEG + 1;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 20.0);
        // The reference's reading: reaching it is enough.
        let (mut cc, mut s) = setup(json!({ "cycle_end": "reached" }), 10.0, INF);
        for r in [0.1; 3] {
            cc.on_ack(&mut s, &rtt(r));
        }
        s.snd_una = 100 * SEG - 1;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 10.0);
        s.snd_una = 100 * SEG;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 20.0);
    }

    #[test]
    fn outside_open_newreno_rules_apply_and_open_restarts_the_cycle() {
        let (mut cc, mut s) = setup(json!({}), 1000.0, 500.0);
        cc.max_cwnd = 5000.0;
        cc.counters = Counters {
            congestion: 1,
            hold: 0,
        };
        cc.set_state(&mut s, CaState::Disorder);
        // Every ACK grows by 1/cwnd per segment, no cycle logic.
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 1000.002), "{}", s.cwnd);
        assert!(!cc.enabled);
        // Back in Open: a fresh cycle from snd_nxt, baseRtt, maxCwnd, counters kept.
        s.snd_nxt = 500 * SEG;
        cc.set_state(&mut s, CaState::Open);
        assert_eq!(
            (cc.cycle_end, cc.cycle_samples, cc.cycle_min_rtt),
            (500 * SEG, 0, INF)
        );
        assert_eq!(
            (cc.base_rtt, cc.max_cwnd, cc.counters.congestion),
            (0.1, 5000.0, 1)
        );
        assert!(cc.enabled);
    }

    #[test]
    fn the_window_never_drops_below_one_segment() {
        // No start-up, C12 takes 100 off a window of 50 (CSI 0.1 / 0.5 = 0.2, CAD 0.2):
        // cwnd 1; ssthresh max(min(inf, 0), 2) = 2.
        let (mut cc, mut s) = setup(json!({ "startup_cwnd": 0.0, "l": 100.0 }), 50.0, INF);
        cc.max_cwnd = 100.0;
        cycle(&mut cc, &mut s, &[0.5; 3], 2);
        assert_eq!((s.cwnd, s.ssthresh, cc.last.rule), (1.0, 2.0, 12.0));
    }

    #[test]
    fn non_positive_rtt_samples_are_ignored() {
        let (mut cc, mut s) = setup(json!({}), 10.0, INF);
        cc.on_ack(&mut s, &rtt(0.0));
        assert_eq!((cc.base_rtt, cc.cycle_samples), (0.1, 0));
    }

    #[test]
    fn state_exports_the_last_cycle() {
        let (mut cc, mut s) = setup(json!({}), 1000.0, INF);
        assert_eq!(var(&state_of(&cc), "rule"), RULE_NO_CYCLE);
        cc.max_cwnd = 2000.0;
        // CSI 0.1 / 0.13 = 0.769, target floor(769.2) = 769, Diff 231, CAD 0.769: C9 (+20).
        cycle(&mut cc, &mut s, &[0.15, 0.13, 0.14], 2);
        let st = state_of(&cc);
        for (k, v) in [
            ("rule", 9.0),
            ("csi", 0.1 / 0.13),
            ("cad", 0.769),
            ("diff", 231.0),
            ("target_cwnd", 769.0),
            ("max_cwnd", 2000.0),
            ("base_rtt_ms", 100.0),
            ("cycle_min_rtt_ms", 130.0),
            ("congestion_counter", 0.0),
            ("hold_counter", 0.0),
            ("cycles", 1.0),
            ("convergence_cycles", 1.0),
            ("divergence_cycles", 0.0),
            ("fallback_cycles", 0.0),
            ("fbtcp_on", 1.0),
        ] {
            assert!(close(var(&st, k), v), "{k}: {} != {v}", var(&st, k));
        }
        assert_eq!(s.cwnd, 1020.0);
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "a": -1.0 }), "a = -1: must be >= 0"),
            (json!({ "n": 1.5 }), "n = 1.5: must be in (0, 1)"),
            (json!({ "o": 1.0 }), "o = 1: must be > 1"),
            (json!({ "w": 0.5 }), "w = 0.5: must be > 1"),
            (json!({ "alpha": 0.0 }), "alpha = 0: must be in (0, 1)"),
            (json!({ "theta": 1.0 }), "theta = 1"),
            (json!({ "rho": 0.0 }), "rho = 0: must be > 0"),
            (json!({ "rate_window_ms": -5.0 }), "rate_window_ms = -5"),
            (
                json!({ "startup_gain": 0.5 }),
                "startup_gain = 0.5: must be >= 1",
            ),
            (json!({ "b_variant_cycle": 0 }), "b_variant_cycle = 0"),
            (json!({ "min_rtt_samples": 0 }), "min_rtt_samples = 0"),
            (json!({ "cad_threshold": 1.0 }), "cad_threshold = 1"),
            (json!({ "csi_c6": 0.99 }), "csi_c6 = 0.99 >= csi_c1 = 0.98"),
            (json!({ "csi_d4": 0.8 }), "csi_d4 = 0.8 >= csi_d2 = 0.7"),
            (json!({ "diff_c2": 40.0 }), "diff_c2 = 40 >= diff_c3 = 20"),
            (json!({ "rate_source": "oracle" }), "receiver"),
            (
                json!({ "rate_source": "sink", "rate_window_ms": 50.0 }),
                "rate_window_ms = 50: rate_source = \"sink\"",
            ),
            (json!({ "cycle_end": "strict" }), "reached"),
            (json!({ "zeta": 1 }), "zeta"),
            (json!({ "hold_cycles": -1 }), "hold_cycles"),
        ] {
            let err = build(&params)
                .err()
                .unwrap_or_else(|| panic!("{params}: accepted"));
            assert!(err.contains(needle), "{params}: {err}");
        }
        let p = Params {
            startup_cwnd: f64::INFINITY,
            ..Params::default()
        };
        assert_eq!(
            p.validate(),
            Err("startup_cwnd = inf: must be finite".into())
        );
        assert!(build(&json!({})).is_ok());
        assert!(build(&serde_json::Value::Null).is_ok());
    }

    #[test]
    fn default_parameters_are_the_papers() {
        let p = Params::default();
        assert_eq!(
            [p.a, p.b, p.c, p.d, p.e, p.f, p.g, p.h, p.i],
            [120.0, 100.0, 70.0, 60.0, 50.0, 40.0, 30.0, 25.0, 20.0]
        );
        assert_eq!(
            [p.j, p.k, p.l, p.m, p.n, p.o, p.p, p.q],
            [10.0, 20.0, 25.0, 50.0, 0.75, 2.0, 0.4, 3.0]
        );
        assert_eq!(
            [p.r, p.s, p.t, p.u, p.v, p.w],
            [1.0, 1.0, 0.75, 2.0, 2.0, 4.0]
        );
        assert_eq!(
            [p.alpha, p.beta, p.gamma, p.theta, p.rho],
            [0.9, 0.9, 0.9, 0.9, 1.05]
        );
        assert_eq!(
            (p.hold_cycles, p.b_variant_cycle, p.startup_cwnd),
            (30, 3, 900.0)
        );
        assert_eq!(p.rate_source, RateSource::Sender);
    }
}
