"""MMMT-IF, declared once (``benchwright.benchmarks``): what the shared code needs to know of it."""

from __future__ import annotations

from benchwright.benchmarks import Benchmark, FilesSource, JudgeFormat, Report, ResidualPII, ScoreQuery
from benchwright.mmmt_if import METHOD_VERSION, autorater, prompts

DATASET = "sample_data/mmmt_if"  # the default config's chats
HUMAN_DROPS = "mmmt_if_human"  # drops/<this>/: people's ratings and preferences (CSV)
AUTORATER_DICT = "autorater_dict"


def holds_autorater_dict(answer: str) -> bool:
    """A dict naming one of the autorater's criteria, as the autorater's reader would take it."""
    return any(autorater.names_a_criterion(block) for block in autorater.BRACES.findall(answer))


DECLARATION = Benchmark(
    name=prompts.BENCHMARK,
    version=METHOD_VERSION,
    drop_folders=(HUMAN_DROPS,),
    sources=(
        FilesSource("mmmt_if_dataset_files", f"The MMMT-IF dataset folder ({DATASET}), hashed.", folders=(DATASET,)),
        FilesSource("mmmt_if_human_files", "The MMMT-IF human-ratings drop folder, complete files, hashed.",
                    drops=(HUMAN_DROPS,)),
    ),
    judge_formats=(JudgeFormat(AUTORATER_DICT, holds_autorater_dict,
                               "{" + ", ".join(f"'{key}': 10" for key in prompts.AUTORATER_KEYS) + "}"),),
    residual_pii=(
        ResidualPII("mmmt_if_generations", "mmmt_if_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                    "No personal data left in this model's MMMT-IF answers (redacted before writing).",
                    params=(prompts.BENCHMARK,), by_model=True),
        ResidualPII("mmmt_if_human_ratings", "mmmt_if_human_residual_pii", "mmmt_if/checks/residual_pii_mmmt_if_human.sql",
                    "No personal data left in the stored human ratings and preferences (raters, file names; "
                    "pseudonymised on load)."),
    ),
    scores=(ScoreQuery("mmmt_if/queries/redundancy_scores.sql", "mmmt_if_pif_metrics"),),
    reports=(Report("MMMT-IF leaderboard (PIF with 95 % bounds; PIF-N-N = all N samples follow every instruction)",
                    "mmmt_if/queries/report_leaderboard.sql"),),
    leaderboard=Report("MMMT-IF leaderboard (PIF with 95 % bounds; checked by code, no judge)", "mmmt_if/queries/show_leaderboard.sql"),
    sensors=("sensors.mmmt_if:mmmt_if_human_ratings_sensor",),
    simulated="benchwright.mmmt_if.simulated",
    canaries="assets.mmmt_if:CANARY_JUDGING",
)
