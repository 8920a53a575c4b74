"""Pages of docs/ generated from the core, so that they cannot drift from it.

`python -m wavecc.docs config` writes docs/config.md, the reference of every config
key, from the config's JSON Schema (`wavecc._core.config_schema()`: the schema serde
and the doc comments of the core's config types give, with the validator's limits);
`--check` only compares and exits 1 when the page is stale.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

LIMITS_KEYWORD = "x-wavecc-limits"

# Units the key names carry (README: units in names, SI inside).
_SUFFIX_UNITS = (
    ("_bps", "b/s"),
    ("_mps", "m/s"),
    ("_bytes", "bytes"),
    ("_segments", "segments"),
    ("_dbm", "dBm"),
    ("_db", "dB"),
    ("_hz", "Hz"),
    ("_s", "s"),
    ("_m", "m"),
)

HEADER = """\
# Config reference

Every key of a scenario config: its type, unit, default, the limit the core checks
and what it means. A scenario file is TOML; the same keys go in `--set key=value`,
`--grid` and the dicts of the Python API. Keys are written as paths: `path.rate_bps`
is `rate_bps` in the `[path]` table, and `flows[].cca` is `cca` in each `[[flows]]`
entry. A key left out takes its default (a stack, `tcp.stack`, may fill `[tcp]` and
`flows[].cc` first: README, "Validation"); a key the schema does not know is an
error naming the valid ones. "Limit" is the range the validator enforces, in the
words of its error messages (`[a, b]` includes both ends, `(a, b]` excludes a); a
limit whose lower end follows another key is shown at that key's default, and rules
between keys are stated under the key. The parameters of each algorithm
(`flows[].cc`) are listed in [algorithms.md](algorithms.md).

Generated from the core's schema by `python -m wavecc.docs config`; do not edit by
hand (a test fails when this page is stale). The schema itself, for editors:
`wavecc scenarios schema` (`wavecc._core.config_schema()` in Python).
"""


@dataclass(frozen=True)
class Key:
    """One row of the reference."""

    path: str
    type: str
    unit: str
    default: str
    limit: str
    meaning: str


@dataclass(frozen=True)
class Section:
    """One table of the reference: a TOML table or array of tables."""

    path: str
    meaning: str
    keys: list[Key]


class _Schema:
    """The config's JSON Schema with its `$ref`s resolved on demand."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.root = schema
        self.limits: dict[str, str] = schema.get(LIMITS_KEYWORD, {})

    def resolve(self, node: Any) -> Any:
        """`node` with a `$ref` replaced by its definition (other keywords kept)."""
        if isinstance(node, dict) and "$ref" in node:
            target = self.root["$defs"][node["$ref"].removeprefix("#/$defs/")]
            return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def optional_inner(self, node: Any) -> tuple[Any, bool]:
        """An `Option<T>`'s T (`anyOf: [T, null]` or `type: [t, "null"]`) and whether
        the key may be absent."""
        node = self.resolve(node)
        if not isinstance(node, dict):
            return node, False
        any_of = node.get("anyOf")
        if any_of and any(b.get("type") == "null" for b in any_of):
            (inner,) = [b for b in any_of if b.get("type") != "null"]
            extra = {k: v for k, v in node.items() if k != "anyOf"}
            return {**self.resolve(inner), **extra}, True
        types = node.get("type")
        if isinstance(types, list) and "null" in types:
            (single,) = [t for t in types if t != "null"]
            return {**node, "type": single}, True
        return node, False


def _is_table(node: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(node, dict) and "properties" in node


def config_sections(schema: dict[str, Any]) -> list[Section]:
    """The reference's tables, top level first, each nested table after its parent."""
    walker = _Schema(schema)
    sections: list[Section] = []
    _walk_table(walker, "", schema, sections)
    return sections


def _walk_table(walker: _Schema, path: str, node: dict[str, Any], sections: list[Section]) -> None:
    keys: list[Key] = []
    nested: list[tuple[str, dict[str, Any]]] = []
    required = set(node.get("required", []))
    for name, raw in node["properties"].items():
        key = f"{path}.{name}" if path else name
        inner, optional = walker.optional_inner(raw)
        if _is_table(inner):
            nested.append((key, inner))
            continue
        items = walker.resolve(inner.get("items")) if isinstance(inner, dict) else None
        if _is_table(items):
            nested.append((f"{key}[]", items))
        keys.append(_key(walker, key, raw, inner, optional, name in required))
    sections.append(Section(path, _text(node.get("description", "")), keys))
    for key, table in nested:
        _walk_table(walker, key, table, sections)


def _key(walker: _Schema, path: str, raw: Any, node: Any, optional: bool, required: bool) -> Key:
    raw = walker.resolve(raw)
    meaning = _text(raw.get("description") or node.get("description", ""))
    choices = _choices(node)
    if choices and any(text for _, text in choices):
        meaning = " ".join(
            [meaning] + [f"`{value}`: {text}" for value, text in choices if text]
        ).strip()
    limit = walker.limits.get(path) or walker.limits.get(f"{path}[]", "")
    kind = _type(walker, node, choices)
    return Key(
        path=path,
        type=kind + (" or absent" if optional else ""),
        # A switch has no unit, whatever its name ends with.
        unit="" if kind == "bool" else _unit(path, limit),
        default=_default(raw, optional, required),
        limit=limit,
        meaning=meaning,
    )


def _choices(node: Any) -> list[tuple[str, str]]:
    """The values of an enumeration with their descriptions (empty for other types)."""
    if not isinstance(node, dict):
        return []
    if "enum" in node:
        return [(str(v), "") for v in node["enum"]]
    variants = node.get("oneOf") or []
    if variants and all("const" in v or "enum" in v for v in variants):
        out = []
        for v in variants:
            for value in v.get("enum", [v.get("const")]):
                out.append((str(value), _text(v.get("description", ""))))
        return out
    return []


def _type(walker: _Schema, node: Any, choices: list[tuple[str, str]]) -> str:
    if node is True or "type" not in node and not choices:
        return "table"  # any value to the schema: `flows[].cc`, checked by its algorithm
    if choices:
        return "one of " + ", ".join(f"`{value}`" for value, _ in choices)
    kind = node.get("type")
    if kind == "array":
        items = walker.resolve(node.get("items", {}))
        if _is_table(items):
            return "list of tables"
        item = _type(walker, items, _choices(items))
        if node.get("minItems") is not None and node.get("minItems") == node.get("maxItems"):
            return f"{node['minItems']} {item}s"
        return f"list of {item}s"
    if kind == "integer":
        return "integer"
    if kind in ("number", "boolean", "string"):
        return {"number": "number", "boolean": "bool", "string": "string"}[kind]
    raise ValueError(f"no type for schema {node!r}")


def _unit(path: str, limit: str) -> str:
    name = path.rsplit(".", 1)[-1].removesuffix("[]")
    for suffix, unit in _SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    # The limit's unit, e.g. `[-1e6, 1e6] m` for a position.
    after = limit.rsplit("]", 1)[-1].strip() if "]" in limit else ""
    return after.split(" ")[0] if after else ""


def _default(raw: dict[str, Any], optional: bool, required: bool) -> str:
    if "default" not in raw:
        return "required" if required else ""
    value = raw["default"]
    if value is None:
        return "absent" if optional else ""
    return f"`{_value(value)}`"


def _value(value: Any) -> str:
    """A default as TOML writes it (numbers in the shorter of plain and exponent form)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def _number(x: float) -> str:
    """The shorter of the plain and the exponent form, each exact: 1e9, 0.1, 18.0618...."""
    plain = str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)
    digits = next(n for n in range(17) if float(f"{x:.{n}e}") == x)
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    short = f"{mantissa}e{int(exponent)}"
    return short if len(short) < len(plain) else plain


def _text(doc: str) -> str:
    """A doc comment as one line of a table cell: rustdoc links as plain code."""
    text = " ".join(doc.split())
    text = re.sub(r"\[(`[^`]+`)\]", r"\1", text)
    return text.replace("|", "\\|")


def config_markdown(schema: dict[str, Any] | None = None) -> str:
    """docs/config.md's text from `schema` (default: the installed core's)."""
    if schema is None:
        from . import _core

        schema = json.loads(_core.config_schema())
    parts = [HEADER]
    for section in config_sections(schema):
        title = f"`[{section.path}]`" if section.path else "Top level"
        if section.path.endswith("[]"):
            title = f"`[[{section.path.removesuffix('[]')}]]`"
        parts.append(f"\n## {title}\n")
        if section.meaning:
            parts.append(f"\n{section.meaning}\n")
        parts.append(
            "\n| key | type | unit | default | limit | meaning |\n| --- | --- | --- | --- | --- | --- |\n"
        )
        for k in section.keys:
            parts.append(
                f"| `{k.path}` | {k.type} | {k.unit} | {k.default} | {k.limit} | {k.meaning} |\n"
            )
    return "".join(parts)


def undocumented_keys(schema: dict[str, Any]) -> list[str]:
    """Keys whose doc comment is missing: each key's meaning belongs in the core."""
    return [k.path for s in config_sections(schema) for k in s.keys if not k.meaning]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wavecc.docs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("page", choices=["config"], help="the page to generate")
    parser.add_argument(
        "--out", type=Path, default=Path("docs/config.md"), help="where (default: docs/config.md)"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare only; exit 1 when the page is stale"
    )
    args = parser.parse_args(argv)
    text = config_markdown()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run python -m wavecc.docs config", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
