"""Performance benchmarks: scripts that print timings and ratios against targets, not tests."""
