"""Forward mode: the code transform (normalized code -> Dual code, and its Lines)."""
