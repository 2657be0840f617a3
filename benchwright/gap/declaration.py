"""GAP, declared once (``benchwright.benchmarks``): what the shared code needs to know of it."""

from __future__ import annotations

from benchwright.benchmarks import Benchmark, FilesSource, JudgeFormat, Report, ResidualPII, ScoreQuery
from benchwright.gap import METHOD_VERSION, scoring

SAMPLE_LOGS = "sample_data/gap/logs"  # the bundled game logs
LOG_DROPS = "gap_logs"  # drops/<this>/: the game's logs (JSONL)
SCORE_LINE = "score_line"


def holds_score_line(answer: str) -> bool:
    """A 'Score: x' line the GAP reader would credit (x in [0, 1]): prose such as 'Credit score: 720' is not the
    judge's format and could never be credited."""
    return any(scoring.parse_score(m.group(0))[0] is not None for m in scoring.SCORE_LINE.finditer(answer))


DECLARATION = Benchmark(
    name="gap",
    version=METHOD_VERSION,
    drop_folders=(LOG_DROPS,),
    sources=(FilesSource("gap_log_files",
                         f"GAP game logs: the sample ({SAMPLE_LOGS}) and the drop folder, complete files, hashed.",
                         folders=(SAMPLE_LOGS,), drops=(LOG_DROPS,)),),
    judge_formats=(JudgeFormat(SCORE_LINE, holds_score_line, "Score: 1"),),
    residual_pii=(
        ResidualPII("gap_vqa_dataset", "gap_vqa_residual_pii", "gap/checks/residual_pii_gap_vqa.sql",
                    "No personal data left in the GAP-VQA items, which are what the export folder holds."),
        ResidualPII("gap_generations", "gap_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                    "No personal data left in this model's GAP-VQA answers (redacted before writing).",
                    params=("gap",), by_model=True),
        ResidualPII("gap_game_logs", "gap_marks_residual_pii", "gap/checks/residual_pii_gap_marks.sql",
                    "No personal data left in the stored game marks and quarantined lines (questions, answers, "
                    "players, sessions, file names; redacted on ingest)."),
    ),
    scores=(ScoreQuery("gap/queries/redundancy_scores.sql", "gap_scores"),),
    reports=(Report("GAP-VQA scores (0-1 judge score of each model's answers on val)",
                    "gap/queries/report_leaderboard.sql"),),
    leaderboard=Report("GAP-VQA scores (0-1 judge score of each model's answers on val)", "gap/queries/show_leaderboard.sql"),
    sensors=("sensors.gap:gap_log_drop_sensor",),
    simulated="benchwright.gap.simulated",
    canaries="assets.gap:CANARY_JUDGING",
)
