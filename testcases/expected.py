"""Expected verdicts of the example submissions: `expected.toml` in an example's
folder says what it must get, on every case or case by case.

    verdict = "AC"          # every case not listed under [cases]
    [cases]
    lightbulbs = "RTE"

The file is checked strictly (expected.schema.json, then against the manifest's
case ids): a typo in it is an error naming the file, never a silent pass.
"""

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from grader.schemas import problem
from testcases.errors import UsageError

FILE_NAME = "expected.toml"
_SCHEMA = Path(__file__).resolve().parent / "expected.schema.json"


@dataclass(frozen=True)
class Expected:
    """What one example must get: `default` on every case not in `cases`."""

    path: Path
    default: str | None
    cases: Mapping[str, str] = field(default_factory=dict)

    def verdict(self, case_id: str) -> str | None:
        return self.cases.get(case_id, self.default)

    def all_pass(self, case_ids: Sequence[str]) -> bool:
        return bool(case_ids) and all(self.verdict(cid) == "AC" for cid in case_ids)


@cache
def _schema() -> dict[str, Any]:
    # Checked against the metaschema by tests/test_schema_subset.py, not on every load.
    return cast(dict[str, Any], json.loads(_SCHEMA.read_text(encoding="utf-8")))


def load_expected(folder: Path, case_ids: Sequence[str]) -> Expected | None:
    """The folder's declaration, or None when it has none. UsageError (one line
    naming the file) when the file is malformed, names an unknown case, or leaves a
    case without a verdict."""
    path = Path(folder) / FILE_NAME
    if not path.exists():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML: {error}") from None
    wrong = problem(data, _schema())
    if wrong is not None:
        raise UsageError(f"{path}: {wrong}")
    expected = Expected(path, data.get("verdict"), dict(data.get("cases", {})))
    unknown = sorted(set(expected.cases) - set(case_ids))
    if unknown:
        raise UsageError(f"{path}: [cases] names {unknown[0]!r}, which is no case in the manifest")
    if expected.default is None:
        missing = [cid for cid in case_ids if cid not in expected.cases]
        if missing:
            raise UsageError(
                f"{path}: no verdict for case {missing[0]!r}: list it under "
                "[cases] or give a default `verdict`"
            )
    return expected


def differences(
    example: str, expected: Expected, actual: Mapping[str, str], diagnoses: Mapping[str, str]
) -> list[str]:
    """One line per case whose verdict is not the declared one."""
    problems = []
    for case_id, got in actual.items():
        wanted = expected.verdict(case_id)
        if got == wanted:
            continue
        why = (diagnoses.get(case_id) or "").strip().splitlines()[:1]
        detail = f" ({why[0]})" if why else ""
        if got == "IE":  # not the example's verdict: the grader failed, and says why
            detail += "; IE is the grader's own failure: run again"
        problems.append(
            f"example {example!r}, case {case_id!r}: expected {wanted}, got {got}{detail}"
        )
    return problems


def render(actual: dict[str, str]) -> str:
    """An expected.toml declaring `actual`: the commonest verdict as the default,
    the other cases listed (in manifest order)."""
    default = Counter(actual.values()).most_common(1)[0][0]
    lines = [
        "# Expected verdicts (testcases verify-examples checks them).",
        f'verdict = "{default}"  # on every case not listed below',
    ]
    others = [(cid, v) for cid, v in actual.items() if v != default]
    if others:
        lines += ["", "[cases]"] + [f'{cid} = "{v}"' for cid, v in others]
    return "\n".join(lines) + "\n"
