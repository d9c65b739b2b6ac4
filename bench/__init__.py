"""Benchmarks of fwdad; each script reports ratios measured in one run."""
