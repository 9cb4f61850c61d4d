"""One program on one case: run, compare, verdict, cause, score, what the student may see."""
