"""One module per `grader` command: its options (`add_parser`) and its body (`run`).

grader/cli.py assembles the parser from them. A command may use every feature and
layer below it, but not another command: what several share is in console.py (what
they print on stderr) and options.py (the options more than one command takes).
"""
