"""One benchmark case in a process of its own: reads a config (JSON) on stdin, runs it
and writes the core's output (JSON) to stdout.

It imports nothing but the core (and, through `wavecc/__init__`, nothing heavier), so
the peak memory its parent measures with `os.wait4` is the simulator's plus a bare
interpreter's, not pandas'. The output is passed through as text, not parsed, for the
same reason.
"""

import sys

from wavecc import _core

if __name__ == "__main__":
    sys.stdout.write(_core.run(sys.stdin.read()))
