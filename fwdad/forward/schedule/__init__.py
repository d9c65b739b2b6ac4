"""Forward mode: static schedules (record the primitive calls once, replay them)."""
