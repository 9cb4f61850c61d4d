"""Exports no LMS owns, for the tools instructors and students already use (what an LMS
runs itself, Gradescope's autograder and GitHub Classroom's template, is in grader/lms/).

gradebook_csv.py  one CSV row per submission, for people and spreadsheets
feedback_html.py  one self-contained HTML page per submission, and an index
textdiff.py       expected vs got, line by line, for those pages
student_kit.py    a zip students unpack and self-check with: public cases only
common.py         writing zips and files, verdict and language names

The `export` command itself is grader/commands/export.py.
"""
