"""Human pairwise choices: `<warehouse folder>/drops/human_pairwise/*.csv` (see `assets.human_pairwise`).

The annotation app appends one row per choice to a CSV per round. When a file is added, grows,
changes or is removed, one run re-reads the whole folder for both benchmarks: `urs_human_alignment`
(its `urs` rows, with the configured sample file) and `creation_human_alignment` (its `creation` rows).
"""

from assets.creation_human import creation_human_alignment
from assets.human_pairwise import human_pairwise_drop_folder
from assets.urs import urs_human_alignment
from sensors.drop_folder import drop_folder_sensor

human_pairwise_drop_sensor = drop_folder_sensor(
    "human_pairwise_drop_sensor", [urs_human_alignment, creation_human_alignment], human_pairwise_drop_folder,
    "*.csv",
    description="Requests `urs_human_alignment` and `creation_human_alignment` when a CSV of human pairwise "
                "choices is added to, changed in or removed from the human pairwise drop folder.",
)
