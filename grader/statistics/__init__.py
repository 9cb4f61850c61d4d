"""Repeated time measurements and the rank tests that compare them."""
