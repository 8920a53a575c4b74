"""Output directories: wavecc never deletes or overwrites what it did not write.

Every directory a command creates (a run's result, a sweep's store, a reproduction)
holds a marker file, `.wavecc-output.json`, that records its kind and the entries
wavecc wrote at its top level. The rules, the same for every command and `Result.save`:

- a target that does not exist, or is an empty directory, is written;
- a target holding an output of the same kind is replaced (a run, only when forced,
  and only if it holds nothing but what the marker records) or resumed (a sweep
  store, a reproduction: they are meant to be re-entered; nothing is deleted);
- anything else (files without the marker, another kind, a file where a directory is
  expected) is refused with `OutputRefused`, before anything is written.

Staging entries (`.<name>.<pid>-<hex>.partial`, and `.<name>.<pid>-<hex>.old` for a
replaced run) that a killed process left are removed by `remove_stale` on the next
start, but only when their process is gone.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .atomic import STAGING, atomic_file

MARKER = ".wavecc-output.json"

_SHOWN = 3  # foreign names a message lists


class OutputRefused(FileExistsError):
    """The target holds something that is not ours to replace; nothing was written."""

    def __init__(self, message: str):
        super().__init__(errno.EEXIST, message)

    def __str__(self) -> str:
        return self.strerror or ""

    def __reduce__(self):  # pickled as it was made (a worker's error reaches the parent)
        return (OutputRefused, (self.strerror,))


@dataclass(frozen=True)
class Kind:
    """A kind of output. `resumable` outputs are re-entered in place, the others are
    replaced whole; `legacy` recognises one written before markers existed."""

    label: str
    resumable: bool
    legacy: Callable[[Path], bool]


def _legacy_run(directory: Path) -> bool:
    """A run from before the marker: its JSON files and nothing but a run's files."""
    names = set(os.listdir(directory))
    run_files = {"summary.json", "config.json", "figure.png"}
    return {"summary.json", "config.json"} <= names and all(
        n in run_files or n.endswith(".parquet") for n in names
    )


def _legacy_store(directory: Path) -> bool:
    # A store from before the marker: its manifest and its runs. Accepted as a store
    # (resumed in place, which deletes nothing), so old results stay usable.
    return (directory / "sweep.json").is_file() and (directory / "runs").is_dir()


RUN = Kind("run", resumable=False, legacy=_legacy_run)
SWEEP_STORE = Kind("sweep store", resumable=True, legacy=_legacy_store)


def reproduction(experiment: str) -> Kind:
    """The kind of `wavecc reproduce EXPERIMENT`'s directory; one written before the
    marker is recognised by its reproduction.json."""

    def legacy(directory: Path) -> bool:
        try:
            manifest = json.loads((directory / "reproduction.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(manifest, dict) and manifest.get("experiment") == experiment

    return Kind(f"reproduction of {experiment}", resumable=True, legacy=legacy)


def check(target: Path, kind: Kind, *, force: bool = False) -> None:
    """Raises `OutputRefused` unless `kind` may be written at `target` (the rules
    above); reads only."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_symlink() and not kind.resumable:
        # Replaced by a rename, which would act on the link, not on where it points.
        raise OutputRefused(f"{target} is a symbolic link; choose an empty or new directory")
    if not target.is_dir():
        raise OutputRefused(
            f"{target} exists and is not a directory; choose an empty or new directory"
        )
    names = _visible(target)
    if not names:
        return
    found = read_marker(target)
    if found is None:
        if not kind.legacy(target):
            raise OutputRefused(
                f"{target} exists and holds files wavecc did not write ({_list(names)}); "
                "choose an empty or new directory"
            )
    elif found["kind"] != kind.label:
        raise OutputRefused(
            f"{target} holds a wavecc {found['kind']}, not a {kind.label}; "
            "choose an empty or new directory"
        )
    if kind.resumable:
        return
    if not force:
        raise OutputRefused(
            f"{target} holds an earlier wavecc {kind.label}; use --force to replace it, "
            "or choose an empty or new directory"
        )
    refuse_foreign(target, target)


def refuse_foreign(directory: Path, shown_as: Path) -> None:
    """Raises `OutputRefused` (naming `shown_as`) if `directory` holds anything its
    marker does not record: then it is not ours to delete, even when forced."""
    foreign = sorted(set(os.listdir(directory)) - recorded(directory))
    if foreign:
        raise OutputRefused(
            f"{shown_as} holds files wavecc did not write ({_list(foreign)}); not replaced "
            "even with --force: move them, or choose an empty or new directory"
        )


def recorded(directory: Path) -> set[str]:
    """What wavecc wrote at the top of `directory`, by its marker (legacy run: its
    files), the marker itself included; empty for a directory that is not ours."""
    found = read_marker(directory)
    if found is not None:
        return {*found["files"], MARKER}
    return set(os.listdir(directory)) if _legacy_run(directory) else set()


def discard(aside: Path, target: Path) -> None:
    """Deletes a replaced run that was renamed aside to `aside`: exactly the entries
    its marker records, then the directory. Refuses (see `refuse_foreign`), deleting
    nothing, if anything else is in it."""
    refuse_foreign(aside, target)
    # The marker goes last: a discard cut short can still be finished by `remove_stale`.
    for name in sorted(recorded(aside) & set(os.listdir(aside)) - {MARKER}):
        _remove(aside / name)
    (aside / MARKER).unlink(missing_ok=True)
    aside.rmdir()


def read_marker(directory: Path) -> dict | None:
    """The marker of `directory` ({"kind", "files", "wavecc"}), None if it has none."""
    try:
        marker = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("kind"), str):
        return None
    files = marker.get("files")
    marker["files"] = [f for f in files if isinstance(f, str)] if isinstance(files, list) else []
    return marker


def mark(directory: Path, kind: Kind, files: Iterable[str]) -> None:
    """Writes (or extends) the marker of `directory`: its kind and `files`, added to
    the ones already recorded."""
    from . import __version__

    old = read_marker(directory)
    known = set(old["files"]) if old is not None and old["kind"] == kind.label else set()
    files = sorted((known | set(files)) - {MARKER})
    marker = {"kind": kind.label, "files": files, "wavecc": __version__}
    with atomic_file(directory / MARKER) as tmp:
        tmp.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")


def open_resumable(target: Path, kind: Kind, files: Iterable[str]) -> None:
    """Checks `target` for a resumable `kind` (see `check`), creates it, removes stale
    staging inside it and marks it with `files`, the entries its writer makes."""
    check(target, kind)
    target.mkdir(parents=True, exist_ok=True)
    remove_stale(target)
    mark(target, kind, files)


def remove_stale(directory: Path) -> None:
    """Removes the staging entries in `directory` that a killed process left: ours by
    their name, and only when their process is gone (another live sweep's staging
    stays). A replaced run left aside (`.old`) is put back if its run is missing,
    deleted as `discard` does otherwise. A pid is checked on this host only."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in names:
        match = STAGING.match(name)
        if match is None or _alive(int(match["pid"])):
            continue
        path = directory / name
        try:
            if match["suffix"] == "partial":
                _remove(path)
            else:
                _settle_aside(path, directory / match["name"])
        except OSError:
            pass  # went meanwhile, or holds a user's file: left as it is


def _settle_aside(aside: Path, target: Path) -> None:
    if not target.exists():
        os.rename(aside, target)
    else:
        discard(aside, target)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _visible(directory: Path) -> list[str]:
    """The entries of `directory` that count: all but staging entries (`STAGING`)."""
    return sorted(n for n in os.listdir(directory) if STAGING.match(n) is None)


def _list(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:_SHOWN])
    return shown + (", ..." if len(names) > _SHOWN else "")
