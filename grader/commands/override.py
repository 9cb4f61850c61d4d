"""`grader override ID`: the instructor's own decision on a submission, recorded in the
results database with its time and reason, outliving every regrade.

    grader override ID --case CASE --verdict VERDICT --reason TEXT   a case's verdict
    grader override ID --case CASE --points P --reason TEXT          a case's points
    grader override ID --points P --reason TEXT                      points added to the
                                                                     score (negative: docked)
    grader override ID [--case CASE] --confirm                       keep it for the content
                                                                     graded now
    grader override ID [--case CASE] --clear                         remove the decision

The score, the leaderboard's eligibility, every export and the feedback pages take it in
at once; results.json and `grader diff` at the next `grader grade` (which grades nothing
again for it). A decision is bound to the content it was made on: when the student hands
in again (or the case changes) it stays visible, flagged, but counts toward neither the
score, the leaderboard nor the bonus until you --confirm it for the new content, make a
new one, or --clear it. When only the judge's verdict changed, it still applies and is
named as needing review.
"""

import argparse
import dataclasses
import math
import time

from grader.cases.manifest import default_manifest, load_cases
from grader.commands.options import add_results_option, graded_results
from grader.core.errors import UsageError
from grader.core.model import Verdict
from grader.core.text import safe_name
from grader.course.config import load_config
from grader.judge.score import format_score, report, shown_points, shown_score
from grader.store import OverrideRow, Store

VERDICTS = tuple(v.value for v in Verdict if v != Verdict.IE)  # IE is the grader's, never decided


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    command = sub.add_parser(
        "override",
        help="record your own decision on a submission or a case (kept across regrades)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("id", help="the submission")
    command.add_argument("--case", help="the case decided on (without it: the whole submission)")
    what = command.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--verdict", choices=VERDICTS, help="the case's verdict instead of the judge's"
    )
    what.add_argument(
        "--points",
        type=float,
        help="with --case: the case's points (0 to its weight); without: points added to "
        "the score (negative: docked)",
    )
    what.add_argument(
        "--confirm",
        action="store_true",
        help="keep the decision for the content graded now (one made on other content "
        "counts for nothing until confirmed)",
    )
    what.add_argument("--clear", action="store_true", help="remove the decision")
    command.add_argument("--reason", help="why (shown wherever the decision is)")
    add_results_option(command)
    command.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = graded_results(args.results)
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest())
    reason = " ".join((args.reason or "").split())
    if (args.clear or args.confirm) and reason:
        raise UsageError("--clear and --confirm take no --reason: they remove or keep the decision")
    if not (args.clear or args.confirm) and not reason:
        raise UsageError("--reason is needed: say why (it is shown wherever the decision is)")
    case = None
    if args.case is not None:
        case = next((c for c in cases if c.id == args.case), None)
        if case is None:
            known = ", ".join(c.id for c in cases)
            raise UsageError(f"no case {args.case!r} in the manifest (known: {known})")
    if args.verdict is not None and case is None:
        raise UsageError("--verdict needs --case: a verdict is a case's")
    if args.points is not None and not math.isfinite(args.points):
        raise UsageError(f"--points must be a number, not {args.points}")
    if args.points is not None and case is not None and not 0 <= args.points <= case.weight:
        raise UsageError(
            f"--points for case {case.id} must be between 0 and its weight "
            f"{format_score(case.weight)}, not {format_score(args.points)}"
        )
    with Store(path) as store:
        row = store.submission(safe_name(args.id))
        if row is None:
            known = ", ".join(s.id for s in store.submissions()) or "none"
            raise UsageError(f"no submission {safe_name(args.id)!r} in {path} (known: {known})")
        before = report(store, row, cases, config.policy_cases)
        case_id = case.id if case is not None else ""
        where = f"{row.id}" + (f" case {case_id}" if case_id else "")
        judged = None
        if case is not None:
            run_row = store.runs(row.id, row.content_hash).get((case.id, case.version))
            judged = run_row.verdict if run_row is not None else None
        bound = (row.content_hash, case.version if case is not None else "", judged)
        if args.clear:
            if store.clear_override(row.id, case_id) is None:
                raise UsageError(f"no decision on {where} to clear")
            done = "cleared"
        elif args.confirm:
            old = next((o for o in store.overrides(row.id) if o.case_id == case_id), None)
            if old is None:
                raise UsageError(f"no decision on {where} to confirm")
            store.record_override(
                dataclasses.replace(
                    old,
                    recorded_at=time.time(),
                    content_hash=bound[0],
                    case_version=bound[1],
                    judged=bound[2],
                )
            )
            done = "confirmed for the content graded now"
        else:
            decided = OverrideRow(
                row.id, case_id, args.verdict, args.points, reason, time.time(), *bound
            )
            replaced = store.record_override(decided)
            done = "recorded" + (" (it replaces the decision before it)" if replaced else "")
        after = report(store, row, cases, config.policy_cases)
    for decision in after.decisions:
        if decision.override.case_id == case_id:
            print(f"decision on {where}: {decision.describe(case.weight if case else None)}")
    print(
        f"{where}: {done}; score {shown_points(before.settled_score)} -> {shown_score(after)} (exports take it in now; results.json and "
        "`grader diff` at the next `grader grade`, which grades nothing again for it)"
    )
    return 0
