"""Real class folders (issue 11): identical submissions, extra files, odd names,
error output, entries that are not submissions. Real compilers, the real sandbox."""

import shutil

from grader.cases import load_cases
from grader.config import load_config
from grader.grading import execute, plan
from grader.sandbox import make_sandbox
from grader.score import report
from grader.store import Store
from grader.submissions import discover
from tests.helpers import ROOT, SAMPLE, make_cases

EXAMPLES = {"c": "ada-c", "cpp": "grace-cpp", "java": "james-java", "python": "guido-py"}


def grade(tmp_path, klass, manifest, jobs=2, force=False, config=None):
    config = config or load_config()
    cases = load_cases(manifest)
    subs = discover(klass, config)
    with Store(tmp_path / "results.db") as store:
        work = plan(subs, cases, store, force=force)
        execute(work, store, make_sandbox("auto"), config, tmp_path / "builds", jobs=jobs,
                force=force)
        return {s.id: report(store, store.submission(s.id), cases) for s in subs}


def test_identical_submissions_share_one_build_under_parallel_jobs(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    for language, example in EXAMPLES.items():
        for copy in range(4):
            shutil.copytree(ROOT / "submissions" / example, klass / f"{language}-{copy}")
    for force in (False, True):
        reports = grade(tmp_path, klass, manifest, jobs=2, force=force)
        verdicts = {sid: [o.verdict for o in r.outcomes] for sid, r in reports.items()}
        assert all(v == ["AC"] for v in verdicts.values()), verdicts
    # one build folder per content, no temporary folder left behind
    builds = sorted(p.name for p in (tmp_path / "builds").iterdir() if not p.name.endswith(".lock"))
    assert len(builds) == 4 and not any(name.startswith(".tmp") for name in builds), builds
