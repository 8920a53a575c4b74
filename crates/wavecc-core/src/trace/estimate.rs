//! What a trace's rows take in memory, as the trace structs hold them: the bytes per
//! row the memory estimate (`scenario::estimate_memory`) counts, and the heap bytes a
//! finished trace holds, which its tests compare with the estimate.

use super::{CcTrace, EventTrace, FlowTrace, QueueTrace, UeTrace, row_bytes};
use std::mem::size_of;

/// Bytes of one row of each trace: the sum of its columns' element sizes.
pub const FLOW_ROW_BYTES: usize = row_bytes(FlowTrace::COLUMNS);
/// A queue row's name is a `String` of its own: its header and a heap block that
/// holds names up to `access-reverse/flow99999` (24 bytes).
pub const QUEUE_ROW_BYTES: usize = row_bytes(QueueTrace::COLUMNS) + QUEUE_NAME_HEAP_BYTES;
const QUEUE_NAME_HEAP_BYTES: usize = 24;
pub const CC_ROW_BYTES: usize = row_bytes(CcTrace::COLUMNS);
pub const UE_ROW_BYTES: usize = row_bytes(UeTrace::COLUMNS);
pub const EVENT_ROW_BYTES: usize = row_bytes(EventTrace::COLUMNS);

/// Heap bytes a column holds: its capacity, which growth leaves up to twice its length.
#[allow(clippy::ptr_arg)] // the capacity is the point
fn column<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}

macro_rules! heap_bytes {
    ($t:ty { $($col:ident),* }) => {
        impl $t {
            /// Heap bytes the columns hold.
            pub fn heap_bytes(&self) -> usize {
                0 $(+ column(&self.$col))*
            }
        }
    };
}

heap_bytes!(FlowTrace {
    t_s,
    flow,
    goodput_mbps,
    cwnd_segments,
    ssthresh_segments,
    inflight_bytes,
    srtt_ms,
    min_rtt_ms,
    rtt_samples,
    rtt_mean_ms,
    pacing_rate_mbps,
    ca_state,
    retransmits
});
heap_bytes!(CcTrace {
    t_s,
    flow,
    var,
    value
});
heap_bytes!(EventTrace {
    t_s,
    flow,
    kind,
    detail,
    seq
});
heap_bytes!(UeTrace {
    t_s,
    ue,
    x_m,
    y_m,
    cell,
    sinr_db,
    mcs,
    los,
    rlc_bytes,
    rlc_packets,
    rlc_drops,
    harq_retx
});

impl QueueTrace {
    /// Heap bytes the columns hold, the names' own blocks included.
    pub fn heap_bytes(&self) -> usize {
        let names: usize = self.queue.iter().map(String::capacity).sum();
        column(&self.t_s)
            + column(&self.queue)
            + names
            + column(&self.bytes)
            + column(&self.packets)
            + column(&self.drops_overflow)
            + column(&self.drops_random)
    }
}
