"""The type stub of the compiled core names exactly what the core exports, so the type
check of the package (scripts/lint.sh) cannot silently drift from the binding."""

import ast
from pathlib import Path

import wavecc
from wavecc import _core


def _stub_names() -> set[str]:
    stub = Path(wavecc.__file__).with_name("_core.pyi")
    names = set()
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_core_stub_names_every_export_and_nothing_else():
    exported = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert _stub_names() == exported


def test_the_package_says_it_is_typed():
    assert Path(wavecc.__file__).with_name("py.typed").exists()
