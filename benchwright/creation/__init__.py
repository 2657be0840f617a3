"""Creation (benchwright/creation/README.md): creative writing from images, judged pairwise against a baseline and for visual factuality.

- ``loader``  reads the items (TSV / JSONL with images) into plain dicts, recording problems per row.
- ``prompts`` the candidate, describe, focus, pairwise-judge and VFS-judge messages.
- ``metrics`` the leaderboard (Reward, Win Rate, VFS) and the judges' quality.
- ``vfs``     reads the judge's Visual Factuality Score lines.
- ``steps``   turns items into requests (``benchwright.steps.Plan``) and answers into rows.
- ``human``   people's pairwise choices against our judges (benchwright/creation/README.md#human-alignment).
"""

# The version of the method this package computes (its README). Raise it when what a figure means changes
# (a formula, a rule, a parsing choice): every asset whose code version hashes a module of this package
# (benchwright.steps.code_version) becomes stale, so no table mixes results of two methods.
METHOD_VERSION = "1"
