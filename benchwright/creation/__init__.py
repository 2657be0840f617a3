"""Creation (METHODS §1): creative writing from images, judged pairwise against a baseline and for visual factuality.

- ``loader``  reads the items (TSV / JSONL with images) into plain dicts, recording problems per row.
- ``prompts`` the candidate, describe, focus, pairwise-judge and VFS-judge messages.
- ``metrics`` the leaderboard (Reward, Win Rate, VFS) and the judges' quality.
- ``vfs``     reads the judge's Visual Factuality Score lines.
- ``steps``   turns items into requests (``benchwright.steps.Plan``) and answers into rows.
- ``human``   people's pairwise choices against our judges (METHODS §1.5).
"""

# The method's version (the benchmark's declaration carries it; bumped when the method itself changes).
METHOD_VERSION = "1"
