//! The clock every part shares, the stop flag the signals set, and small system calls.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by SIGINT or SIGTERM; every loop polls it and unwinds, so that cleanup runs.
pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Stops the run on SIGINT, SIGTERM and SIGHUP, except a signal the process was started
/// ignoring: a shell starts background jobs ignoring SIGINT (and `nohup` SIGHUP), so
/// that a Ctrl-C meant for the foreground job leaves them running, as it leaves the
/// Python CLI that started this binary.
pub fn install_signal_handlers() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        unsafe {
            let mut inherited: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut inherited);
            if inherited.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

pub fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// CLOCK_MONOTONIC in ns: one clock for every namespace, so a timestamp written in
/// the sender's can be compared in the receiver's.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Lets this thread's timers fire within 1 ns of their deadline instead of the
/// default 50 us of slack: the delay line's precision depends on it.
pub fn precise_timers() {
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Sleeps until `deadline_ns` (CLOCK_MONOTONIC), or returns at once if it has passed.
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
}

/// Waits until `fd` is readable or `timeout_ns` passed.
pub fn wait_readable(fd: libc::c_int, timeout_ns: u64) {
    let mut pollfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    unsafe { libc::ppoll(&mut pollfd, 1, &ts, std::ptr::null()) };
}

/// Puts the calling thread in the real-time class (SCHED_FIFO), so that a busy
/// machine's other work does not delay its packets; false if the kernel refuses.
/// The thread sleeps whenever it has nothing due, so it cannot starve the machine.
pub fn real_time() -> bool {
    let param = libc::sched_param { sched_priority: 50 };
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Waits until `fd` is readable (true) or a signal stopped the run (false).
pub fn wait_readable_or_stop(fd: libc::c_int) -> bool {
    while !stopped() {
        let mut pollfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        if unsafe { libc::poll(&mut pollfd, 1, 50) } > 0 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disposition(signal: libc::c_int) -> libc::sighandler_t {
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut action);
            action.sa_sigaction
        }
    }

    /// One test for the process-wide dispositions, so that no other test sees them change.
    #[test]
    fn an_inherited_ignore_is_kept_and_the_rest_stop_the_run() {
        let handler = on_signal as *const () as usize;
        unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
        install_signal_handlers();
        assert_eq!(disposition(libc::SIGINT), libc::SIG_IGN);
        assert_eq!(disposition(libc::SIGTERM), handler);
        unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
        install_signal_handlers();
        assert_eq!(disposition(libc::SIGINT), handler);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
}
