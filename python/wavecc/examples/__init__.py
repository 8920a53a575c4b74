"""Examples of the Python interfaces: algorithms written in Python
(`wavecc.examples.newreno`) and learning with the Gymnasium environment
(`wavecc.examples.learn_cwnd`)."""
