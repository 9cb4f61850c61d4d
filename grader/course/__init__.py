"""The course: its configuration (course.toml), its time zone, its people and their due dates."""
