"""Other benchmarks' scores: `<warehouse folder>/drops/benchmark_scores/*.csv` (see `assets.redundancy`).

When a file is added, changed or removed, `external_benchmark_scores` re-reads the whole folder;
`benchmark_redundancy` follows by eager automation.
"""

from assets.redundancy import external_benchmark_scores, scores_drop_folder
from sensors.drop_folder import drop_folder_sensor

benchmark_scores_sensor = drop_folder_sensor(
    "benchmark_scores_sensor", external_benchmark_scores, scores_drop_folder, "*.csv",
    description="Requests `external_benchmark_scores` when a CSV of other benchmarks' scores is added to, changed "
                "in or removed from the benchmark-scores drop folder.",
)
