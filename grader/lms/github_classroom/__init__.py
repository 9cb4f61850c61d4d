"""GitHub Classroom: its classroom's repositories read (`read`), and the template repository whose workflow grades every push (`template`)."""
