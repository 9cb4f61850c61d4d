"""The test cases: the manifest, the pool, what a puzzle is like, and the grader's own puzzle model."""
