"""Creation, declared once (``benchwright.benchmarks``): what the shared code needs to know of it."""

from __future__ import annotations

from benchwright import paths
from benchwright.benchmarks import Benchmark, FilesSource, JudgeFormat, Report, ResidualPII, ScoreQuery
from benchwright.creation import METHOD_VERSION, vfs

DATASET = "sample_data/creation"  # the default config's items and images (what the main job loads)
VFS_LINE = "vfs_line"


def holds_vfs_line(answer: str) -> bool:
    """A Visual Factuality Score line the VFS reader would take a score from."""
    plain = vfs.without_decoration(answer)
    return any(pattern.search(plain) for pattern in vfs.VFS_PATTERNS.values())


DECLARATION = Benchmark(
    name="creation",
    version=METHOD_VERSION,
    drop_folders=(paths.HUMAN_PAIRWISE,),
    sources=(FilesSource("creation_dataset_files", f"The Creation dataset folder ({DATASET}: items and images), hashed.",
                         folders=(DATASET,)),),
    judge_formats=(JudgeFormat(VFS_LINE, holds_vfs_line,
                               "Response A Visual Factuality Score: 0/10\nResponse B Visual Factuality Score: 10/10"),),
    residual_pii=(
        ResidualPII("creation_items", "creation_items_residual_pii", "creation/checks/residual_pii_creation_items.sql",
                    "No personal data left in the Creation items' text (redacted on load)."),
        ResidualPII("creation_generations", "generations_residual_pii", "core/checks/residual_pii_generations.sql",
                    "No personal data left in this model's answers (they are redacted before writing).",
                    params=("creation",), by_model=True),
        ResidualPII("creation_human_alignment", "creation_human_pairwise_residual_pii",
                    "creation/checks/residual_pii_creation_human_pairwise.sql",
                    "No personal data left in the stored Creation human choices (annotators, rounds, file names; "
                    "pseudonymised on load)."),
    ),
    scores=(ScoreQuery("creation/queries/redundancy_scores.sql", "creation_leaderboard"),),
    reports=(Report("Creation leaderboard (overall; judge and model are slugs, simulated = offline simulator, not a "
                    "real model)", "creation/queries/report_leaderboard.sql"),
             Report("Judge quality (position-swap consistency, parse rate, biases)",
                    "creation/queries/report_judge_quality.sql")),
    leaderboard=Report("Creation ratings (Bradley–Terry, 95 % bootstrap intervals over items, rank by upper bound; Reward / Win Rate against the baseline beside them)", "creation/queries/show_leaderboard.sql"),
    sensors=("sensors.human_pairwise:human_pairwise_drop_sensor",),
    simulated="benchwright.creation.simulated",
    canaries="assets.creation:CANARY_JUDGINGS",  # the pairwise win rate and the VFS
)
