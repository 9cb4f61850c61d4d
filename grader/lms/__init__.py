"""The LMS round trip: import a bulk download (canvas, moodle, gradescope), export
scores in the LMS's own import format. One module per format; unpack.py reads
archives safely. The small file left beside each student's files is
grader/submission_meta.py: the late policy reads it too."""
