"""Redundancy with other benchmarks on the demo's leaderboards: a dropped score file becomes Spearman / R²
rows for each of our leaderboards, equal to scipy's on the same numbers."""

import shutil

import dagster as dg
from scipy import stats

from assets.redundancy import benchmark_redundancy, external_benchmark_scores
from benchwright import paths
from resources.warehouse import Warehouse


def test_dropped_scores_give_spearman_and_r2_for_every_leaderboard(shipped_demo, tmp_path):
    # A copy of the demo's warehouse: the shared one stays as the other modules read it.
    database = tmp_path / "warehouse.duckdb"
    shutil.copy(shipped_demo["warehouse"].database, database)
    warehouse = Warehouse(database=str(database), snapshot_path=str(tmp_path / "analyst.duckdb"))
    registry = shipped_demo["resources"]["registry"]
    board = warehouse.query("SELECT judge, model, reward FROM creation_leaderboard WHERE scope = 'overall' "
                            "ORDER BY judge, model")
    models = sorted(set(board["model"]))
    assert len(models) >= 3
    # Another benchmark that ranks the models in reverse alphabetical order; names as display names.
    names = {entry.slug: entry.display_name for entry in registry.candidates()}
    other = {model: float(10 * (len(models) - i)) for i, model in enumerate(models)}
    drop = paths.drop_folder(database, paths.BENCHMARK_SCORES)
    drop.mkdir(parents=True)
    (drop / "published.csv").write_text("model,Other Bench,Tiny\n" + "".join(
        f"{names[m].upper()},{other[m]},{'1' if i == 0 else ''}\n" for i, m in enumerate(models)))

    result = dg.materialize([external_benchmark_scores, benchmark_redundancy],
                            resources={"warehouse": warehouse, "registry": registry})
    assert result.success
    stored = warehouse.query("SELECT * FROM external_benchmark_scores")
    assert set(stored["model"]) == set(models) and len(stored) == len(models) + 1
    table = warehouse.query("SELECT * FROM benchmark_redundancy")
    leaderboards = set(table["leaderboard"])
    assert {"creation_reward", "creation_win_rate", "creation_vfs", "urs_final_score", "gap_vqa_score"} <= leaderboards
    assert any(name.startswith("mmmt_if_pif_") for name in leaderboards)
    tiny = table[table["other_benchmark"] == "Tiny"]
    assert (tiny["n_models"] == 1).all() and tiny["spearman"].isna().all()  # one model: no correlation

    for judge, rows in board.groupby("judge"):
        row = table[(table["leaderboard"] == "creation_reward") & (table["judge"] == judge)
                    & (table["other_benchmark"] == "Other Bench")].iloc[0]
        theirs = [other[m] for m in rows["model"]]
        assert row["n_models"] == len(rows)
        assert abs(row["spearman"] - stats.spearmanr(rows["reward"], theirs).statistic) < 1e-12
        assert abs(row["r2"] - stats.pearsonr(rows["reward"], theirs).statistic ** 2) < 1e-9
