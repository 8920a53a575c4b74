"""`python -m wavecc`: the command line, for when the `wavecc` script is not on PATH."""

from .cli import main

raise SystemExit(main())
