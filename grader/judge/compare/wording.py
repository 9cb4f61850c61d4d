"""Words shared by the diagnoses: lists cut short, how often something happens."""

MAX_EXAMPLES = 3  # boards named one by one before "and N more"


def more_of(n: int, one: str, many: str) -> str:
    """'1 more board is ...', '2 more boards are ...': the rest of a list cut short."""
    return f"{n} more {one if n == 1 else many}"


def how_often(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")
