//! Seeded random streams, one per component.
//!
//! Each stream's seed is derived from the run seed and a stable component name, so
//! adding a component (a second flow, a new loss model) never shifts the random
//! numbers another component sees.

pub use rand::RngExt;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng = Xoshiro256PlusPlus;

#[derive(Debug, Clone, Copy)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// The stream for a named component, e.g. "loss/bottleneck" or "app/flow3".
    pub fn stream(&self, component: &str) -> Rng {
        Rng::seed_from_u64(splitmix64(self.seed ^ fnv1a(component.as_bytes())))
    }
}

/// FNV-1a: a fixed, platform-independent string hash (std's hasher is randomised).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let s = RngStreams::new(7);
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("x");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("x");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn names_and_seeds_separate_streams() {
        let s = RngStreams::new(7);
        assert_ne!(s.stream("x").next_u64(), s.stream("y").next_u64());
        assert_ne!(
            s.stream("x").next_u64(),
            RngStreams::new(8).stream("x").next_u64()
        );
    }
}
