"""Reports over stored results: CSV files (and, later, HTML)."""
