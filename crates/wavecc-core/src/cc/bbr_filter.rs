//! Windowed max filter: the largest value seen over a sliding window of time (or
//! rounds), kept in three samples, as Kathleen Nichols' algorithm in Linux
//! `lib/win_minmax.c` (`minmax_running_max`), which BBR uses for its bottleneck
//! bandwidth. (A min filter would be the mirror image; BBR v1's RTprop is a plain
//! minimum with an expiry time instead, so none is needed.)
//!
//! The filter keeps the best, second-best and third-best samples, each from a later
//! part of the window than the one before it, so that when the best one ages out the
//! next one is already known and nothing has to be rescanned. Written from the
//! algorithm's description and Linux's behaviour, in floating point; time is an
//! integer (rounds for BBR's bandwidth filter).

/// One sample: its time and value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    t: u64,
    v: f64,
}

/// A running windowed max filter (Linux `struct minmax`).
#[derive(Clone, Debug)]
pub struct MaxFilter {
    s: [Entry; 3],
}

impl MaxFilter {
    /// A filter holding only `v` at time `t`.
    pub fn new(t: u64, v: f64) -> Self {
        Self {
            s: [Entry { t, v }; 3],
        }
    }

    /// The best value in the window.
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forgets every sample but `v` at `t` (Linux `minmax_reset`).
    pub fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [Entry { t, v }; 3];
        v
    }

    /// Adds the measurement `v` taken at `t` to a window `win` long (samples older
    /// than `t - win` expire) and returns the best value in the window (Linux
    /// `minmax_running_max`). Times must not decrease.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Entry { t, v };
        // A new best, or every sample has expired: start over from this one.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwindow_update(win, val)
    }

    /// Ages the samples (Linux `minmax_subwin_update`). When the best sample has left
    /// the window the second and third move up (twice if need be: the entry check
    /// guarantees the third is inside). While the best is young, quarter- and
    /// half-window marks refresh the second and third choices, so they come from
    /// later sub-windows than the best.
    fn subwindow_update(&mut self, win: u64, val: Entry) -> f64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }

    /// The three kept samples as (time, value), best first.
    #[cfg(test)]
    pub fn samples(&self) -> [(u64, f64); 3] {
        self.s.map(|e| (e.t, e.v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_max_replaces_everything() {
        let mut f = MaxFilter::new(0, 0.0);
        assert_eq!(f.update(10, 1, 5.0), 5.0);
        assert_eq!(f.update(10, 2, 7.0), 7.0);
        assert_eq!(f.samples(), [(2, 7.0); 3]);
    }

    #[test]
    fn decreasing_samples_fill_the_sub_windows_then_take_over_as_the_best_expires() {
        // Window 10: quarter mark dt > 2, half mark dt > 5 (integer division, as Linux).
        let mut f = MaxFilter::new(0, 100.0);
        // t = 1, 2: dt <= 2, nothing changes.
        assert_eq!(f.update(10, 1, 95.0), 100.0);
        assert_eq!(f.update(10, 2, 94.0), 100.0);
        assert_eq!(f.samples(), [(0, 100.0); 3]);
        // t = 3: past the quarter mark, 2nd and 3rd become (3, 90).
        assert_eq!(f.update(10, 3, 90.0), 100.0);
        assert_eq!(f.samples(), [(0, 100.0), (3, 90.0), (3, 90.0)]);
        // t = 6: past the half mark, 3rd becomes (6, 80).
        assert_eq!(f.update(10, 6, 80.0), 100.0);
        assert_eq!(f.samples(), [(0, 100.0), (3, 90.0), (6, 80.0)]);
        // t = 10: the best (t = 0) is still inside (10 - 0 = 10, not > 10).
        assert_eq!(f.update(10, 10, 75.0), 100.0);
        // t = 11: it expires; 90 (t = 3) is the best, then 80 (t = 6), then the new 70.
        assert_eq!(f.update(10, 11, 70.0), 90.0);
        assert_eq!(f.samples(), [(3, 90.0), (6, 80.0), (11, 70.0)]);
        // t = 14: 90 (t = 3) expires in turn; 80 takes over.
        assert_eq!(f.update(10, 14, 60.0), 80.0);
        assert_eq!(f.samples(), [(6, 80.0), (11, 70.0), (14, 60.0)]);
    }

    #[test]
    fn a_sample_after_the_whole_window_resets_the_filter() {
        let mut f = MaxFilter::new(0, 100.0);
        f.update(10, 3, 90.0);
        // 20 - 3 > 10: even the third choice has expired.
        assert_eq!(f.update(10, 20, 10.0), 10.0);
        assert_eq!(f.samples(), [(20, 10.0); 3]);
    }

    #[test]
    fn a_second_best_above_the_third_replaces_both() {
        let mut f = MaxFilter::new(0, 100.0);
        f.update(10, 3, 50.0); // quarter mark: (3, 50) twice
        f.update(10, 6, 40.0); // half mark: third (6, 40)
        f.update(10, 7, 60.0); // >= second: second and third (7, 60)
        assert_eq!(f.samples(), [(0, 100.0), (7, 60.0), (7, 60.0)]);
        f.update(10, 8, 55.0); // below both; the half mark refreshes the third: (8, 55)
        assert_eq!(f.samples(), [(0, 100.0), (7, 60.0), (8, 55.0)]);
        f.update(10, 9, 58.0); // between second and third: third (9, 58)
        assert_eq!(f.samples(), [(0, 100.0), (7, 60.0), (9, 58.0)]);
    }
}
