"""CONTRIBUTING.md's module map names every folder of grader/ and every module of the
folders of a pipeline stage, so a new module cannot slip in without its line (its
folder's layer is checked by `make lint`), and the map lists the folders in the order
of the layers contract."""

import importlib
import pkgutil
import re

import pytest

import grader
from grader.course.config import tomllib
from tests.helpers import ROOT

pytestmark = pytest.mark.fast

# Folders whose own line in the map describes their modules (a registry, a package with
# its own docstring per module): the map names the folder, not each module.
DESCRIBED_AS_A_WHOLE = {"lms", "exports", "leaderboard", "store", "sandbox", "languages", "schemas"}


def _map() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    start = text.index("## Module map")
    return text[start : text.index("\n## ", start + 1) if "\n## " in text[start + 1 :] else None]


def test_the_module_map_names_every_module():
    named = set(re.findall(r"`(\w+)/?`", _map()))
    tops = {module.name: module.ispkg for module in pkgutil.iter_modules(grader.__path__)}
    assert set(tops) <= named, f"not in the map: {sorted(set(tops) - named)}"
    for folder, is_package in tops.items():
        if not is_package or folder in DESCRIBED_AS_A_WHOLE:
            continue
        package = importlib.import_module(f"grader.{folder}")
        modules = {module.name for module in pkgutil.iter_modules(package.__path__)}
        assert modules <= named, f"grader/{folder}/: not in the map: {sorted(modules - named)}"


def test_the_map_lists_the_folders_in_the_order_of_the_layers_contract():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["id"] == "layers")["layers"]
    order = [name for layer in layers for name in re.split(r"\s*[|:]\s*", layer)]
    # a folder is placed by its heading or its own line: what precedes the first colon
    lines = _map()[_map().index("\nEntry\n") :].splitlines()
    heads = [line.split(":", 1)[0] for line in lines if not line.startswith(" ")]
    found = [name for head in heads for name in re.findall(r"`(\w+)/`", head) if name in order]
    folders = list(dict.fromkeys(found))
    positions = [order.index(name) for name in folders]
    assert positions == sorted(positions), (
        f"the map's folders out of the contract's order: {folders}"
    )
    packages = {m.name for m in pkgutil.iter_modules(grader.__path__) if m.ispkg}
    assert packages <= set(folders), (
        f"folders without a heading or line: {sorted(packages - set(folders))}"
    )
