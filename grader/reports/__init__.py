"""Reports made from the results store: terminal tables, JSON, pages, exports."""
