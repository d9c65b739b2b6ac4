"""Registered frules, one module per domain; `fwdad.rules.all` imports every one."""
