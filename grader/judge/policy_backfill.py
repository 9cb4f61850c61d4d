"""The policy decision of runs stored before it was a column (store schema 1): decided
once, when a report first reads such a run, and stored.

Decided again from what the store kept, like a run judged now (grader.judge.compare.policy):
the run's output and the case's expected output. Schema 1 kept a failing run's
output only up to 1 MiB; for a longer output the decision of the grader that judged it
stands, the sentence it wrote into the diagnosis being the only record of that
decision. (Such a run was judged under unknown rules: no grade counts it until `grade`
judges it again or runs it again, grader.grading.rejudge.)
"""

import dataclasses

from grader.cases.manifest import Case
from grader.core import verdicts
from grader.judge.compare import POLICY_ONLY
from grader.judge.compare.policy import decided_by_policy
from grader.store import RunRow, Store, StoreError, SubmissionRow


def backfilled(store: Store, submission: SubmissionRow, case: Case, run: RunRow) -> RunRow:
    """`run` (of this submission's current content and this case) with its decision."""
    decision = _decision(store, submission, case, run)
    try:
        store.record_policy_only(
            submission.id, submission.content_hash, case.id, case.version, decision
        )
    except StoreError:  # a store another process is writing: decided again next time
        pass
    return dataclasses.replace(run, policy_only=decision)


def _decision(store: Store, submission: SubmissionRow, case: Case, run: RunRow) -> bool:
    if run.verdict not in verdicts.WRONG_OUTPUT:
        return False  # only an output compared with the expected one fails on a rule
    kept = store.output(submission.id, submission.content_hash, case.id, case.version) or b""
    if len(kept) == run.output_size:
        return decided_by_policy(case.expected.read_bytes(), kept, case.policy)
    return POLICY_ONLY in run.diagnosis
