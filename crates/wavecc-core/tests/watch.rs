//! `run_watched`: a watch follows a run's simulated time and can stop it, and a run
//! it does not stop is the unwatched run exactly.

use std::ops::ControlFlow;
use wavecc_core::scenario::builtin;
use wavecc_core::{Config, POLL_EVENTS, RunOutput, Stopped, Watch, run, run_watched};

/// Records every poll; stops the run once simulated time reaches `stop_at_s`.
struct Recorder {
    polls: Vec<(f64, f64)>,
    stop_at_s: f64,
}

impl Watch for Recorder {
    fn poll(&mut self, now_s: f64, duration_s: f64) -> ControlFlow<()> {
        self.polls.push((now_s, duration_s));
        if now_s >= self.stop_at_s {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

fn dumbbell(duration_s: f64) -> Config {
    let mut cfg = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
    cfg.duration_s = duration_s;
    cfg
}

/// The whole output as JSON, less the wall time, which differs between any two runs.
fn comparable(mut out: RunOutput) -> String {
    out.summary.wall_time_s = 0.0;
    serde_json::to_string(&out).unwrap()
}

#[test]
fn a_watch_that_never_stops_changes_nothing() {
    let cfg = dumbbell(1.0);
    let mut watch = Recorder {
        polls: Vec::new(),
        stop_at_s: f64::INFINITY,
    };
    let watched = run_watched(&cfg, &mut watch).expect("not stopped");
    let events = watched.summary.events;
    assert_eq!(comparable(watched), comparable(run(&cfg)));
    // Polled once every POLL_EVENTS events, with the time reached and the run's end.
    assert_eq!(watch.polls.len() as u64, events / u64::from(POLL_EVENTS));
    assert!(
        watch.polls.windows(2).all(|w| w[0].0 <= w[1].0),
        "simulated time never goes back"
    );
    assert!(
        watch
            .polls
            .iter()
            .all(|&(now, end)| end == 1.0 && (0.0..=1.0).contains(&now))
    );
}

#[test]
fn a_watch_stops_the_run_at_its_next_poll() {
    let mut watch = Recorder {
        polls: Vec::new(),
        stop_at_s: 2.0,
    };
    assert_eq!(run_watched(&dumbbell(1e6), &mut watch).err(), Some(Stopped));
    // The first poll at or after 2 s was the last: at 1 Gb/s polls are ~10 ms apart.
    let &(last, _) = watch.polls.last().unwrap();
    assert!((2.0..2.05).contains(&last), "stopped at {last} s");
    assert!(watch.polls.iter().rev().skip(1).all(|&(now, _)| now < 2.0));
}

#[test]
fn a_run_advanced_in_steps_gives_the_output_of_one_run() {
    let cfg = dumbbell(1.0);
    let mut world = wavecc_core::world::World::new(&cfg);
    let mut watch = Recorder {
        polls: Vec::new(),
        stop_at_s: f64::INFINITY,
    };
    // 10 ms steps, the Gymnasium environment's default, past the end.
    for step in 1..=110 {
        let until = wavecc_core::engine::from_secs(0.01 * step as f64);
        world.advance(until, &mut watch).expect("not stopped");
        assert_eq!(world.now(), until.min(world.duration()));
    }
    assert_eq!(comparable(world.finish(&cfg, 0.0)), comparable(run(&cfg)));
}

#[test]
fn a_step_can_be_stopped_by_its_watch() {
    let cfg = dumbbell(1.0);
    let mut world = wavecc_core::world::World::new(&cfg);
    let mut watch = Recorder {
        polls: Vec::new(),
        stop_at_s: 0.2,
    };
    let until = wavecc_core::engine::from_secs(0.5);
    assert_eq!(world.advance(until, &mut watch), Err(Stopped));
    assert!(world.now() < until);
}
