"""Forward mode: the optimizer of derived rules (activity, inlining, unboxing, cleanup),
working on the Lines the transform hands it."""
