//! A flow's RTT distribution for the summary: counts per bucket of an HDR histogram
//! of microseconds (3 significant digits, 1 us to 1000 s), so that percentiles cost
//! constant memory however long the run; the mean is exact.
//!
//! The sender records a sample on most ACKs, and `hdrhistogram`'s insert (its
//! index, the minimum and maximum it tracks, the total, behind a call) was about 56
//! instructions of each. The counts are therefore kept here, in the histogram's own
//! layout, and read as `hdrhistogram::Histogram` reads them: the same counts give the
//! same quantiles, and the minimum it reports is the lowest value of the lowest
//! bucket counted, whichever sample put it there. (Building that histogram for each
//! read, a 172 kB allocation zeroed and filled, cost about 0.4 M instructions a read,
//! three reads per flow: 8 % of a 1 s run of `city-100ue`'s 127 flows.)

/// Microseconds the histogram tracks: larger samples count as this (as
/// `Histogram::saturating_record` clamps them).
const HIGHEST_US: u64 = 1_000_000_000;
/// `log2` of the 1024 sub-buckets each bucket after the first adds.
const HALF_MAGNITUDE: u32 = 10;
/// Values below 2048 us have a bucket each.
const SUB_BUCKET_MASK: u64 = (2 << HALF_MAGNITUDE) - 1;
/// Buckets of `Histogram::new_with_bounds(1, HIGHEST_US, 3)` (its
/// `distinct_values`): 20 powers of two from 2048 us, 1024 buckets each, and the
/// first 2048.
const BUCKETS: usize = 21 << HALF_MAGNITUDE;

/// `hdrhistogram`'s index of the bucket that counts `us` (its `counts_index` for a
/// lowest value of 1): the power of two above 2047 and the top 11 bits below it.
fn bucket_of(us: u64) -> usize {
    let power = 63 - HALF_MAGNITUDE - (us | SUB_BUCKET_MASK).leading_zeros();
    ((power as usize) << HALF_MAGNITUDE) + (us >> power) as usize
}

/// The power of two of bucket `i`'s width.
fn power_of(i: usize) -> usize {
    (i >> HALF_MAGNITUDE).saturating_sub(1)
}

/// The lowest value that bucket `i` counts (`hdrhistogram`'s `value_for`).
fn lowest_of(i: usize) -> u64 {
    let power = power_of(i);
    ((i - (power << HALF_MAGNITUDE)) as u64) << power
}

/// The highest value that bucket `i` counts (`hdrhistogram`'s `highest_equivalent`
/// of its values).
fn highest_of(i: usize) -> u64 {
    lowest_of(i) + (1 << power_of(i)) - 1
}

/// Buckets a flow's counts start with: one power of two's worth (its RTTs within a
/// factor of two of the first sample's, once above 2 ms).
const FIRST_SPAN: usize = 1 << HALF_MAGNITUDE;

#[derive(Debug, Clone, Default)]
pub struct RttStats {
    /// The counts of buckets `first..first + counts.len()`, a window that covers
    /// every counted bucket: grown as samples fall outside it, not allocated whole
    /// (`BUCKETS` of them, 172 kB per flow, zeroed at the start of every run: 20 M
    /// instructions for `city-100ue`'s 127 flows, and 60 MB of `city-1000ue`'s 248 MB
    /// peak). A flow's RTTs span a few hundred to a few thousand buckets.
    counts: Vec<u64>,
    first: usize,
    samples: u64,
    sum_ns: u128,
}

impl RttStats {
    pub fn record(&mut self, rtt_ns: u64) {
        let us = (rtt_ns / 1000).max(1);
        let i = match bucket_of(us) {
            i if i < BUCKETS => i,
            _ => bucket_of(HIGHEST_US),
        };
        // One test for both ends: below the window the index wraps to past its end.
        match self.counts.get_mut(i.wrapping_sub(self.first)) {
            Some(n) => *n += 1,
            None => self.count_outside(i),
        }
        self.samples += 1;
        self.sum_ns += rtt_ns as u128;
    }

    /// Counts a sample in bucket `i`, outside the window: widens it on that side by
    /// at least its span (the first sample opens it at `i`, [`FIRST_SPAN`] wide), so
    /// that RTTs that keep rising widen it a few times, not at each new highest
    /// bucket. Out of line and cold: a run's ACKs record hundreds of thousands of
    /// samples.
    #[cold]
    #[inline(never)]
    fn count_outside(&mut self, i: usize) {
        let (start, end) = if self.counts.is_empty() {
            (i, (i + FIRST_SPAN).min(BUCKETS))
        } else {
            let (start, end) = (self.first, self.first + self.counts.len());
            let span = end - start;
            if i < start {
                (i.min(start.saturating_sub(span)), end)
            } else {
                (start, (i + 1).max(end + span).min(BUCKETS))
            }
        };
        let mut counts = vec![0; end - start];
        counts[self.first.max(start) - start..][..self.counts.len()].copy_from_slice(&self.counts);
        counts[i - start] += 1;
        (self.counts, self.first) = (counts, start);
    }

    /// The most heap bytes the counts take (every bucket counted).
    pub fn max_heap_bytes() -> usize {
        BUCKETS * std::mem::size_of::<u64>()
    }

    pub fn count(&self) -> u64 {
        self.samples
    }

    /// Mean in ms (exact, not from the buckets); NaN without samples.
    pub fn mean_ms(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.count() as f64 / 1e6
        }
    }

    /// The first bucket at which the running count of samples reaches `target`
    /// (at most the number of samples).
    fn bucket_reaching(&self, target: u64) -> usize {
        let mut seen = 0;
        let offset = self
            .counts
            .iter()
            .position(|&n| {
                seen += n;
                seen >= target
            })
            .expect("the counts sum to the samples");
        self.first + offset
    }

    /// Quantile `q` in [0, 1] in ms; NaN without samples. As `hdrhistogram`'s
    /// `value_at_quantile`: the bucket holding the `ceil(q * samples)`th sample (at
    /// least the first), read as its highest value, or its lowest for `q == 0`.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.count() == 0 {
            return f64::NAN;
        }
        let q = if q > 1.0 { 1.0 } else { q };
        let target = ((q * self.samples as f64).ceil() as u64).max(1);
        let i = self.bucket_reaching(target);
        let us = if q == 0.0 {
            lowest_of(i)
        } else {
            highest_of(i)
        };
        us as f64 / 1e3
    }

    /// The lowest value of the lowest bucket counted, in ms (`hdrhistogram`'s
    /// `min`); NaN without samples.
    pub fn min_ms(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            lowest_of(self.bucket_reaching(1)) as f64 / 1e3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;
    use proptest::prelude::*;

    /// Significant digits: 2048 sub-buckets, the top 1024 of them per power of two.
    const SIGFIG: u8 = 3;

    fn hdr() -> Histogram<u64> {
        Histogram::new_with_bounds(1, HIGHEST_US, SIGFIG).expect("valid bounds")
    }

    #[test]
    fn the_layout_is_hdrhistograms() {
        let h = hdr();
        assert_eq!(BUCKETS, h.distinct_values());
        let edges = (0..40).flat_map(|p| {
            let x = 1u64 << p;
            [x - 1, x, x + 1]
        });
        for us in edges.chain([999, 1000, 2047, 2048, 2049, 16_383, 16_400, HIGHEST_US]) {
            let us = us.max(1);
            let i = bucket_of(us);
            if i < BUCKETS {
                assert_eq!(lowest_of(i), h.lowest_equivalent(us), "{us} us");
                assert_eq!(bucket_of(lowest_of(i)), i, "{us} us");
            }
        }
        assert_eq!(bucket_of(lowest_of(BUCKETS - 1)), BUCKETS - 1);
    }

    #[test]
    fn rtt_quantiles_within_histogram_precision() {
        let mut s = RttStats::default();
        for ms in 1..=100u64 {
            s.record(ms * 1_000_000);
        }
        assert_eq!(s.count(), 100);
        assert!((s.mean_ms() - 50.5).abs() < 1e-9);
        assert!((s.quantile_ms(0.5) - 50.0).abs() < 0.1);
        assert!((s.quantile_ms(0.95) - 95.0).abs() < 0.1);
        assert!((s.min_ms() - 1.0).abs() < 0.01);
    }

    #[test]
    fn empty_stats_are_nan() {
        let s = RttStats::default();
        assert!(s.mean_ms().is_nan() && s.quantile_ms(0.95).is_nan());
    }

    proptest! {
        /// The counts read as the histogram that recorded every sample reads, from
        /// 1 us to beyond the tracked range.
        #[test]
        fn reads_as_hdrhistogram_recording_each_sample(
            samples in prop::collection::vec((0u32..42, 0u64..1 << 20), 1..300),
        ) {
            let (mut s, mut h) = (RttStats::default(), hdr());
            for (p, x) in samples {
                let ns = (x << p) >> 10;
                s.record(ns);
                h.saturating_record((ns / 1000).max(1));
            }
            prop_assert_eq!(s.count(), h.len());
            for q in [-0.5, 0.0, 0.01, 0.25, 0.5, 0.95, 0.999, 1.0, 1.5] {
                prop_assert_eq!(s.quantile_ms(q), h.value_at_quantile(q) as f64 / 1e3);
            }
            prop_assert_eq!(s.min_ms(), h.min() as f64 / 1e3);
            prop_assert_eq!(highest_of(s.bucket_reaching(s.count())), h.max());
        }
    }
}
