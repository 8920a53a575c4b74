"""One benchmark case in a process of its own: reads a config (JSON) on stdin, runs it
and writes the core's output (JSON) to stdout.

It imports nothing but the core (and, through `wavecc/__init__`, nothing heavier), so
the peak memory it reports on stderr (`VmHWM: N kB`) is the simulator's plus a bare
interpreter's, not pandas'. The output is passed through as text, not parsed, for the
same reason.
"""

import sys

from wavecc import _core

if __name__ == "__main__":
    sys.stdout.write(_core.run(sys.stdin.read()))
    sys.stdout.flush()
    # Its own peak resident memory, for the parent (`wavecc.bench.measure`): Linux
    # counts a new program's pages from its start, where rusage keeps the peak of the
    # process it was spawned from, the parent with everything it has loaded.
    with open("/proc/self/status") as status:
        sys.stderr.write(next(line for line in status if line.startswith("VmHWM:")))
