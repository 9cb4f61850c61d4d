"""Where each feedback page goes in the zip an LMS's bulk upload of feedback files reads:
what every LMS's layout shares (each LMS's own: grader/lms/canvas/feedback.py,
grader/lms/moodle/feedback.py)."""

from dataclasses import dataclass, field

PAGE = "feedback.html"


@dataclass
class FeedbackFiles:
    files: dict[str, str] = field(default_factory=dict)  # name in the zip -> page
    skipped: list[str] = field(default_factory=list)  # "submission id: why"
