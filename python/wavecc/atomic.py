"""All-or-nothing outputs: a run never half-writes a result, a file is never half
written. Errors name the user's path, never the hidden staging entry."""

from __future__ import annotations

import errno
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# Hidden staging names: `.<name>.<pid>-<8 hex digits>.partial` (being written) or
# `.old` (a replaced directory renamed aside); see `staging_path`.
STAGING = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{8}\.(?P<suffix>partial|old)$")


def staging_path(target: Path, suffix: str = "partial") -> Path:
    """A hidden sibling of `target` owned by this process: `.<name>.<pid>-<hex>.<suffix>`."""
    return target.with_name(f".{target.name}.{os.getpid()}-{os.urandom(4).hex()}.{suffix}")


def _remove_tree(aside: Path, target: Path) -> None:
    shutil.rmtree(aside)


@contextmanager
def atomic_directory(
    target: str | os.PathLike[str], discard: Callable[[Path, Path], None] = _remove_tree
) -> Iterator[Path]:
    """Yields an empty directory to write into; when the block ends normally it takes
    the place of `target`, and when the block raises it is deleted and `target` is
    left as it was.

    A directory already at `target` is renamed aside and, once the new one is in
    place, handed to `discard(aside, target)`, which deletes it, or refuses by raising
    before it deletes anything (then it is put back as it was). `outdir.discard`
    deletes only what wavecc wrote; the default deletes it whole.

    The new directory is a hidden sibling of `target` (`staging_path`) so that the
    final rename stays on one file system, where it is atomic. It is made with `mkdir`
    (not `mkdtemp`, which would make it private to the owner) so the result gets the
    usual permissions.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = staging_path(target)
    with _blaming(staging, target):
        staging.mkdir()
    try:
        with _blaming(staging, target):
            yield staging
            _replace(staging, target, discard)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


@contextmanager
def atomic_file(target: Path) -> Iterator[Path]:
    """Yields a hidden sibling path to write `target`'s content to; renamed over
    `target` when the block ends normally, deleted when it raises."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging_path(target)
    try:
        with _blaming(tmp, target):
            yield tmp
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _replace(new: Path, target: Path, discard: Callable[[Path, Path], None]) -> None:
    """Moves `new` to `target`. POSIX rename replaces only an empty directory, so an
    existing `target` directory is first renamed aside, and discarded once `new` is in
    place; if either step fails the old directory is put back."""
    if not target.is_dir():
        os.rename(new, target)
        return
    aside = staging_path(target, "old")
    os.rename(target, aside)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(aside, target)
        raise
    try:
        discard(aside, target)
    except BaseException:
        os.rename(target, new)
        os.rename(aside, target)
        raise


@contextmanager
def _blaming(staging: Path, target: Path) -> Iterator[None]:
    """An OSError about the hidden staging entry (or a file in it) names the user's
    `target` instead: `out/x: Permission denied`, not `out/.x.123-ab12cd34.partial`."""
    try:
        yield
    except OSError as e:
        for attribute in ("filename", "filename2"):
            name = getattr(e, attribute)
            if isinstance(name, str) and name.startswith(str(staging)):
                setattr(e, attribute, str(target) + name[len(str(staging)) :])
        raise
