//! A FIFO ring buffer of `Copy` items with power-of-two capacity: indices are
//! masked rather than wrapped by comparison, which makes push, pop and random
//! access a few instructions each. Links and the TCP scoreboard move every packet
//! through one, so this is on the simulator's hottest path.
//!
//! The hot accessors read and write slots without bounds checks: a masked position
//! is always inside the buffer (see [`Ring::slot`]), which the compiler cannot see,
//! and the checks it kept were 2 % of the instructions of a 1 Gb/s run.

#[derive(Debug, Clone)]
pub struct Ring<T: Copy> {
    buf: Vec<T>,
    /// Position of the front item; it only grows (masked on access).
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Self {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    /// The item at position `pos` (masked). Callers ensure the ring has slots: it
    /// holds an item, or has just grown.
    fn slot(&self, pos: usize) -> &T {
        let i = pos & self.mask();
        debug_assert!(i < self.buf.len());
        // SAFETY: `buf.len()` is a power of two (`grow`) and not zero (the caller's
        // side), so masking with `buf.len() - 1` gives `i < buf.len()`.
        unsafe { self.buf.get_unchecked(i) }
    }

    /// As [`Self::slot`], mutable.
    fn slot_mut(&mut self, pos: usize) -> &mut T {
        let i = pos & self.mask();
        debug_assert!(i < self.buf.len());
        // SAFETY: as in `slot`.
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Always inlined: called out of line, the item goes through memory, and an item
    /// just written field by field then stalls the copy on store forwarding.
    #[inline(always)]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.buf.len() {
            self.grow(item);
        }
        *self.slot_mut(self.head + self.len) = item;
        self.len += 1;
    }

    /// Doubles the capacity, laying the items out from index 0 (`fill` pads the
    /// new slots; it is never read before being overwritten).
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(16);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter());
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
    }

    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = *self.slot(self.head);
        self.head = self.head.wrapping_add(1);
        self.len -= 1;
        Some(item)
    }

    /// Drops the `n` front items without reading them: a caller that has already
    /// looked at them in place saves copying each out through [`Self::pop_front`].
    pub fn drop_front(&mut self, n: usize) {
        assert!(n <= self.len, "dropping more items than the ring holds");
        self.head = self.head.wrapping_add(n);
        self.len -= n;
    }

    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    pub fn back_mut(&mut self) -> Option<&mut T> {
        self.len.checked_sub(1).and_then(|i| self.get_mut(i))
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| self.slot(self.head + i))
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        (i < self.len).then(|| self.slot_mut(self.head + i))
    }

    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(move |i| self.buf[(self.head + i) & self.mask()])
    }

    /// Calls `f` on every item, front to back.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        // A ring that never held an item has no buffer to mask into.
        if self.len == 0 {
            return;
        }
        let m = self.mask();
        for i in 0..self.len {
            f(&mut self.buf[(self.head + i) & m]);
        }
    }

    /// The index of the first item for which `pred` is false, assuming the items
    /// are partitioned (all true, then all false), as `slice::partition_point`.
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&self.buf[(self.head + mid) & self.mask()]) {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        lo
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("ring index out of range")
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for Ring<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.get_mut(i).expect("ring index out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn for_each_mut_on_a_ring_that_never_held_an_item_does_nothing() {
        let mut ring = Ring::<u32>::default();
        ring.for_each_mut(|x| *x += 1);
        assert!(ring.is_empty());
    }

    proptest! {
        /// Behaves as std's VecDeque under any sequence of pushes and pops.
        #[test]
        fn matches_vecdeque(ops in prop::collection::vec(prop::option::of(any::<u32>()), 0..300)) {
            let (mut ring, mut deque) = (Ring::default(), VecDeque::new());
            for op in ops {
                match op {
                    Some(x) => { ring.push_back(x); deque.push_back(x); }
                    None => prop_assert_eq!(ring.pop_front(), deque.pop_front()),
                }
                prop_assert_eq!(ring.len(), deque.len());
                prop_assert_eq!(ring.front(), deque.front());
                prop_assert_eq!(ring.back(), deque.back());
                prop_assert!(ring.iter().eq(deque.iter().copied()));
            }
            let sorted: Vec<u32> = (0..ring.len() as u32).collect();
            let mut r = Ring::default();
            sorted.iter().for_each(|&x| r.push_back(x));
            for probe in 0..=sorted.len() as u32 {
                prop_assert_eq!(r.partition_point(|&x| x < probe), sorted.partition_point(|&x| x < probe));
            }
        }
    }
}
