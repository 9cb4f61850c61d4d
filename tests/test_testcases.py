"""The test-case tooling (testcases/) and the shipped corpus it guards.

The commands are driven as subprocesses (`python -m testcases ...`), the way an
instructor runs them; policy detection and the manifest writer are checked
in-process on purpose-built puzzles.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cases.input_properties import properties_of
from grader.cases.manifest import load_cases
from reference import puzzlesolver as ps
from testcases import manifest as manifest_io
from testcases import policy
from testcases.build import reference_result

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "testcases"
SOURCES = DATA / "sources"

# A symmetric tile (G0,R1,G0,R1) and two solutions, no ties.
SYMMETRIC_SOLVABLE = """R0,R1,B1,R1
B1,B1,R0,Y0
Y0,B0,G1,G1
Y0,G0,R0,B1
G0,G0,B0,Y1
G0,R1,G0,R1
G1,R1,G0,R0
Y1,B0,G1,G1
B1,B0,G1,Y1
"""
# Symmetric (and identical) tiles, but no solution: nothing is printed twice.
SYMMETRIC_UNSOLVABLE = "A0,A0,A0,A0\n" * 9
# No symmetric or duplicate tile, yet two boards share their digits: corner
# tile 7 (Y1,R0,R0,R0) fits in two turns.
TIE_WITHOUT_SYMMETRY = """Y0,G0,G1,G0
R1,G1,Y1,Y0
R0,Y1,Y1,R1
G0,G1,Y0,Y1
G1,R0,G0,R1
G1,G1,Y0,G0
Y1,R0,R0,R0
Y0,G1,R1,R0
Y1,R1,G1,Y1
"""
# Both rules: symmetric tiles (R0,B1,R0,B1 and others) and a tie.
SYMMETRIC_AND_TIE = """R0,B1,R1,R1
R0,B0,R1,B1
R0,R1,R1,G0
B1,G1,G1,B1
B1,B0,R0,B1
G1,B0,B0,B0
R0,B1,R0,B0
R0,B1,R0,B1
B1,B0,B0,R0
"""


def run(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "testcases", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def generated(tmp_path: Path, *args) -> bytes:
    out = tmp_path / "generated.txt"
    result = run("generate", *args, "-o", out)
    assert result.returncode == 0, result.stderr
    return out.read_bytes()


def solutions(data: bytes) -> int:
    return ps.count(ps.parse(data.decode("ascii")))


def tiles(data: bytes):
    return ps.parse(data.decode("ascii")).tiles


def one_line_error(result: subprocess.CompletedProcess, status: int = 2) -> str:
    assert result.returncode == status, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# ---------------------------------------------------------------- the shipped corpus


def test_shipped_corpus_verifies():
    """The CI guard: every expected output is what the reference prints now."""
    result = run("verify")
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout


@pytest.mark.slow
def test_shipped_corpus_cross_checks_with_second_engine():
    pytest.importorskip("reference.dlx")
    result = run("verify", "--cross-check")
    assert result.returncode == 0, result.stderr


def test_shipped_corpus_covers_what_the_grading_needs():
    cases = load_cases()
    assert len(cases) >= 25
    assert 5 <= sum(case.public for case in cases) <= 6
    assert 4 <= sum(case.timed for case in cases) <= 6
    tags = {tag for case in cases for tag in case.tags}
    for needed in (
        "sample",
        "no-solution",
        "one-solution",
        "two-solutions",
        "many-solutions",
        "crlf",
        "no-final-newline",
        "letters",
        "duplicates",
        "symmetric",
        "ties",
        "timed",
        "converted",
    ):
        assert needed in tags, needed
    policies = {rule for case in cases for rule in case.policy}
    assert policies == {"symmetric-tiles", "tie-order"}
    by_id = {case.id: case for case in cases}
    assert by_id["sample"].public
    assert b"\r\n" in by_id["crlf"].input.read_bytes()
    assert not by_id["no-final-newline"].input.read_bytes().endswith(b"\n")
    sizes = sum(path.stat().st_size for path in DATA.rglob("*") if path.is_file())
    assert sizes < 15_000_000
    assert all(case.expected.stat().st_size < 4 << 20 for case in cases)


def test_generated_cases_record_their_seed():
    data = json.loads((DATA / "manifest.json").read_text())
    for entry in data["cases"]:
        if "generated" in entry["tags"]:
            assert isinstance(entry.get("seed"), int), entry["id"]
            assert f"--seed {entry['seed']})" in entry["description"], entry["id"]


def test_manifest_is_in_its_stable_form():
    text = (DATA / "manifest.json").read_text()
    assert manifest_io.dumps(json.loads(text)) == text


# ---------------------------------------------------------------- verify on copies


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A small copy of the shipped corpus: three cases, one policy-dependent."""
    keep = ("sample", "lightbulbs", "symmetric-one-solution")
    data = json.loads((DATA / "manifest.json").read_text())
    data["cases"] = [entry for entry in data["cases"] if entry["id"] in keep]
    for entry in data["cases"]:
        for key in ("input", "expected"):
            (tmp_path / entry[key]).parent.mkdir(exist_ok=True)
            shutil.copyfile(DATA / entry[key], tmp_path / entry[key])
    (tmp_path / "manifest.json").write_text(manifest_io.dumps(data))
    return tmp_path / "manifest.json"


def verify(manifest: Path) -> subprocess.CompletedProcess:
    return run("--manifest", manifest, "verify")


def test_verify_passes_on_a_faithful_copy(corpus):
    result = verify(corpus)
    assert result.returncode == 0, result.stderr


def test_verify_names_the_case_and_line_of_an_altered_output(corpus):
    out = corpus.parent / "public" / "sample.out"
    lines = out.read_bytes().splitlines(keepends=True)
    lines[13] = lines[13].replace(b"G0", b"G1")
    out.write_bytes(b"".join(lines))
    result = verify(corpus)
    assert result.returncode == 1
    assert "case 'sample'" in result.stderr
    assert "line 14:" in result.stderr
    assert "lightbulbs" not in result.stderr


def test_verify_notices_a_missing_final_newline(corpus):
    out = corpus.parent / "public" / "lightbulbs.out"
    out.write_bytes(out.read_bytes().rstrip(b"\n"))
    result = verify(corpus)
    assert result.returncode == 1
    assert "case 'lightbulbs'" in result.stderr and "line " in result.stderr


def test_verify_names_a_missing_file(corpus):
    (corpus.parent / "public" / "lightbulbs.out").unlink()
    result = verify(corpus)
    assert result.returncode == 1
    assert "lightbulbs.out" in result.stderr
    assert "Traceback" not in result.stderr


def test_verify_rejects_an_invalid_manifest(corpus):
    data = json.loads(corpus.read_text())
    data["cases"][0]["visibility"] = "secret"
    corpus.write_text(json.dumps(data))
    result = verify(corpus)
    assert result.returncode == 1
    assert "visibility" in result.stderr and "secret" in result.stderr

    corpus.write_text("{not json")
    result = verify(corpus)
    assert result.returncode == 1 and "not valid JSON" in result.stderr


def test_verify_checks_the_policy_flags(corpus):
    data = json.loads(corpus.read_text())
    for entry in data["cases"]:
        entry["policy"] = ["tie-order"] if entry["id"] == "sample" else []
    corpus.write_text(json.dumps(data))
    result = verify(corpus)
    assert result.returncode == 1
    assert "case 'sample': policy is ['tie-order']" in result.stderr
    assert "case 'symmetric-one-solution'" in result.stderr and "symmetric-tiles" in result.stderr


def test_verify_checks_folders_and_stray_files(corpus):
    (corpus.parent / "hidden" / "forgotten.txt").write_text(SYMMETRIC_UNSOLVABLE)
    data = json.loads(corpus.read_text())
    data["cases"][0]["visibility"] = "hidden"  # but its files are in public/
    corpus.write_text(json.dumps(data))
    result = verify(corpus)
    assert result.returncode == 1
    assert "hidden/forgotten.txt: a file no case names" in result.stderr
    assert "case 'sample': public/sample.txt is not in hidden/" in result.stderr


def test_rebuild_reports_and_repairs_drift(corpus):
    out = corpus.parent / "public" / "sample.out"
    out.write_bytes(out.read_bytes().replace(b"2 unique solutions", b"3 unique solutions"))
    data = json.loads(corpus.read_text())
    data["cases"][2]["policy"] = []
    corpus.write_text(json.dumps(data))
    result = run("--manifest", corpus, "rebuild")
    assert result.returncode == 0, result.stderr
    assert "sample: expected output changed: line 12:" in result.stdout
    assert "symmetric-one-solution: policy [] -> ['symmetric-tiles']" in result.stdout
    assert "2 of" not in result.stdout and "1 expected output(s) changed" in result.stdout
    assert verify(corpus).returncode == 0


# ---------------------------------------------------------------- add


def test_add_appends_a_valid_entry(corpus, tmp_path):
    puzzle = tmp_path / "incoming.txt"
    puzzle.write_text(SYMMETRIC_SOLVABLE.replace("\n", "\r\n"))
    result = run(
        "--manifest",
        corpus,
        "add",
        "new-case",
        puzzle,
        "--visibility",
        "hidden",
        "--weight",
        "2",
        "--timed",
        "--tags",
        "symmetric,crlf",
        "--seed",
        "5",
    )
    assert result.returncode == 0, result.stderr
    assert "2 solution(s)" in result.stdout and "symmetric-tiles" in result.stdout
    cases = load_cases(corpus)
    assert [case.id for case in cases][-1] == "new-case"
    entry = json.loads(corpus.read_text())["cases"][-1]
    assert entry == {
        "id": "new-case",
        "input": "hidden/new-case.txt",
        "expected": "hidden/new-case.out",
        "visibility": "hidden",
        "weight": 2,
        "timed": True,
        "policy": ["symmetric-tiles"],
        "tags": ["symmetric", "crlf"],
        "seed": 5,
        "properties": properties_of(puzzle.read_bytes(), cases[-1].expected.read_bytes()).as_json(),
    }
    assert entry["properties"]["line_ends"] == "CRLF" and entry["properties"]["symmetric"]
    assert cases[-1].input.read_bytes() == puzzle.read_bytes()  # copied byte for byte
    expected = reference_result(ps.read_puzzle(str(puzzle))).output
    assert cases[-1].expected.read_bytes() == expected
    assert manifest_io.dumps(json.loads(corpus.read_text())) == corpus.read_text()
    assert verify(corpus).returncode == 0


def test_add_refuses_bad_requests(corpus, tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(SYMMETRIC_SOLVABLE)
    before = corpus.read_text()
    line = one_line_error(
        run("--manifest", corpus, "add", "sample", puzzle, "--visibility", "public")
    )
    assert "'sample' is already in" in line
    line = one_line_error(
        run("--manifest", corpus, "add", "Bad_Id", puzzle, "--visibility", "public")
    )
    assert "case id 'Bad_Id'" in line
    puzzle.write_text(SYMMETRIC_SOLVABLE.replace("Y1,B0", "Y1,Q7"))
    line = one_line_error(
        run("--manifest", corpus, "add", "broken", puzzle, "--visibility", "public")
    )
    assert "p.txt:8: bad edge 'Q7'" in line
    puzzle.write_text("A0,B0,A1,B1\n" * 9)  # 362,880 solutions: 137 MB
    line = one_line_error(
        run("--manifest", corpus, "add", "huge", puzzle, "--visibility", "public")
    )
    assert "362880 solutions" in line and "--max-bytes" in line
    line = one_line_error(run("--manifest", corpus, "add", "x", puzzle, "--visibility", "secret"))
    assert "invalid choice" in line
    assert corpus.read_text() == before
    assert not (corpus.parent / "public" / "huge.txt").exists()


# ---------------------------------------------------------------- generate


@pytest.mark.parametrize(
    "wanted, low, high", [("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("many", 20, 99)]
)
def test_generate_gives_the_requested_count(tmp_path, wanted, low, high):
    data = generated(tmp_path, "--solutions", wanted, "--seed", "3")
    assert low <= solutions(data) <= high
    assert not policy.has_symmetric_tile(tiles(data))
    assert not policy.has_duplicate_tiles(tiles(data))
    assert reference_result(ps.parse(data.decode())).policy == ()
    assert {edge[0] for tile in tiles(data) for edge in tile} <= set("YGRB")


def test_generate_is_reproducible(tmp_path):
    args = ("--solutions", "2", "--symmetric", "--letters", "3")
    first = generated(tmp_path, *args, "--seed", "42")
    assert generated(tmp_path, *args, "--seed", "42") == first
    assert generated(tmp_path, *args, "--seed", "43") != first


def test_generate_symmetric_and_duplicate_tiles(tmp_path):
    data = generated(tmp_path, "--solutions", "2", "--symmetric", "--seed", "1")
    assert solutions(data) == 2 and policy.has_symmetric_tile(tiles(data))
    data = generated(tmp_path, "--solutions", "2", "--duplicates", "--seed", "1")
    assert solutions(data) == 2 and policy.has_duplicate_tiles(tiles(data))
    assert not policy.has_symmetric_tile(tiles(data))


def test_generate_letters_ties_and_line_ends(tmp_path):
    data = generated(
        tmp_path,
        "--solutions",
        "1",
        "--alphabet",
        "WXKL",
        "--seed",
        "2",
        "--crlf",
        "--no-final-newline",
    )
    assert solutions(data) == 1
    assert {edge[0] for tile in tiles(data) for edge in tile} <= set("WXKL")
    assert data.count(b"\r\n") == 8 and not data.endswith(b"\n")
    data = generated(tmp_path, "--solutions", "2-60", "--ties", "require", "--seed", "19")
    assert reference_result(ps.parse(data.decode())).policy == ("tie-order",)


def test_generate_refuses_bad_options_in_one_line(tmp_path):
    assert "'abc'" in one_line_error(run("generate", "--solutions", "abc", "--seed", "1"))
    assert "--letters 0" in one_line_error(
        run("generate", "--solutions", "1", "--letters", "0", "--seed", "1")
    )
    assert "'y1'" in one_line_error(
        run("generate", "--solutions", "1", "--alphabet", "y1", "--seed", "1")
    )
    assert "at least 2" in one_line_error(
        run("generate", "--solutions", "1", "--duplicates", "--seed", "1")
    )
    assert "--seed" in one_line_error(run("generate", "--solutions", "1"))


def test_generate_gives_up_after_its_tries(tmp_path):
    # Two letters never give exactly two solutions.
    line = one_line_error(
        run(
            "generate",
            "--solutions",
            "2",
            "--letters",
            "2",
            "--tries",
            "5",
            "--seed",
            "1",
            "-o",
            tmp_path / "x.txt",
        ),
        status=1,
    )
    assert "no puzzle with exactly 2 solution(s)" in line and "5 tries" in line
    assert not (tmp_path / "x.txt").exists()


# ---------------------------------------------------------------- import-int


@pytest.mark.parametrize("name", ["demopuzzle", "puzzle-0000", "puzzle-0001"])
def test_import_int_converts_with_one_solution(name):
    result = subprocess.run(
        [sys.executable, "-m", "testcases", "import-int", SOURCES / f"{name}.int"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert solutions(result.stdout) == 1
    assert result.stdout == (DATA / "hidden" / f"{name}.txt").read_bytes()  # the shipped case


def test_import_int_keeps_matching_edges_matching(tmp_path):
    source = tmp_path / "p.int"
    source.write_text("\n".join(["5 -5 12 -12"] * 9))
    out = tmp_path / "p.txt"
    assert run("import-int", source, "-o", out, "--alphabet", "QZ").returncode == 0
    assert out.read_text() == "Q1,Q0,Z1,Z0\n" * 9


def test_import_int_refuses_a_flat_edge():
    line = one_line_error(run("import-int", SOURCES / "yuu-asaka.int"))
    assert "yuu-asaka.int:1:" in line and "top edge is 0" in line and "flat" in line


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 2 3\n" + "1 2 3 4\n" * 8, "p.int:1: tile 1 has 3 number(s)"),
        (
            "1 2 3 4\n" * 4 + "1 2 x 4\n" + "1 2 3 4\n" * 4,
            "p.int:5: bottom edge 'x' is not an integer",
        ),
        ("1 2 3 4\n" * 8, "p.int:9: too few tiles: found 8"),
        ("1 2 3 4\n" * 10, "p.int:10: too many tiles"),
        (
            "".join(f"{3 * i + 1} {3 * i + 2} {3 * i + 3} {28 + i}\n" for i in range(9)),
            "p.int:7: 36 different edge images",
        ),
    ],
)
def test_import_int_refuses_bad_files(tmp_path, text, message):
    source = tmp_path / "p.int"
    source.write_text(text)
    assert message in one_line_error(run("import-int", source))


# ---------------------------------------------------------------- policy detection


def flags(text: str):
    return reference_result(ps.parse(text)).policy


def test_policy_detection_on_purpose_built_puzzles():
    assert flags(SYMMETRIC_SOLVABLE) == ("symmetric-tiles",)
    assert flags(SYMMETRIC_UNSOLVABLE) == ()
    assert flags(TIE_WITHOUT_SYMMETRY) == ("tie-order",)
    assert flags(SYMMETRIC_AND_TIE) == ("symmetric-tiles", "tie-order")
    assert flags((DATA / "public" / "sample.txt").read_text()) == ()


def test_symmetry_and_duplicates_of_single_tiles():
    assert policy.is_symmetric(("R0", "B1", "R0", "B1"))  # half turn
    assert policy.is_symmetric(("A0", "A0", "A0", "A0"))  # quarter turn
    assert not policy.is_symmetric(("R0", "B1", "B1", "R0"))
    assert policy.same_tile(("A0", "B1", "C0", "D1"), ("C0", "D1", "A0", "B1"))
    assert not policy.same_tile(("A0", "B1", "C0", "D1"), ("A0", "D1", "C0", "B1"))  # mirrored


# ---------------------------------------------------------------- the command itself


def test_without_the_reference_it_says_it_is_for_instructors(tmp_path):
    code = (
        "import sys; sys.modules['reference'] = None; "
        "from testcases.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    for args in (["verify"], ["generate", "--solutions", "1", "--seed", "1"]):
        result = subprocess.run(
            [sys.executable, "-c", code, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        line = one_line_error(result)
        assert "for instructors" in line and "reference/puzzlesolver.py" in line


def test_console_script_and_module_both_run():
    assert run("--help").returncode == 0
    script = Path(sys.executable).with_name("testcases")
    if not script.exists():
        pytest.skip("package not installed with its console script")
    result = subprocess.run(
        [str(script), "verify", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert result.returncode == 0 and "--cross-check" in result.stdout
