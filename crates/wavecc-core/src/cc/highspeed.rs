//! HighSpeed TCP (RFC 3649), as Linux `tcp_highspeed` and ns-3 `TcpHighSpeed`.
//!
//! In congestion avoidance the window grows by `a(w)` segments per RTT, and a loss
//! reduces it to `(1 - b(w)) w`. Up to `Low_Window` = 38 segments `a = 1` and
//! `b = 0.5`, which is Standard TCP; above it `a(w)` rises and `b(w)` falls with the
//! window, along the RFC's response function between (Low_Window, Low_P) and
//! (High_Window = 83000, High_P = 1e-7), until `b(High_Window) = High_Decrease = 0.1`.
//! Slow start is Reno's.
//!
//! Implementations tabulate `a(w)` and `b(w)`; `table` chooses which values:
//! - `ns3` (default, as the brief fixes): ns-3's 73 rows, transcribed below. Its `b`
//!   column is RFC 3649's closed-form `b` at each row's window rounded to 2 decimals.
//! - `linux`: Linux's `hstcp_aimd_vals`. Same thresholds and `a` values, but **not the
//!   same table**: 72 rows (the last, 94717 segments with `a = 73`, `b = 0.09`, is
//!   missing, so Linux stays at `a = 72` above 84035 segments), row 62 starts at 53677
//!   where ns-3 has 53667 (the RFC closed form's smooth progression of `a` at the row
//!   thresholds points to 53677: ns-3's value looks like a typo), and `b` is a
//!   fixed-point `md / 256` (closed-form `b` rounded down to 1/256: 0.4375 where ns-3
//!   has 0.44, 0.09375 where ns-3 has 0.10).
//! - `rfc3649`: the closed form, continuous in `w`, with `low_window`, `high_window`,
//!   `high_p` and `high_decrease` as parameters.
//!
//! Written in floating point from RFC 3649 and the behaviour of Linux
//! `tcp_highspeed.c` and ns-3 `tcp-highspeed.cc`; where they differ the parameters
//! below say which reading is the default and why.

use super::{CongestionControl, SlowStartPer, Socket, SsthreshBasis, parse_params};
use serde::Deserialize;

pub const SUMMARY: &str = "HighSpeed TCP (RFC 3649, Linux tcp_highspeed, ns-3 TcpHighSpeed): \
     +a(w) segments per RTT, w <- (1 - b(w)) w on loss";

/// `b(w)`, the fraction of the window a loss takes off, from the default (ns-3)
/// table: 0.5 up to 38 segments, falling to 0.09 from 89054 segments on. `w` is in
/// segments and rounded down, as ns-3 and Linux look up their integer window.
/// MRVHS reuses HighSpeed's decrease through this function.
pub fn decrease_fraction(w: f64) -> f64 {
    ns3_row(w).2
}

/// Which `a(w)`, `b(w)` the algorithm uses.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Table {
    /// ns-3 `TcpHighSpeed::TableLookupA/B`: 73 rows, `b` to 2 decimals.
    Ns3,
    /// Linux `hstcp_aimd_vals`: 72 rows, `b = md / 256`.
    Linux,
    /// RFC 3649 section 5 closed form.
    Rfc3649,
}

/// What the window grows per in congestion avoidance.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IncreasePer {
    /// `a(w) / w` per acknowledged segment: `a(w)` segments per RTT whatever the ACK
    /// ratio (ns-3 `TcpHighSpeed`, RFC 3465 byte counting).
    Segment,
    /// `a(w) / w` per ACK whatever it acknowledges, as Linux `hstcp_cong_avoid`
    /// (which ignores `acked`): delayed ACKs halve the growth. Slow start's leftover
    /// segments on the ACK that crosses ssthresh are dropped, as in Linux.
    Ack,
}

/// Which window `b` is looked up at when a loss comes.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BWindow {
    /// The window being reduced (RFC 3649, ns-3).
    Current,
    /// The window of the last congestion-avoidance ACK, 0 before any: Linux keeps
    /// the table row `ai` from `hstcp_cong_avoid` and `hstcp_ssthresh` reads it, so
    /// a loss in the first slow start (no avoidance yet, `ai = 0`) halves the window
    /// whatever its size.
    LastIncrease,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Source of `a(w)`, `b(w)`: `ns3` (default), `linux` or `rfc3649`.
    pub table: Table,
    /// RFC 3649 `Low_Window` (segments): Standard TCP up to here. Only for `rfc3649`.
    pub low_window: f64,
    /// RFC 3649 `High_Window` (segments). Only for `rfc3649`.
    pub high_window: f64,
    /// RFC 3649 `High_P`: the loss rate at which the window is `High_Window`. Only
    /// for `rfc3649`. `Low_P`, the loss rate at `Low_Window`, is Standard TCP's
    /// `1.5 / Low_Window^2` (as Floyd's ns-2 code: then `a(Low_Window) = 1` exactly).
    pub high_p: f64,
    /// RFC 3649 `High_Decrease`: `b(High_Window)`. Only for `rfc3649`.
    pub high_decrease: f64,
    /// Window a loss reduces. Default `cwnd` as Linux; `inflight` reproduces ns-3.
    pub ssthresh_basis: SsthreshBasis,
    /// Growth unit. Default `segment`: the project's reading, "a(w) per RTT" and ns-3; `ack`
    /// reproduces Linux, which grows per ACK (half the rate with delayed ACKs).
    pub increase_per: IncreasePer,
    /// Window `b` is taken at. Default `current` (RFC 3649, ns-3); `last_increase`
    /// reproduces Linux's stale table row.
    pub b_window: BWindow,
    /// Slow start per acknowledged segment (Linux) or per ACK (`ack`: ns-3's
    /// `TcpHighSpeed` inherits `TcpNewReno::SlowStart`).
    pub slow_start_per: SlowStartPer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            table: Table::Ns3,
            low_window: 38.0,
            high_window: 83000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
            ssthresh_basis: SsthreshBasis::Cwnd,
            increase_per: IncreasePer::Segment,
            b_window: BWindow::Current,
            slow_start_per: SlowStartPer::Segment,
        }
    }
}

impl Params {
    /// Rejects values that make the response function meaningless, naming the key
    /// and the range (checked whatever the table, so a config stays valid when only
    /// `table` changes).
    fn validate(&self) -> Result<(), String> {
        if self.low_window.is_nan() || self.low_window < 1.0 {
            return Err(format!("low_window = {}: must be >= 1", self.low_window));
        }
        if self.high_window.is_nan() || self.high_window <= self.low_window {
            return Err(format!(
                "high_window = {}: must be > low_window = {}",
                self.high_window, self.low_window
            ));
        }
        let low_p = 1.5 / (self.low_window * self.low_window);
        if !(self.high_p > 0.0 && self.high_p < low_p) {
            return Err(format!(
                "high_p = {}: must be in (0, {low_p}), below Standard TCP's 1.5 / low_window^2",
                self.high_p
            ));
        }
        if !(self.high_decrease > 0.0 && self.high_decrease <= 0.5) {
            return Err(format!(
                "high_decrease = {}: must be in (0, 0.5]",
                self.high_decrease
            ));
        }
        Ok(())
    }
}

/// RFC 3649 Appendix B as ns-3 tabulates it: (w, a(w), b(w)). A row applies to the
/// windows above the previous row's `w` up to its own; windows above the last row
/// keep its values (ns-3).
#[rustfmt::skip]
const NS3_TABLE: [(u32, f64, f64); 73] = [
    (38, 1.0, 0.50), (118, 2.0, 0.44), (221, 3.0, 0.41), (347, 4.0, 0.38),
    (495, 5.0, 0.37), (663, 6.0, 0.35), (851, 7.0, 0.34), (1058, 8.0, 0.33),
    (1284, 9.0, 0.32), (1529, 10.0, 0.31), (1793, 11.0, 0.30), (2076, 12.0, 0.29),
    (2378, 13.0, 0.28), (2699, 14.0, 0.28), (3039, 15.0, 0.27), (3399, 16.0, 0.27),
    (3778, 17.0, 0.26), (4177, 18.0, 0.26), (4596, 19.0, 0.25), (5036, 20.0, 0.25),
    (5497, 21.0, 0.24), (5979, 22.0, 0.24), (6483, 23.0, 0.23), (7009, 24.0, 0.23),
    (7558, 25.0, 0.22), (8130, 26.0, 0.22), (8726, 27.0, 0.22), (9346, 28.0, 0.21),
    (9991, 29.0, 0.21), (10661, 30.0, 0.21), (11358, 31.0, 0.20), (12082, 32.0, 0.20),
    (12834, 33.0, 0.20), (13614, 34.0, 0.19), (14424, 35.0, 0.19), (15265, 36.0, 0.19),
    (16137, 37.0, 0.19), (17042, 38.0, 0.18), (17981, 39.0, 0.18), (18955, 40.0, 0.18),
    (19965, 41.0, 0.17), (21013, 42.0, 0.17), (22101, 43.0, 0.17), (23230, 44.0, 0.17),
    (24402, 45.0, 0.16), (25618, 46.0, 0.16), (26881, 47.0, 0.16), (28193, 48.0, 0.16),
    (29557, 49.0, 0.15), (30975, 50.0, 0.15), (32450, 51.0, 0.15), (33986, 52.0, 0.15),
    (35586, 53.0, 0.14), (37253, 54.0, 0.14), (38992, 55.0, 0.14), (40808, 56.0, 0.14),
    (42707, 57.0, 0.13), (44694, 58.0, 0.13), (46776, 59.0, 0.13), (48961, 60.0, 0.13),
    (51258, 61.0, 0.13), (53667, 62.0, 0.12), (56230, 63.0, 0.12), (58932, 64.0, 0.12),
    (61799, 65.0, 0.12), (64851, 66.0, 0.11), (68113, 67.0, 0.11), (71617, 68.0, 0.11),
    (75401, 69.0, 0.10), (79517, 70.0, 0.10), (84035, 71.0, 0.10), (89053, 72.0, 0.10),
    (94717, 73.0, 0.09),
];

/// Linux `hstcp_aimd_vals`: (w, md) with `b = md / 256` and `a` = row number (1-based).
/// Rows apply as in [`NS3_TABLE`]; above the last row Linux keeps it.
#[rustfmt::skip]
const LINUX_TABLE: [(u32, u32); 72] = [
    (38, 128), (118, 112), (221, 104), (347, 98), (495, 93), (663, 89),
    (851, 86), (1058, 83), (1284, 81), (1529, 78), (1793, 76), (2076, 74),
    (2378, 72), (2699, 71), (3039, 69), (3399, 68), (3778, 66), (4177, 65),
    (4596, 64), (5036, 62), (5497, 61), (5979, 60), (6483, 59), (7009, 58),
    (7558, 57), (8130, 56), (8726, 55), (9346, 54), (9991, 53), (10661, 52),
    (11358, 52), (12082, 51), (12834, 50), (13614, 49), (14424, 48), (15265, 48),
    (16137, 47), (17042, 46), (17981, 45), (18955, 45), (19965, 44), (21013, 43),
    (22101, 43), (23230, 42), (24402, 41), (25618, 41), (26881, 40), (28193, 39),
    (29557, 39), (30975, 38), (32450, 38), (33986, 37), (35586, 36), (37253, 36),
    (38992, 35), (40808, 35), (42707, 34), (44694, 33), (46776, 33), (48961, 32),
    (51258, 32), (53677, 31), (56230, 30), (58932, 30), (61799, 29), (64851, 28),
    (68113, 28), (71617, 27), (75401, 26), (79517, 26), (84035, 25), (89053, 24),
];

/// Index of the row covering window `w` in a table with thresholds `ws`: the first
/// row whose threshold is at least `floor(w)` (both ns-3 and Linux look up their
/// integer window), the last row above the table.
fn row_index(len: usize, threshold: impl Fn(usize) -> u32, w: f64) -> usize {
    let w = w.floor();
    let (mut lo, mut hi) = (0, len - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if f64::from(threshold(mid)) < w {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    lo
}

/// The ns-3 row (w, a, b) covering window `w`.
fn ns3_row(w: f64) -> (u32, f64, f64) {
    NS3_TABLE[row_index(NS3_TABLE.len(), |i| NS3_TABLE[i].0, w)]
}

/// RFC 3649 section 5 closed form, in Floyd's ns-2 formulation.
#[derive(Clone, Copy, Debug)]
struct ClosedForm {
    low_window: f64,
    high_decrease: f64,
    /// ln(Low_Window), ln(High_Window) - ln(Low_Window), ln(Low_P), ln(High_P) - ln(Low_P).
    ln_low_window: f64,
    ln_window_span: f64,
    ln_low_p: f64,
    ln_p_span: f64,
}

impl ClosedForm {
    fn new(p: &Params) -> Self {
        let low_p = 1.5 / (p.low_window * p.low_window);
        Self {
            low_window: p.low_window,
            high_decrease: p.high_decrease,
            ln_low_window: p.low_window.ln(),
            ln_window_span: p.high_window.ln() - p.low_window.ln(),
            ln_low_p: low_p.ln(),
            ln_p_span: p.high_p.ln() - low_p.ln(),
        }
    }

    /// Position of `w` between Low_Window (0) and High_Window (1) on a log scale.
    fn x(&self, w: f64) -> f64 {
        (w.ln() - self.ln_low_window) / self.ln_window_span
    }

    /// `b(w) = (High_Decrease - 0.5) x + 0.5`: 0.5 at Low_Window, High_Decrease at
    /// High_Window. Extrapolated beyond High_Window as the RFC's own table is (its
    /// last rows lie above 83000); floored at 0, which only windows above about
    /// 570,000 segments would reach with the defaults.
    fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        ((self.high_decrease - 0.5) * self.x(w) + 0.5).max(0.0)
    }

    /// `p(w)`, log-linear between (Low_Window, Low_P) and (High_Window, High_P), and
    /// `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`: the increase that, with decrease b(w),
    /// keeps the average window on the response function. At least 1 (Standard TCP).
    fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let p = (self.ln_low_p + self.x(w) * self.ln_p_span).exp();
        let b = self.b(w);
        (w * w * p * 2.0 * b / (2.0 - b)).max(1.0)
    }
}

/// The `a(w)`, `b(w)` source chosen by `table`.
#[derive(Clone, Copy, Debug)]
enum Response {
    Ns3,
    Linux,
    Rfc3649(ClosedForm),
}

impl Response {
    /// (a(w), b(w)) at window `w` (segments).
    fn aimd(&self, w: f64) -> (f64, f64) {
        match self {
            Response::Ns3 => {
                let (_, a, b) = ns3_row(w);
                (a, b)
            }
            Response::Linux => {
                let i = row_index(LINUX_TABLE.len(), |i| LINUX_TABLE[i].0, w);
                ((i + 1) as f64, f64::from(LINUX_TABLE[i].1) / 256.0)
            }
            Response::Rfc3649(f) => (f.a(w), f.b(w)),
        }
    }
}

/// Smallest slow-start threshold after a loss (RFC 5681, Linux: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

pub struct HighSpeed {
    p: Params,
    response: Response,
    /// cwnd at the last congestion-avoidance ACK, 0 before any (Linux's `ai` row).
    ca_window: f64,
    /// `b` applied at the last loss, 0 before any.
    last_b: f64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(HighSpeed::new(p)))
}

impl HighSpeed {
    fn new(p: Params) -> Self {
        let response = match p.table {
            Table::Ns3 => Response::Ns3,
            Table::Linux => Response::Linux,
            Table::Rfc3649 => Response::Rfc3649(ClosedForm::new(&p)),
        };
        Self {
            p,
            response,
            ca_window: 0.0,
            last_b: 0.0,
        }
    }

    /// `cwnd += a(w) n / w`, w the window before this ACK (Linux looks its row up
    /// first, then adds `ai + 1` to `snd_cwnd_cnt`).
    fn grow(&mut self, sock: &mut Socket, n: u32) {
        let w = sock.cwnd;
        self.ca_window = w;
        let (a, _) = self.response.aimd(w);
        sock.cwnd += a * f64::from(n) / w.max(1.0);
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    /// `max((1 - b(w)) w, 2)`, w per `ssthresh_basis`, b at the window `b_window` says.
    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let w = self.p.ssthresh_basis.window(sock);
        let b_at = match self.p.b_window {
            BWindow::Current => w,
            BWindow::LastIncrease => self.ca_window,
        };
        let (_, b) = self.response.aimd(b_at);
        self.last_b = b;
        ((1.0 - b) * w).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        match self.p.increase_per {
            IncreasePer::Segment => {
                let ss = self.p.slow_start_per;
                let acked = if sock.in_slow_start() {
                    ss.grow(sock, acked)
                } else {
                    acked
                };
                if acked > 0 && !sock.in_slow_start() {
                    self.grow(sock, acked);
                }
            }
            IncreasePer::Ack => {
                if sock.in_slow_start() {
                    self.p.slow_start_per.grow(sock, acked);
                } else if acked > 0 {
                    self.grow(sock, 1);
                }
            }
        }
    }

    /// `a_w`, `b_w` at the window of the last congestion-avoidance ACK (`ca_window`),
    /// and the `b` the last loss applied (`loss_b`, 0 before any).
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let (a, b) = self.response.aimd(self.ca_window);
        out.extend([
            ("ca_window", self.ca_window),
            ("a_w", a),
            ("b_w", b),
            ("loss_b", self.last_b),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn highspeed(params: serde_json::Value) -> HighSpeed {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        HighSpeed::new(p)
    }

    fn aimd(table: &str, w: f64) -> (f64, f64) {
        highspeed(json!({ "table": table })).response.aimd(w)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn ns3_table_rows_and_boundaries() {
        // (window, a, b): Standard TCP up to 38; a row covers (previous w, its w];
        // non-integer windows are looked up rounded down; above 94717 the last row.
        for (w, a, b) in [
            (1.0, 1.0, 0.50),
            (38.0, 1.0, 0.50),
            (38.9, 1.0, 0.50),
            (39.0, 2.0, 0.44),
            (118.0, 2.0, 0.44),
            (119.0, 3.0, 0.41),
            (1000.0, 8.0, 0.33),
            (2699.0, 14.0, 0.28),
            (10000.0, 30.0, 0.21),
            (53667.0, 62.0, 0.12),
            (53668.0, 63.0, 0.12),
            (83000.0, 71.0, 0.10),
            (89054.0, 73.0, 0.09),
            (94717.0, 73.0, 0.09),
            (1e6, 73.0, 0.09),
        ] {
            assert_eq!(aimd("ns3", w), (a, b), "w = {w}");
        }
        assert_eq!(NS3_TABLE.len(), 73);
    }

    #[test]
    fn linux_table_differs_from_ns3_where_documented() {
        // b = md / 256: 128/256 = 0.5 at 38, 112/256 = 0.4375 at 118.
        for (w, a, b) in [
            (38.0, 1.0, 0.5),
            (118.0, 2.0, 0.4375),
            (1000.0, 8.0, 83.0 / 256.0),
            // Row 62 starts above 53677 in Linux (ns-3: 53667): 53670 is still row 62.
            (53670.0, 62.0, 31.0 / 256.0),
            (53678.0, 63.0, 30.0 / 256.0),
            // No row 73: above 84035 Linux stays at a = 72, md = 24.
            (89053.0, 72.0, 24.0 / 256.0),
            (1e6, 72.0, 24.0 / 256.0),
        ] {
            assert_eq!(aimd("linux", w), (a, b), "w = {w}");
        }
        assert_eq!(aimd("ns3", 53670.0), (63.0, 0.12));
    }

    #[test]
    fn table_values_match_the_rfc_closed_form() {
        // Every ns-3 b is the closed-form b at its row's window, to 2 decimals, and
        // every Linux md is it times 256 rounded down.
        let f = ClosedForm::new(&Params::default());
        for (w, _, b) in NS3_TABLE {
            assert!(
                close(f.b(f64::from(w)), b, 0.005 + 1e-12),
                "w {w}: {}",
                f.b(f64::from(w))
            );
        }
        for (w, md) in LINUX_TABLE {
            assert_eq!((f.b(f64::from(w)) * 256.0).floor(), f64::from(md), "w {w}");
        }
    }

    #[test]
    fn rfc3649_closed_form_by_hand() {
        // Up to Low_Window: Standard TCP.
        assert_eq!(aimd("rfc3649", 38.0), (1.0, 0.5));
        assert_eq!(aimd("rfc3649", 10.0), (1.0, 0.5));
        // At High_Window: b = High_Decrease = 0.1, p = High_P, so
        // a = 83000^2 x 1e-7 x 0.2 / 1.9 = 72.5158.
        let (a, b) = aimd("rfc3649", 83000.0);
        assert!(close(b, 0.1, 1e-12), "{b}");
        assert!(close(a, 83000.0f64.powi(2) * 1e-7 * 0.2 / 1.9, 1e-9), "{a}");
        // w = 1000: x = ln(1000/38) / ln(83000/38) = 3.27017 / 7.68901 = 0.425304,
        // b = 0.5 - 0.4 x = 0.329878; p = exp(ln(1.5/1444) + x ln(1e-7 x 1444/1.5))
        // = 1.03878e-3 x (9.62667e-5)^0.425304 = 1.03878e-3 x 0.0195773 = 2.03366e-5;
        // a = 1e6 x 2.03366e-5 x 0.659757 / 1.670122 = 8.0337 (the table says 8).
        let (a, b) = aimd("rfc3649", 1000.0);
        assert!(close(b, 0.329878, 1e-5), "{b}");
        assert!(close(a, 8.0337, 1e-3), "{a}");
        // Just above Low_Window a is continuous (a(38) = 1 exactly with Low_P = 1.5/38^2).
        let (a, b) = aimd("rfc3649", 38.001);
        assert!(close(a, 1.0, 1e-3) && close(b, 0.5, 1e-4), "{a} {b}");
        // Custom constants: High_Decrease 0.2 gives b(High_Window) = 0.2.
        let hs =
            highspeed(json!({ "table": "rfc3649", "high_decrease": 0.2, "high_window": 1000.0 }));
        assert!(close(hs.response.aimd(1000.0).1, 0.2, 1e-12));
    }

    #[test]
    fn decrease_fraction_is_the_default_table_b() {
        assert_eq!(decrease_fraction(20.0), 0.5);
        assert_eq!(decrease_fraction(500.0), 0.35);
        assert_eq!(decrease_fraction(5000.0), 0.25);
        assert_eq!(decrease_fraction(1e7), 0.09);
    }

    #[test]
    fn congestion_avoidance_adds_a_w_per_rtt() {
        // w = 1000: a = 8 (ns-3 row 8). One RTT of 1000 single-segment ACKs adds
        // 8/w each: about 8 (8 - 8 x 8/2000 = 7.97 to first order as w grows).
        let mut cc = highspeed(json!({}));
        let mut s = Socket::new(1400, 1000.0, 2.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 1000.0 + 8.0 / 1000.0, 1e-12), "{}", s.cwnd);
        for _ in 1..1000 {
            cc.cong_avoid(&mut s, 1);
        }
        assert!(close(s.cwnd, 1007.97, 0.01), "{}", s.cwnd);
        // Delayed ACKs of 2 segments grow as fast per segment.
        let mut s = Socket::new(1400, 1000.0, 2.0);
        for _ in 0..500 {
            cc.cong_avoid(&mut s, 2);
        }
        assert!(close(s.cwnd, 1007.97, 0.01), "{}", s.cwnd);
    }

    #[test]
    fn small_windows_grow_like_reno() {
        let mut cc = highspeed(json!({}));
        let mut s = Socket::new(1400, 30.0, 2.0);
        cc.cong_avoid(&mut s, 3);
        assert!(close(s.cwnd, 30.0 + 3.0 / 30.0, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn ns3_slow_start_grows_per_ack() {
        let mut cc = highspeed(json!({ "slow_start_per": "ack" }));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 11.0);
        // Still below ssthresh after the ACK's one segment: no avoidance step.
        let mut s = Socket::new(1400, 10.0, 20.0);
        cc.cong_avoid(&mut s, 4);
        assert_eq!(s.cwnd, 11.0);
    }

    #[test]
    fn slow_start_then_leftover_to_avoidance() {
        let mut cc = highspeed(json!({}));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0);
        // ssthresh 200: 2 of 4 segments reach it, 2 more add a(200) = 3 each / 200.
        let mut s = Socket::new(1400, 198.0, 200.0);
        cc.cong_avoid(&mut s, 4);
        assert!(
            close(s.cwnd, 200.0 + 2.0 * 3.0 / 200.0, 1e-12),
            "{}",
            s.cwnd
        );
    }

    #[test]
    fn per_ack_growth_ignores_the_segments_an_ack_covers() {
        let mut cc = highspeed(json!({ "increase_per": "ack" }));
        let mut s = Socket::new(1400, 1000.0, 2.0);
        cc.cong_avoid(&mut s, 2); // 8/1000 once, not twice
        assert!(close(s.cwnd, 1000.008, 1e-12), "{}", s.cwnd);
        // Slow start's leftover is dropped: 198 + 2 = 200 = ssthresh, 2 segments lost.
        let mut s = Socket::new(1400, 198.0, 200.0);
        cc.cong_avoid(&mut s, 4);
        assert_eq!(s.cwnd, 200.0);
    }

    #[test]
    fn loss_takes_b_w_off_the_window() {
        let mut cc = highspeed(json!({}));
        let mut s = Socket::new(1400, 1000.0, f64::INFINITY);
        // b(1000) = 0.33: 670.
        assert!(close(cc.ssthresh(&s), 670.0, 1e-9));
        s.cwnd = 30.0; // Standard TCP: halve
        assert_eq!(cc.ssthresh(&s), 15.0);
        s.cwnd = 3.0; // floor of 2
        assert_eq!(cc.ssthresh(&s), 2.0);
        s.cwnd = 100_000.0; // b = 0.09: 91000
        assert!(close(cc.ssthresh(&s), 91_000.0, 1e-6));
        let mut state = Vec::new();
        cc.state(&mut state);
        assert!(state.contains(&("loss_b", 0.09)), "{state:?}");
    }

    #[test]
    fn inflight_basis_reduces_the_flight_size_at_its_own_b() {
        let mut cc = highspeed(json!({ "ssthresh_basis": "inflight" }));
        let mut s = Socket::new(1400, 5000.0, f64::INFINITY);
        s.in_flight = 1000; // b(1000) = 0.33, not b(5000) = 0.25
        assert!(close(cc.ssthresh(&s), 670.0, 1e-9));
    }

    #[test]
    fn linux_b_window_uses_the_last_avoidance_row() {
        let mut cc = highspeed(json!({ "b_window": "last_increase" }));
        // A loss in the first slow start: no avoidance yet, b = 0.5 even at 5000.
        let mut s = Socket::new(1400, 5000.0, f64::INFINITY);
        assert_eq!(cc.ssthresh(&s), 2500.0);
        // After an avoidance ACK at 1000, b(1000) = 0.33 is applied even at 5000.
        s.cwnd = 1000.0;
        s.ssthresh = 2.0;
        cc.cong_avoid(&mut s, 1);
        s.cwnd = 5000.0;
        assert!(close(cc.ssthresh(&s), 5000.0 * 0.67, 1e-9));
        let mut state = Vec::new();
        cc.state(&mut state);
        assert!(
            state.contains(&("ca_window", 1000.0)) && state.contains(&("a_w", 8.0)),
            "{state:?}"
        );
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (
                json!({ "low_window": 0.5 }),
                "low_window = 0.5: must be >= 1",
            ),
            (
                json!({ "high_window": 38.0 }),
                "high_window = 38: must be > low_window = 38",
            ),
            (json!({ "high_p": 0.0 }), "high_p = 0: must be in (0, "),
            (json!({ "high_p": 0.01 }), "high_p = 0.01"),
            (
                json!({ "high_decrease": 0.6 }),
                "high_decrease = 0.6: must be in (0, 0.5]",
            ),
            (json!({ "table": "ns2" }), "rfc3649"),
            (json!({ "b_window": "stale" }), "last_increase"),
            (json!({ "increase_per": "byte" }), "segment"),
            (json!({ "ssthresh_basis": "flight" }), "inflight"),
            (json!({ "beta": 0.5 }), "beta"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
