"""What forward mode, reverse mode and the rules share, below all three of them.

Rules, forward/ and reverse/ import from here; nothing here imports from them (forward
mode installs its entry points in `entry_points` when forward/dispatch.py is imported).
"""
