"""Examples of the Python interfaces: an algorithm written in Python
(`wavecc.examples.newreno`)."""
