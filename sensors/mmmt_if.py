"""MMMT-IF human ratings: `<warehouse folder>/drops/mmmt_if_human/*.csv` (see `assets.mmmt_if.human_drop_folder`).

When a file is added, changed or removed, `mmmt_if_human_ratings` re-reads the whole folder;
`mmmt_if_human_alignment` follows by eager automation.
"""

from assets.mmmt_if import human_drop_folder, mmmt_if_human_ratings
from sensors.drop_folder import drop_folder_sensor

mmmt_if_human_ratings_sensor = drop_folder_sensor(
    "mmmt_if_human_ratings_sensor", mmmt_if_human_ratings, human_drop_folder, "*.csv",
    description="Requests `mmmt_if_human_ratings` when a CSV of human instruction-following ratings or pairwise "
                "preferences is added to, changed in or removed from the MMMT-IF drop folder.",
)
