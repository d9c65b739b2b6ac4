"""Forward mode: rules of rules (higher order: level-2 Duals and their rules)."""
