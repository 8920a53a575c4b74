"""Imported by the forkserver that forks sweep workers (see `wavecc.workers`), and by
nothing else. It ties the forkserver's life to the process that started it, so that the
forkserver, and through it each worker, is killed the moment that process dies (even by
SIGKILL); then it loads what a worker needs, so that each worker starts with it loaded.
"""

from .workers import die_with_parent

die_with_parent()

# What a run imports on first use: the sweep, and the Parquet writer of its result.
# Imported, not used: a fork copies only the forking thread, so nothing may be
# half-done in another (the import-time threads of numpy and jemalloc are fork-safe).
import pyarrow.pandas_compat  # noqa: E402,F401
import pyarrow.parquet  # noqa: E402,F401

from . import sweeps  # noqa: E402,F401
