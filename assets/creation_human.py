"""Creation human alignment (benchwright/creation/README.md#human-alignment): people's pairwise choices against the judges' verdicts.

Thin wiring: the loader is benchwright.human_pairwise, the math benchwright.creation.human.
The choices come from the drop folder (assets/human_pairwise.py), watched by sensors/human_pairwise.py.
"""

import dagster as dg
import pandas as pd

from assets.sources import human_pairwise_files, registry_labels
from assets.common import EAGER, add_labels, problems_frame, table_metadata
from assets.creation import PANEL_JUDGMENTS, creation_pairwise_judgments, creation_references
from assets.human_pairwise import alignment_version, human_pairwise_drop_folder, load_human_pairwise_drops
from benchwright import agreement, human_pairwise, steps
from benchwright.creation import human as creation_human
from benchwright.human_pairwise import ROW_COLUMNS
from resources.registry import Registry
from resources.warehouse import Warehouse

# dataset_problems rows for choices whose baseline does not match the item's reference answer
BASELINE_PROBLEMS = {"benchmark": "human_pairwise", "dataset": "creation_baselines"}
PAIRWISE_COLUMNS = ["benchmark", "item_id", "model_a", "model_b", "winner", "strength", "value", "annotator",
                    "left_model", "item_position", "round_id", "recorded_at", "seconds_taken", "source_file"]


class CreationHumanConfig(dg.Config):
    folder: str = ""
    """Drop folder of the annotation app's CSVs; empty means `<warehouse folder>/drops/human_pairwise`."""


@dg.asset(
    group_name="metrics",
    deps=[human_pairwise_files, registry_labels, creation_pairwise_judgments, PANEL_JUDGMENTS[0], creation_references],
    code_version=steps.code_version(creation_human, human_pairwise, agreement),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Human alignment of the Creation judges (benchwright/creation/README.md#human-alignment): people's choices between the baseline "
                "and a candidate (the drop folder's `creation` rows, into `creation_human_pairwise`) against "
                "each judge's verdicts on the −2..+2 scale, per judge × model × mode: MAE and Consistency "
                "(|J − P| ≤ 1), dual (mean of both orders) and non-dual (order 1); plus leave-one-out "
                "human–human figures (judge '(humans)'). Unparsed verdicts are left out and counted; "
                "'cannot tell' is left out. "
                "Requested by `human_pairwise_drop_sensor` when the folder changes.",
)
def creation_human_alignment(context: dg.AssetExecutionContext, config: CreationHumanConfig,
                             warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    folder = human_pairwise_drop_folder(warehouse, config.folder)
    rows, folder_problems = load_human_pairwise_drops(context, warehouse, folder, registry)
    everything = pd.DataFrame(rows, columns=ROW_COLUMNS)
    choices = everything[everything["benchmark"] == "creation"]
    baselines = warehouse.query("SELECT item_id, baseline FROM creation_references")
    kept, problems = creation_human.check_baselines(choices, dict(zip(baselines["item_id"], baselines["baseline"])))
    for problem in problems:
        context.log.warning(f"set aside {problem['location']}: {problem['reason']}")
    judgments = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE source = 'benchwright'")
    table = add_labels(creation_human.alignment_table(judgments, kept), registry,
                       {"judge": "judge_display", "model": "model_display"})
    stored = creation_human.with_values(choices)[PAIRWISE_COLUMNS] if len(choices) else pd.DataFrame()
    warehouse.write_tables([
        ("creation_human_pairwise", stored, {}),
        ("creation_human_alignment", table, {}),
        ("dataset_problems", problems_frame(problems, **BASELINE_PROBLEMS), BASELINE_PROBLEMS),
    ])
    return dg.MaterializeResult(data_version=alignment_version(
                                    warehouse, ["creation_human_pairwise", "creation_human_alignment"], BASELINE_PROBLEMS),
                                metadata=table_metadata(
        table, ["judge", "model", "mode", "items", "judge_failures", "mae", "consistency"],
        folder=dg.MetadataValue.path(str(folder)), files=int(everything["source_file"].nunique()),
        choices=len(choices), excluded_undetermined=int((choices["winner"] == "undetermined").sum()),
        folder_problems=len(folder_problems), baseline_mismatches=len(problems),
        refused_records=len(folder_problems) + len(problems),
        aggregation="J: non_dual = order-1 value, dual = mean of both orders' values (both must parse); "
                    "P = mean human value on the item; MAE = mean |J − P|, Consistency = share |J − P| ≤ 1",
    ))
