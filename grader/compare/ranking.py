"""What a diagnosis is made of: issues, each with the rank that orders it."""

from typing import NamedTuple


class Issue(NamedTuple):
    rank: int  # smaller is more important
    text: str
    rule: str | None = None  # the policy rule that decides this difference


# The rank of white-space notes: after every answer issue, and not below 90, where
# verdict._assemble stops looking for causes other than a policy rule.
WHITE_SPACE = 90
