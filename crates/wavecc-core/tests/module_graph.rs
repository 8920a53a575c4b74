//! The core's layering, checked on its source: which top-level module imports which
//! (`crate::NAME` paths outside comments and test modules). No module but `lib.rs`,
//! whose entry points run whole configs, may import `world`, and the imports must
//! form no cycle. docs/architecture.md draws the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Who may import `world`: the crate root, whose entry points run whole configs
/// for the binding, the fuzzer and the trace export.
const WORLD_IMPORTERS: &[&str] = &["lib"];

/// The names `lib.rs` gives at the crate root, and the module each comes from
/// (`lib` for the entry points it defines).
const ROOT_NAMES: &[(&str, &str)] = &[
    ("Config", "scenario"),
    ("ConfigError", "scenario"),
    ("RunOutput", "trace"),
    ("Watch", "engine"),
    ("Stopped", "engine"),
    ("POLL_EVENTS", "engine"),
    ("run", "lib"),
    ("run_watched", "lib"),
    ("run_recording_deliveries", "lib"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to: `src/tcp/sender.rs` -> `tcp`,
/// `src/udp.rs` -> `udp`, `src/lib.rs` -> `lib`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules `code` names through `crate::` paths, including the
/// grouped form `use crate::{a::X, b};`.
fn imports(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut name = |word: &str| {
        let word = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
        if modules.contains(word) {
            found.insert(word.to_string());
        } else if let Some(&(_, module)) = ROOT_NAMES.iter().find(|(n, _)| *n == word) {
            found.insert(module.to_string());
        }
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                name(item.trim().split("::").next().unwrap());
            }
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            name(&rest[..end]);
        }
    }
    found
}

/// Every top-level module and the modules it imports (itself left out).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        let mut found = imports(&code(&text), &modules);
        found.remove(&module);
        graph.entry(module).or_default().extend(found);
    }
    graph
}

/// A cycle in `graph`, if there is one, as the path of modules around it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(true) => return None,
            Some(false) => {
                let start = path.iter().position(|n| n == node).unwrap();
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(node.to_string(), false);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(node.to_string(), true);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn only_the_entry_points_import_world() {
    let graph = graph();
    let importers: Vec<&String> = graph
        .iter()
        .filter(|(m, deps)| deps.contains("world") && !WORLD_IMPORTERS.contains(&m.as_str()))
        .map(|(m, _)| m)
        .collect();
    assert!(
        importers.is_empty(),
        "{importers:?} import world; only {WORLD_IMPORTERS:?} may"
    );
}

#[test]
fn modules_import_each_other_without_cycles() {
    assert_eq!(
        find_cycle(&graph()),
        None,
        "an import cycle among the core's modules"
    );
}

#[test]
fn the_checks_see_imports_and_cycles() {
    let modules: BTreeSet<String> = ["tcp", "net", "world", "scenario"]
        .into_iter()
        .map(String::from)
        .collect();
    let text = "use crate::{net::Packet, tcp};\n\
                fn f() { crate::run(&c); crate::world::World::new(&c); } // crate::scenario\n";
    let found = imports(&code(text), &modules);
    assert_eq!(
        found,
        ["lib", "net", "tcp", "world"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    let cyclic: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
    assert!(find_cycle(&cyclic).is_some());
    let mut acyclic = cyclic.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&acyclic), None);
}

/// Every name `lib.rs` gives at the crate root is in [`ROOT_NAMES`] with the module it
/// comes from, so that an import through the root counts for that module.
#[test]
fn the_root_names_are_known() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = code(&std::fs::read_to_string(lib).unwrap());
    let mut names = Vec::new();
    for line in lib.lines() {
        if let Some(rest) = line.strip_prefix("pub fn ") {
            let end = rest.find(['(', '<']).unwrap();
            names.push((rest[..end].to_string(), "lib".to_string()));
        } else if let Some(rest) = line.strip_prefix("pub use ") {
            let (module, items) = rest.split_once("::").unwrap();
            let items = items.trim_end_matches(';').trim_matches(['{', '}']);
            for item in items.split(',') {
                names.push((item.trim().to_string(), module.to_string()));
            }
        }
    }
    assert!(names.len() >= 9, "read {names:?}");
    for (name, module) in &names {
        assert!(
            ROOT_NAMES.contains(&(name.as_str(), module.as_str())),
            "the root's {name} (from {module}) is not in ROOT_NAMES"
        );
    }
    assert_eq!(
        names.len(),
        ROOT_NAMES.len(),
        "ROOT_NAMES lists a name the root lacks"
    );
}
