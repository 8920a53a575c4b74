"""NewReno written in Python with the public hooks only, as the built-in `newreno`
(Linux `tcp_reno`) does it: slow start adds one segment per acknowledged segment up to
ssthresh, the acknowledged segments left over grow the window by `acked / cwnd`
(congestion avoidance, one segment per window), and a loss halves the window with a
floor of two segments. The socket runs the recovery itself.

    wavecc run dumbbell-1g --cca wavecc.examples.newreno:NewReno

matches `--cca newreno` (docs/python-algorithms.md gives the numbers).
"""

from __future__ import annotations

import math

from wavecc.algorithms import CongestionControl, Socket


class NewReno(CongestionControl):
    #: RFC 5681's smallest slow-start threshold after a loss, segments.
    MIN_SSTHRESH = 2.0

    def ssthresh(self, sock: Socket) -> float:
        return max(sock.cwnd / 2.0, self.MIN_SSTHRESH)

    def cong_avoid(self, sock: Socket, acked: int) -> None:
        if sock.cwnd < sock.ssthresh:
            acked = self._slow_start(sock, acked)
        if acked > 0:
            sock.cwnd += acked / max(sock.cwnd, 1.0)

    @staticmethod
    def _slow_start(sock: Socket, acked: int) -> int:
        """Grows cwnd by one segment per acknowledged segment, not beyond ssthresh;
        returns the acknowledged segments left for congestion avoidance (Linux
        `tcp_slow_start`)."""
        cwnd = min(sock.cwnd + acked, max(sock.ssthresh, sock.cwnd))
        used = max(cwnd - sock.cwnd, 0.0)
        sock.cwnd = cwnd
        return acked - min(math.floor(used + 0.5), acked)
