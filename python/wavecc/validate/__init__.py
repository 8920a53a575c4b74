"""Validation against ns-3: the grid of cases, the committed references, the comparison.

ns-3 runs one case in minutes (about 0.15 simulated seconds per wall second at 1 Gb/s),
so its outputs are made once, with `wavecc validate ns3 --regenerate`, and committed
under `validation/ns3/reference/<case>/` (timeseries.csv, summary.json, command.txt);
runs with further ns-3 seeds (`--ns3-seeds N`) go to
`validation/ns3/extra-seeds/<case>/<seed>/`, and ns-3's side of a comparison is the mean
over every seed committed for the case.
Without `--regenerate`, `wavecc validate ns3` runs wavecc on the same cases and compares
its average goodput and mean RTT with the references, writing comparison.csv and one
overlay figure per case.

The ns-3 side is `validation/ns3/dumbbell.cc`, built by `validation/ns3/build.sh` against
Debian's ns-3 3.37 packages (`apt-get install libns3-dev`); both live in the repository,
not in the installed package, so they are looked up from the working directory.

The package's modules, one job each: `cases` (the grid), `scenario` (a case as a wavecc
scenario), `references` (the committed ns-3 outputs), `ns3` (building and running
ns-3 to make them), `stats` (a comparison row and its statistics), `tables` (the
Markdown table), `plot` (the figures) and `comparison` (running it all). The names
below are the package's API.
"""

from __future__ import annotations

from .cases import (
    ACCESS_RATE_BPS,
    ALGORITHMS,
    CASES,
    INTERVAL_S,
    SEED,
    STACKS,
    TCP,
    Case,
    match_names,
    select,
    stacks,
)
from .comparison import COMPARISON, Comparison, compare
from .ns3 import (
    INSTALL_HINT,
    NS3_MODULES,
    Ns3Failed,
    Ns3Missing,
    Regenerated,
    build,
    check_ns3,
    find_in_repository,
    find_ns3_dir,
    ns3_arguments,
    ns3_runs,
    regenerate,
)
from .plot import overlay
from .references import (
    REFERENCE_FILES,
    Reference,
    StaleReference,
    has_current_reference,
    load_reference,
    load_references,
    reference_dir,
)
from .scenario import wavecc_config
from .stats import COLUMNS, SIGNIFICANCE, TOLERANCE, Row, number, rel_diff, welch_p
from .tables import markdown, md_cell, pct_cell

__all__ = [
    "ACCESS_RATE_BPS",
    "ALGORITHMS",
    "CASES",
    "COLUMNS",
    "COMPARISON",
    "INSTALL_HINT",
    "INTERVAL_S",
    "NS3_MODULES",
    "REFERENCE_FILES",
    "SEED",
    "SIGNIFICANCE",
    "STACKS",
    "TCP",
    "TOLERANCE",
    "Case",
    "Comparison",
    "Ns3Failed",
    "Ns3Missing",
    "Reference",
    "Regenerated",
    "Row",
    "StaleReference",
    "build",
    "check_ns3",
    "compare",
    "find_in_repository",
    "find_ns3_dir",
    "has_current_reference",
    "load_reference",
    "load_references",
    "markdown",
    "match_names",
    "md_cell",
    "ns3_arguments",
    "ns3_runs",
    "number",
    "overlay",
    "pct_cell",
    "reference_dir",
    "regenerate",
    "rel_diff",
    "select",
    "stacks",
    "wavecc_config",
    "welch_p",
]
