"""A class: the grading session, the cluster, the proofs and probes run after it, timed runs."""
