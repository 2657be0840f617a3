"""URS (METHODS §3): real user questions by intent, scored 1–10 by a judge against an 8-point reference answer.

- ``loader``  reads the questions, satisfaction ratings and human pairwise files.
- ``method``  intents and criteria, the candidate and judge prompts, the judge's score-dict reader,
  the leaderboard, cross-validation grid, rating bias and alignment with people.
- ``steps``   turns questions into requests (``benchwright.steps.Plan``) and answers into rows.
"""
