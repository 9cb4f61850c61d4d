"""Solving engines: the canonical reference solver (puzzlesolver.py, a single
self-contained file that is itself a valid submission) and cross-checkers."""
