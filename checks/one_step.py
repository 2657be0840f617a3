"""An asset's checks run in one step (docs/ARCHITECTURE.md#checks).

A Dagster step costs ≈ 0.03–0.06 s of set-up and events whatever it does, as much as most of our checks (one query
each): a cold demo had 179 check steps, now 95 (3 % of its wall time, bench/README.md). So every check is
written with ``asset_check`` below (Dagster's ``asset_check`` with the same arguments, which also notes the check's
function), and ``one_step_per_asset`` makes the checks of one asset (and of one partitions definition) a single
``multi_asset_check`` step. Each check keeps its key, name, blocking flag and description: the UI, the event log
and every selection see the same checks as before. A check that raises does not stop the others of its step; the
step fails after them, naming it.

Checks written with Dagster's own decorator (a plugin's) keep a step each.
"""

import inspect
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import dagster as dg

from assets.chosen import chosen


@dataclass(frozen=True)
class _Written:
    spec: dg.AssetCheckSpec
    compute: Callable[..., dg.AssetCheckResult]
    takes_context: bool
    resources: tuple[str, ...]              # the function's other parameters: resource keys


# Every check written with `asset_check`, by key. Filled as the checks modules are imported.
_WRITTEN: dict[dg.AssetCheckKey, _Written] = {}


def asset_check(**kwargs) -> Callable[[Callable[..., dg.AssetCheckResult]], dg.AssetChecksDefinition]:
    """``dg.asset_check(**kwargs)`` (quiet about partitioned checks being a preview), remembered so that
    ``one_step_per_asset`` can run it together with its asset's other checks. The function takes ``context``
    (optional, first) and resources by name, and returns one ``AssetCheckResult``."""
    def apply(function: Callable[..., dg.AssetCheckResult]) -> dg.AssetChecksDefinition:
        definition = chosen(dg.asset_check, **kwargs)(function)
        [spec] = definition.check_specs
        parameters = list(inspect.signature(function).parameters)
        takes_context = parameters[:1] == ["context"]
        _WRITTEN[spec.key] = _Written(spec, function, takes_context,
                                      tuple(parameters[1:] if takes_context else parameters))
        return definition

    return apply


def one_step_per_asset(definitions: list[dg.AssetChecksDefinition]) -> list[dg.AssetChecksDefinition]:
    """These checks with those written by ``asset_check`` merged: one step per asset and partitions definition.
    (Dagster's loaders return copies of the definitions, so they are matched by check key.)"""
    groups: dict[tuple, list[tuple[dg.AssetChecksDefinition, _Written]]] = defaultdict(list)
    others = []
    for definition in definitions:
        keys = list(definition.check_keys)
        written = _WRITTEN.get(keys[0]) if len(keys) == 1 else None
        if written is None:
            others.append(definition)
        else:
            groups[(written.spec.asset_key, written.spec.partitions_def)].append((definition, written))
    shared = Counter(asset_key for asset_key, _ in groups)  # an asset with whole-table and per-partition checks
    return others + [group[0][0] if len(group) == 1 else
                     _one_step([written for _, written in group], by_partition=shared[asset_key] > 1 and bool(partitions))
                     for (asset_key, partitions), group in groups.items()]


def _one_step(group: list[_Written], by_partition: bool) -> dg.AssetChecksDefinition:
    asset_key = group[0].spec.asset_key
    names = ", ".join(written.spec.name for written in group)

    @chosen(dg.multi_asset_check, name=f"{asset_key.to_python_identifier()}_checks{'_by_partition' * by_partition}",
            specs=[written.spec for written in group], can_subset=True,
            required_resource_keys={name for written in group for name in written.resources},
            description=f"The checks of {asset_key.to_user_string()} in one step: {names}.")
    def _checks(context: dg.AssetCheckExecutionContext) -> Iterator[dg.AssetCheckResult]:
        could_not_run = []
        for written in group:
            if written.spec.key not in context.selected_asset_check_keys:
                continue
            resources = {name: getattr(context.resources, name) for name in written.resources}
            try:
                arguments = (context,) if written.takes_context else ()
                result = written.compute(*arguments, **resources)
            except Exception:  # the other checks still run; the step fails after them
                context.log.exception(f"check {written.spec.name} could not run")
                could_not_run.append(written.spec.name)
                continue
            yield result._replace(asset_key=asset_key, check_name=written.spec.name)
        if could_not_run:
            raise dg.Failure(f"{len(could_not_run)} check(s) of {asset_key.to_user_string()} could not run: "
                             f"{', '.join(could_not_run)} (their errors are logged above)")

    return _checks
