"""Settings declared once, by dataclass fields: a field's type and default are its key's,
and its metadata the rest (grader.course.config declares course.toml this way).

- ``declare``: Setting, a field's metadata: the comment shown beside its key, the checks
  its value must pass, its name and unit in the file; and the usual checks.
- ``read``: a TOML table into its dataclass, with one-line errors naming the key.
- ``show``: the defaults as TOML text, each key with its comment.
"""
