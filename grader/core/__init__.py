"""What everything rests on: the model, errors, verdicts, the rules' version, settings, text and files."""
