//! Fuzzes the config parser, the validator and a 0.1 s run
//! (`wavecc_core::fuzz::exercise`). Inputs that are JSON are mutated as
//! JSON trees half of the time (a value replaced by an edge number, another type, a
//! key or list element removed or repeated), so that most mutants still parse and
//! reach validation; the rest get libFuzzer's byte mutations, guided by
//! `config.dict` (TOML inputs, NaN and infinities, keys).

#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use serde_json::{Number, Value};

fuzz_target!(|data: &[u8]| wavecc_core::fuzz::exercise(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = SplitMix(u64::from(seed));
    if rng.below(2) == 0 {
        if let Some(mutant) = std::str::from_utf8(&data[..size]).ok().and_then(|text| mutate_json(text, &mut rng)) {
            if mutant.len() <= max_size {
                data[..mutant.len()].copy_from_slice(mutant.as_bytes());
                return mutant.len();
            }
        }
    }
    fuzzer_mutate(data, size, max_size)
});

/// Numbers at the edges of what the engine represents and the validator allows.
const EDGE_NUMBERS: &[f64] = &[
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e-12, 1e-9, 5e-10, 1e-6, 1e-3, 0.1, 255.0, 256.0, 65535.0, 65536.0,
    4294967295.0, 4294967296.0, 9007199254740993.0, 1e6, 1000000.5, 1e9, 1.9e10, 1e12, 1e13, 1e15, 1e19, 1e300,
    -1e300, f64::MAX, f64::MIN_POSITIVE,
];

/// Values of another type, and the names the schema's choices use.
const OTHER_VALUES: &[&str] = &[
    "null", "true", "false", "\"\"", "[]", "{}", "[0, 0]", "[0, 0, 0]", "\"bbr\"", "\"udp\"", "\"onoff\"", "\"rate\"",
    "\"ns3\"", "\"linux\"", "\"3gpp\"", "\"ns3-mmwave\"", "\"building\"", "\"exponential\"", "18446744073709551615",
    "-9223372036854775808",
];

fn mutate_json(text: &str, rng: &mut SplitMix) -> Option<String> {
    let mut root: Value = serde_json::from_str(text).ok()?;
    let n = count(&root);
    let node = nth(&mut root, rng.below(n))?;
    match (rng.below(4), &mut *node) {
        (0, Value::Object(map)) if !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).cloned()?;
            map.remove(&key);
        }
        (0, Value::Array(items)) if !items.is_empty() => {
            let i = rng.below(items.len());
            let copies = 1 + rng.below(3);
            let item = items[i].clone();
            items.extend(std::iter::repeat_n(item, copies));
        }
        (1, Value::Array(items)) if !items.is_empty() => {
            items.remove(rng.below(items.len()));
        }
        (1, Value::Number(v)) => {
            let scale = 10f64.powi(rng.below(25) as i32 - 12);
            *node = number(v.as_f64()? * scale * if rng.below(4) == 0 { -1.0 } else { 1.0 });
        }
        (2, _) => *node = serde_json::from_str(OTHER_VALUES[rng.below(OTHER_VALUES.len())]).ok()?,
        _ => *node = number(EDGE_NUMBERS[rng.below(EDGE_NUMBERS.len())]),
    }
    serde_json::to_string(&root).ok()
}

/// A JSON number, written as an integer when it is one that fits.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v >= 0.0 && v < 1.8e19 {
        Value::Number(Number::from(v as u64))
    } else {
        Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// Nodes of the tree, itself included.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

/// The `i`-th node in depth-first order.
fn nth(v: &mut Value, mut i: usize) -> Option<&mut Value> {
    if i == 0 {
        return Some(v);
    }
    i -= 1;
    let children: Vec<&mut Value> = match v {
        Value::Array(items) => items.iter_mut().collect(),
        Value::Object(map) => map.values_mut().collect(),
        _ => return None,
    };
    for child in children {
        let n = count(child);
        if i < n {
            return nth(child, i);
        }
        i -= n;
    }
    None
}

/// Deterministic from libFuzzer's seed, so that a mutation can be replayed.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }
}
