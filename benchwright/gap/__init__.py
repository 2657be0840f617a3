"""GAP (METHODS §4): a game where players try to make a vision model answer wrongly.

- ``images``  the game's pictures (generated sample set or a folder) and their true answers.
- ``method``  game logs (parse, natural key), player reliability from planted mistakes, the interaction
  model, VQA export, the GPT-score prompt and its reader, engagement.
- ``game``    one player's session under the per-picture timer (used by the web app).
- ``steps``   requests (``benchwright.steps.Plan``) and rows for the game model's answers and their scoring.
"""
