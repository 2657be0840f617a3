"""GAP (benchwright/gap/README.md): a game where players try to make a vision model answer wrongly.

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

# The version of the method this package computes (its README). Raise it when what a figure means changes
# (a formula, a rule, a parsing choice): every asset whose code version hashes a module of this package
# (benchwright.steps.code_version) becomes stale, so no table mixes results of two methods.
METHOD_VERSION = "1"
