"""Static schedules for reverse mode: record the forward and backward passes of a
@static_graph function once, print them as one flat function, replay it behind guards.

Above both modes: it records with the reverse rules and reuses forward schedules' guards."""
