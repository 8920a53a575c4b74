"""Imported by the forkserver that forks sweep workers (see `wavecc.workers`), and by
nothing else. It ties the forkserver's life to the process that started it, so that the
forkserver, and through it each worker, is killed the moment that process dies (even by
SIGKILL); then it loads what a worker needs, so that each worker starts with it loaded.
"""

from .workers import die_with_parent

die_with_parent()

from . import sweep  # noqa: E402,F401  (preloaded for the workers)
