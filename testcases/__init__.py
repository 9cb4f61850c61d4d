"""Instructor tooling for the test cases: generate puzzles, convert .int puzzles,
add cases, rebuild and verify expected outputs against the reference solver.

The data lives next to this code: manifest.json, public/ and hidden/.
Commands that need a solver import `reference` when they run; the student kit
has no `reference`, and those commands say so.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "manifest.json"
DEFAULT_EXAMPLES = HERE.parent / "submissions"  # the example class, with expected.toml files
