"""What the documentation site (mkdocs.yml, docs/) is built with: the reference pages
generated from the code (reference.py, added by hooks.py while MkDocs builds) and the
pictures made from the example class (pictures.py, `make docs`). Nothing here is
written twice: every command, option, course.toml key and results.json field is read
from where the grader declares it."""
