"""A run's results for people and for the features: terminal tables, results.json, every
HTML page's frame and templates (html_page, templates/), `check`'s screen, what a regrade
changed, the last run read back, and who gets the speed bonus."""
