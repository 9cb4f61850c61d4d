"""Exports for the tools instructors and students already use.

gradescope.py     an autograder zip for Gradescope (setup.sh, run_autograder, the grader,
                  every case) and the results.json it writes
autograder.py     what that zip's run_autograder runs inside Gradescope's container
gradebook_csv.py  one CSV row per submission, for people and spreadsheets
feedback_html.py  one self-contained HTML page per submission, and an index
textdiff.py       expected vs got, line by line, for those pages
student_kit.py    a zip students unpack and self-check with: public cases only
github_classroom.py  a GitHub Classroom template: its autograding workflow, a step per
                  public case, and the kit those steps run
common.py         writing zips and files, verdict and language names

The `export` command itself is grader/commands/export.py.
"""
