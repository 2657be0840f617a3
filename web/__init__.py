"""The web front end: the GAP game and the pairwise annotation page (see web/app.py)."""
