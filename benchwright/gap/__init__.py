"""GAP (METHODS §4): a game where players try to make a vision model answer wrongly.

- ``images``       the game's pictures (generated sample set or a folder) and their true answers.
- ``logs``         the game-log format, its natural key and the game's rules.
- ``reliability``  player reliability from planted mistakes, question selection, points, rotation.
- ``interaction``  the player interaction model.
- ``vqa``          labels, items, the split and the GAP-VQA export.
- ``answering``    the game model's prompt; ``scoring`` the judge's score prompt, its reader and the summary.
- ``engagement``   engagement analytics; ``suites`` the schema and range suites.
- ``game``         one player's session under the per-picture timer (used by the web app).
- ``steps``        requests (``benchwright.steps.Plan``) and rows for the game model's answers and their scoring.
"""

# The method's version (the benchmark's declaration carries it; bumped when the method itself changes).
METHOD_VERSION = "1"
