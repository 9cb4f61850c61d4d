"""CONTRIBUTING.md's module map names every module of grader/ and grader/commands/, so a
new module cannot slip in without its line (its layer is checked by `make lint`)."""

import pkgutil
import re

import pytest

import grader
import grader.commands
from tests.helpers import ROOT

pytestmark = pytest.mark.fast


def test_the_module_map_names_every_module():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(\w+)/?`", text[text.index("## Module map") :]))
    for package in (grader, grader.commands):
        modules = {module.name for module in pkgutil.iter_modules(package.__path__)}
        assert modules <= named, f"not in the map: {sorted(modules - named)}"
