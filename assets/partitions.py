"""The only two partition dimensions (docs/ARCHITECTURE.md#asset-graph-creation): candidate model and judge. Benchmark is a column."""

import dagster as dg

from assets.chosen import quiet

models_partitions = dg.DynamicPartitionsDefinition(name="models")
judges_partitions = dg.DynamicPartitionsDefinition(name="judges")
# Keys print as "judge|model" (dimensions sorted by name).
model_judge_partitions = dg.MultiPartitionsDefinition({"model": models_partitions, "judge": judges_partitions})

# Judge panels (registry/panels.yaml) judge too: their `judge` keys are the panels' slugs, kept in their own
# dynamic partitions so that no LLM-calling judgment asset ever gets a panel's partition.
panels_partitions = dg.DynamicPartitionsDefinition(name="panels")
model_panel_partitions = dg.MultiPartitionsDefinition({"model": models_partitions, "judge": panels_partitions})

# A judgment partition depends on the generations of its model only.
with quiet():
    by_model = dg.MultiToSingleDimensionPartitionMapping(partition_dimension_name="model")

# The canaries' judgments of one judge (assets/canaries.py) read that judge's judgments of every model.
with quiet():
    by_judge = dg.MultiToSingleDimensionPartitionMapping(partition_dimension_name="judge")

# A panel's partition reads its model's judgments by every judge. Dagster's built-in mappings (the only ones
# its automation follows) cannot name a set of judges that a YAML file changes, so it is all judges of the
# model: a new member's judgments make the panel stale and eager() re-runs it; a judge outside the panel
# re-runs it too, which only rewrites the same rows (no LLM call).
with quiet():
    all_judges_of_model = dg.MultiPartitionMapping({
        "model": dg.DimensionPartitionMapping("model", dg.IdentityPartitionMapping()),
        "judge": dg.DimensionPartitionMapping("judge", dg.AllPartitionMapping()),
    })


def model_and_judge(context) -> tuple[str, str]:
    keys = context.partition_key.keys_by_dimension
    return keys["model"], keys["judge"]
