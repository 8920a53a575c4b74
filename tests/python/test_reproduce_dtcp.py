"""The D-TCP fairness finding: judged at the paper's buffer, with its spread over the
buffer range beside it (docs/reproduction.md, "The D-TCP paper: fairness")."""

from __future__ import annotations

import pandas as pd
import pytest

from wavecc.reproduce import dtcp


def _tables(rows: list[dict]) -> dict:
    return {"dtcp-fairness": {"fairness": pd.DataFrame(rows)}}


def _row(setting: str, metric: str, ours: float, cca: str = "dtcp") -> dict:
    return {"setting": setting, "metric": metric, "cca": cca, "ours": ours}


def test_buffer_spread_is_the_least_index_and_the_share_above_the_bar():
    keys = {"scenario": "dtcp-fairness", "setting": dtcp.INTRA_BUFFERS_SETTING, "per_byte": 0}
    least, share = dtcp._buffer_spread_cells([0.97, 0.40, 0.95, 0.96], keys)
    assert (least["metric"], least["ours"]) == ("jain_index_min", 0.40)
    # 0.95 itself does not clear the bar ("exceeds 0.95").
    assert (share["metric"], share["unit"], share["ours"]) == ("share_jain_above_0.95", "%", 50.0)


def test_fairness_is_judged_at_the_papers_buffer_whatever_the_row_order():
    rows = [
        _row(dtcp.INTRA_BUFFERS_SETTING, "jain_index", 0.99),
        _row(dtcp.INTRA_BUFFERS_SETTING, "jain_index_min", 0.40),
        _row(dtcp.INTRA_BUFFERS_SETTING, "share_jain_above_0.95", 22.2),
        _row("inter (dtcp, cubic, reno, westwood, tahoe)", "jain_index", 0.99, cca="mixed"),
        _row(dtcp.INTRA, "jain_index", 0.46),
    ]
    holds, detail = dtcp._dtcp_fair(_tables(rows))
    assert not holds
    assert detail == (
        "Jain's index of five D-TCP flows over the last 20 s: 0.46"
        " (buffers 80-120 packets: least 0.40, above 0.95 in 22%)"
    )


@pytest.mark.parametrize("jain, holds", [(0.96, True), (0.95, False)])
def test_tables_without_the_buffer_range_still_give_a_verdict(jain: float, holds: bool):
    """Outputs written before the buffer range existed have only the paper's buffer."""
    verdict, detail = dtcp._dtcp_fair(_tables([_row(dtcp.INTRA, "jain_index", jain)]))
    assert verdict is holds
    assert detail == f"Jain's index of five D-TCP flows over the last 20 s: {jain:.2f}"
