"""All-or-nothing output directories: a run never half-writes a result."""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_directory(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields an empty directory to write into; when the block ends normally it takes
    the place of `target` (replacing whatever directory was there), and when the block
    raises it is deleted and `target` is left as it was.

    The directory is a hidden sibling of `target` so that the final rename stays on one
    file system, where it is atomic. It is made with `mkdir` (not `mkdtemp`, which
    would make it private to the owner) so the result gets the usual permissions.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.partial"
    staging.mkdir()
    try:
        yield staging
        _replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _replace(new: Path, target: Path) -> None:
    """Moves `new` to `target`. POSIX rename replaces only an empty directory, so an
    existing `target` directory is first renamed aside (and put back if the second rename
    fails), then deleted."""
    if not target.is_dir():
        os.rename(new, target)
        return
    old = new.with_name(new.name.removesuffix(".partial") + ".old")
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    shutil.rmtree(old)
