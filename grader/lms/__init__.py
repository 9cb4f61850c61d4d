"""The LMS round trip: import a bulk download (canvas, moodle, gradescope,
github-classroom), export scores in the LMS's own import format, and make what an LMS
runs itself. A folder per LMS (canvas/, moodle/, gradescope/, github_classroom/), each
declared in systems.py; unpack.py reads archives safely; roster.py reads the LMS's
gradebook or worksheet, worksheet.py what Moodle's grading worksheet says of each
participant, times.py the submission times Canvas's API knows. The small file left beside
each student's files is grader/course/submission_meta.py: the late policy reads it too."""
