"""Jacobian sparsity detection: which inputs each output depends on (`jacobian_sparsity`).

The derived forward rule runs as usual, but each tangent holds dependency sets (`deps`)
instead of numbers, and primitives run their sparsity rules (`rules`, chosen per
primitive by `table`) through a call hook of the registry (`session`). Global mode runs
on inputs whose values are unknown (`unknown`)."""
