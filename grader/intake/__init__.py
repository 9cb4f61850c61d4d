"""Submissions found in a class folder, and the teams that handed them in."""
