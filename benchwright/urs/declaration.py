"""URS, declared once (``benchwright.benchmarks``): what the shared code needs to know of it."""

from __future__ import annotations

import unicodedata

from benchwright import paths
from benchwright.benchmarks import Benchmark, FilesSource, JudgeFormat, Report, ResidualPII, ScoreQuery
from benchwright.urs import METHOD_VERSION, parse

DATASET = "sample_data/urs"  # the default config's questions, survey and human choices
URS_SCORE_DICT = "urs_score_dict"


def holds_score_dict(answer: str) -> bool:
    """A score dict the URS parser would read scores from (full-width punctuation and curly quotes included)."""
    normalized = unicodedata.normalize("NFKC", answer).translate(parse.QUOTES)
    return any(parse.read_scores(match.group(0))[0] for match in parse.DICT.finditer(normalized))


DECLARATION = Benchmark(
    name="urs",
    version=METHOD_VERSION,
    drop_folders=(paths.HUMAN_PAIRWISE,),
    sources=(FilesSource("urs_dataset_files",
                         f"The URS dataset folder ({DATASET}: questions, survey, human choices), hashed.",
                         folders=(DATASET,)),),
    judge_formats=(JudgeFormat(URS_SCORE_DICT, holds_score_dict, "{'Factuality': 10, 'User Satisfaction': 10, 'Clarity': 10, "
                                                           "'Logical Coherence': 10, 'Completeness': 10, 'Final Score': 10}"),),
    residual_pii=(
        ResidualPII("urs_items", "urs_items_residual_pii", "urs/checks/residual_pii_urs_items.sql",
                    "No personal data left in the URS questions and reference answers (redacted on load; the asset's "
                    "metadata shows what was found, masked)."),
        ResidualPII("urs_generations", "urs_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                    "No personal data left in this model's URS answers (they are redacted before writing).",
                    params=("urs",), by_model=True),
        ResidualPII("urs_human_alignment", "urs_human_pairwise_residual_pii",
                    "urs/checks/residual_pii_urs_human_pairwise.sql",
                    "No personal data left in the stored URS human choices (annotators, rounds, file names; "
                    "pseudonymised on load)."),
    ),
    scores=(ScoreQuery("urs/queries/redundancy_scores.sql", "urs_leaderboard"),),
    reports=(Report("URS leaderboard (mean final score 1-10; the reference answer is worth 8)",
                    "urs/queries/report_leaderboard.sql"),),
    leaderboard=Report("URS leaderboard (mean final score 1-10; the reference answer is worth 8)", "urs/queries/show_leaderboard.sql"),
    sensors=("sensors.human_pairwise:human_pairwise_drop_sensor",),
    simulated="benchwright.urs.simulated",
    canaries="assets.urs:CANARY_JUDGING",
)
