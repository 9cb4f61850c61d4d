"""The LMS round trip: import a bulk download (canvas, moodle, gradescope), export
scores in the LMS's own import format. One module per format; unpack.py reads
archives safely; metadata.py is the small file left beside each student's files."""
