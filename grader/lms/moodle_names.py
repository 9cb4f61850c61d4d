"""A name as Moodle writes it in a path (a download's folders, a feedback zip's)."""

import re

# clean_filename (clean_param PARAM_FILE): what Moodle strips from a name in a path.
_UNCLEAN = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")


def clean_name(name: str) -> str:
    """A name as Moodle writes it in a download's path: its `_` turned into spaces,
    then clean_filename."""
    return _UNCLEAN.sub("", name.replace("_", " "))
