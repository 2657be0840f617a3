"""The registry's refused entries as a failing asset check (ERROR) on the `registry_labels` source asset.

A refused entry has no partition (it is not registered), so the check sits on an unpartitioned registry source:
`registry_labels` covers every entry of models.yaml, judges.yaml and panels.yaml (and providers.yaml, whose
refusals it lists too). Its metadata is a table of every refusal: file, entry, line, field (the key at fault,
`params.released`), reason. It passes, with 0 refusals, on the shipped registry.

The same evaluation is recorded three ways, so the UI's check is red as soon as an entry is refused:
- "Execute" on the check in the UI, or a run that selects `registry_labels` (`dagster asset materialize -m
  definitions --select registry_labels` observes it and prints the check's result): the `@asset_check` below,
  a step of the run (observable source assets take no check specs in Dagster 1.13);
- the main job (scripts/orchestrate.py): `report_registry_check`, a runless evaluation next to the sources'
  runless observations, also counted in the job's summary as a check;
- the daemon: the registry sensor (sensors/registry.py) puts it in its tick's asset events when it differs from
  the latest one recorded.
"""

from __future__ import annotations

import dagster as dg

from benchwright.registry import RegistryProblem
from resources.registry import Registry

REGISTRY_CHECK = dg.AssetCheckKey(dg.AssetKey("registry_labels"), "registry_entries_accepted")
_COLUMNS = ("file", "entry", "line", "field", "reason")


def evaluation_fields(problems: list[RegistryProblem]) -> dict:
    """What the check says about these refusals: passed, severity, description and metadata (a table)."""
    rows = [dg.TableRecord({"file": p.file, "entry": p.entry, "line": p.line or 0, "field": p.field or "",
                            "reason": p.reason}) for p in problems]
    schema = dg.TableSchema(columns=[dg.TableColumn(name, "int" if name == "line" else "string") for name in _COLUMNS])
    refused = f"{len(problems)} registry {'entry' if len(problems) == 1 else 'entries'} refused"
    description = (f"{refused} (not evaluated until fixed): " + "; ".join(map(str, problems))
                   if problems else "no registry entry refused")
    return {"passed": not problems, "severity": dg.AssetCheckSeverity.ERROR, "description": description,
            "metadata": {"refusals": len(problems), "refused_entries": dg.MetadataValue.table(rows, schema)}}


@dg.asset_check(asset=REGISTRY_CHECK.asset_key, name=REGISTRY_CHECK.name,
                description="Every entry of the registry (models.yaml, judges.yaml, panels.yaml, providers.yaml) is "
                            "accepted; a refused one is listed with its file, entry, line and the key at fault, and "
                            "is not evaluated until fixed.")
def registry_entries_accepted(registry: Registry) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(**evaluation_fields(registry.problems()))


def registry_check_evaluation(registry: Registry) -> dg.AssetCheckEvaluation:
    """The check's evaluation now, as a runless event (what the main job and the registry sensor record)."""
    return dg.AssetCheckEvaluation(asset_key=REGISTRY_CHECK.asset_key, check_name=REGISTRY_CHECK.name,
                                   **evaluation_fields(registry.problems()))


def differs_from_latest(instance: dg.DagsterInstance, evaluation: dg.AssetCheckEvaluation) -> bool:
    """True unless the latest evaluation recorded (by any of the three ways) says the same: an unchanged
    registry adds no event on each of the sensor's ticks."""
    record = instance.event_log_storage.get_latest_asset_check_execution_by_key([REGISTRY_CHECK]).get(REGISTRY_CHECK)
    latest = record.evaluation if record is not None else None
    if not isinstance(latest, dg.AssetCheckEvaluation):  # none yet, or a run's check still planned
        return True
    return (latest.passed, latest.description) != (evaluation.passed, evaluation.description)


def report_registry_check(instance: dg.DagsterInstance, registry: Registry) -> dg.AssetCheckEvaluation:
    """Evaluate the check and record it without a run when it differs from the latest one; return it."""
    evaluation = registry_check_evaluation(registry)
    if differs_from_latest(instance, evaluation):
        instance.report_runless_asset_event(evaluation)
    return evaluation
