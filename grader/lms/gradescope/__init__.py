"""Gradescope: its download read (`read`), and the autograder it runs on every submission: the zip (`autograder`), what runs inside its container (`runner`), the leaderboard value (`timed`)."""
