//! Simulation speed on the built-in 1 Gb/s, 20 ms dumbbell and on the papers' urban
//! mmWave walk. Criterion reports the throughput in "elements" per second, where one
//! element is one simulated second: the figure is simulated seconds per wall second. `wavecc bench` measures the full
//! 60 s cases with peak memory; this is the quick, statistically careful view.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wavecc_core::Config;
use wavecc_core::scenario::builtin;

const SIM_SECONDS: f64 = 10.0;

fn builtin_for(id: &str) -> Config {
    let mut cfg = Config::from_toml(builtin::get(id).unwrap()).unwrap();
    cfg.duration_s = SIM_SECONDS;
    cfg
}

fn dumbbell(cca: &str, per_byte: f64) -> Config {
    let mut cfg = builtin_for("dumbbell-1g");
    cfg.flows[0].cca = cca.into();
    cfg.path.loss.per_byte = per_byte;
    cfg
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dumbbell-1g-10s");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SIM_SECONDS as u64));
    for (name, cca, loss) in [
        ("cubic", "cubic", 0.0),
        ("newreno", "newreno", 0.0),
        ("bbr", "bbr", 0.0),
        ("cubic-loss1e-7", "cubic", 1e-7),
    ] {
        let cfg = dumbbell(cca, loss);
        group.bench_function(name, |b| b.iter(|| wavecc_core::run(&cfg)));
    }
    group.finish();
    // The first 10 s of the urban walk: the 1 Gb/s server through the Internet
    // link, the S1-U and the radio, with the walk's first two blockages (trees).
    let mut group = c.benchmark_group("urban-10s");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SIM_SECONDS as u64));
    let cfg = builtin_for("urban");
    group.bench_function("cubic", |b| b.iter(|| wavecc_core::run(&cfg)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
