"""Registered frules, one module per domain; `fwdad.rules.all` imports every one (but
SciPy's, which `fwdad.rules.scipy_support` loads when first needed)."""
