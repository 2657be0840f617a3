"""Materialize the whole asset graph in dependency order, one Dagster run per stage, partitions definition and
partition (`run_stages`), running only what is missing or stale.

Used by the main job (scripts/materialize_all.py), the end-to-end tests and the benchmarks. The
daemon does the same thing incrementally through the sensors; this is the explicit, all-at-once path.
The order comes from the asset graph itself, so a new benchmark's assets need no change here.

With `workers` > 1 a run executes its steps (each asset and each check is a step) in parallel processes
through Dagster's multiprocess executor (see `step_processes` in definitions.py). Resources reach the step
processes as run config (they are ConfigurableResources), so a caller's resources are the ones every step
uses. The default is one process: measured at full size (bench/full_size.py), two step processes were
slower than one (bench/README.md), so parallel steps are a choice, not the default.

What to run is Dagster's own staleness, the one the UI shows: the observable sources (assets/sources.py)
are observed first, so a changed registry entry or dataset file has a new data version; then, stage by
stage, an asset partition runs when it is missing or stale (a new code version, or an input with a new
data version), or when its latest run left failed LLM calls that are not given up (benchwright/llm/failures.py):
those are asked again, the cache serving the rest. With nothing new and no failed call, nothing runs and no
model is called. The resolver is Dagster's, reading the event log a few queries per asset rather than one per
partition and parent (scripts/stale_status.py); one serves every stage until something runs.

The runs of one stage do not depend on each other (an asset reads only its own run's and earlier stages'), so with
`parallel_runs` > 1 up to that many of them run at once: one model's generations, another's, each judge's
judgments, all waiting on their providers together. This process runs one of them (in its main thread, as it
runs every run one at a time), the others are each an `execute_job` in a process of a pool forked from a
forkserver that has imported the code location (as step processes are), not in threads of this one: the
warehouse's single writer is kept by a lock between processes, and two runs in threads of one process
deadlocked in Dagster's logging (py-spy: one thread in `logging.config.dictConfig`, called from a run's start,
waiting on a handler whose lock the other thread held while writing an event). How many calls go to a
provider at once is bounded by the provider's leases (registry/providers.yaml, benchwright/llm/providers.py),
whatever the number of runs. The summary is merged in the runs' planned order, so it is the same whichever run
ends first.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Collection, Mapping
from typing import Any
import multiprocessing
import threading
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor

import dagster as dg
from dagster._core.definitions.assets.job.asset_job import IMPLICIT_ASSET_JOB_NAME
# The statuses behind the UI's 'stale' labels; Dagster exports no public name for them.
from dagster._core.definitions.data_version import StaleStatus
from dagster._core.definitions.events import AssetKeyPartitionKey
from dagster._core.definitions.reconstruct import ReconstructableJob, ReconstructableRepository

from assets.partitions import (judges_partitions, model_judge_partitions, model_panel_partitions, models_partitions,
                               panels_partitions)
from benchwright import progress_bars
from benchwright.llm.failures import all_calls_failed, calls_to_ask_again, failed_calls, metadata_count
from benchwright.paths import ROOT, SNAPSHOT_FILE, count_setting
from benchwright.registry import checked_providers
from benchwright.scope import ANCHORS, Scope, benchmark_of, is_limited_home, selectable_benchmarks
from checks.registry import REGISTRY_CHECK, report_registry_check
from resources.dagster_event_log import keep_event_log_connections
from scripts.stale_status import BatchedStaleStatusResolver
from sensors.failed_calls import llm_asset_keys
from sensors.runs import fail_orphaned_runs

keep_event_log_connections()  # every run this module starts writes its events through kept connections

# Which dev.py command launched a main-job run (run | demo | plan): a filter on the UI's Runs page.
LAUNCHED_BY_TAG = "benchwright/launched_by"
LAUNCHERS = ("run", "demo", "plan")


def default_workers() -> int:
    """Step processes at once: BENCHWRIGHT_WORKERS, else 1 (every step in the run's process). A value that is
    not a whole number ≥ 1 is refused, naming the variable."""
    return count_setting("BENCHWRIGHT_WORKERS", 1)


def default_parallel_runs(registry) -> int:
    """Runs of one stage at once: BENCHWRIGHT_PARALLEL_RUNS, else 8 when a registered model calls a provider
    (runs then wait on calls, and the provider leases bound the calls), else 1: the simulator answers at once,
    so parallel runs would only share the cores, which was not measured; the demo stays as it was. A value
    that is not a whole number ≥ 1 is refused, naming the variable."""
    if os.environ.get("BENCHWRIGHT_PARALLEL_RUNS", "").strip():
        return count_setting("BENCHWRIGHT_PARALLEL_RUNS", 1)
    return 8 if calls_providers(registry) else 1


def calls_providers(registry) -> bool:
    """Whether a registered model or judge is called through litellm (a simulated one and a canary are not)."""
    entries = registry.entries("models") + registry.entries("judges")
    return any(not entry.simulated and entry.canary_kind is None for entry in entries)


def asset_job() -> ReconstructableJob:
    """The code location's job of every asset, in a form step processes can rebuild by importing it.

    The assets have several partitions definitions, which only Dagster's implicit asset job allows (a named
    job must have one); it is reached the way `dagster job execute -m definitions -j __ASSET_JOB` does.
    """
    return ReconstructableRepository.for_module("definitions", "defs", working_directory=str(ROOT)) \
        .get_reconstructable_job(IMPLICIT_ASSET_JOB_NAME)


def execute_run(instance_ref, job: ReconstructableJob, run_config: dict, tags: dict, keys: list[str],
                own_checks: frozenset | None = None) -> dict:
    """One Dagster run of these assets; what the main job's summary takes from it, as plain values (a run of a
    stage in a process of its own returns them to the main job through a pipe). With `own_checks` the run
    has no separate check steps, only these checks, which the assets compute themselves."""
    _RUN_IN_FLIGHT.set()
    try:
        return _execute_on(_process_instance(instance_ref), job, run_config, tags, keys, own_checks)
    finally:
        _RUN_IN_FLIGHT.clear()


_KEPT_INSTANCE: list[tuple] = []  # (instance ref, the instance made from it) of this pool process


def _process_instance(instance_ref) -> dg.DagsterInstance:
    """The Dagster instance of this pool process, made at its first run and kept for the next: an instance per run
    started its event log's databases afresh each time (resources/dagster_event_log.py keeps them per instance)."""
    if not _KEPT_INSTANCE or _KEPT_INSTANCE[0][0] != instance_ref:
        if _KEPT_INSTANCE:
            _KEPT_INSTANCE.pop()[1].dispose()
        _KEPT_INSTANCE.append((instance_ref, dg.DagsterInstance.from_ref(instance_ref)))
    return _KEPT_INSTANCE[0][1]


def _execute_on(instance: dg.DagsterInstance, job: ReconstructableJob, run_config: dict, tags: dict,
                keys: list[str], own_checks: frozenset | None = None) -> dict:
    if own_checks is None:
        with dg.execute_job(job, instance, run_config=run_config, tags=tags,
                            asset_selection=[dg.AssetKey(key) for key in keys]) as result:
            return _outcome(result)
    # These assets with only the checks they compute themselves, in this process. execute_job cannot leave a
    # selected asset's separate checks out (its run records no check selection); a subset job definition can.
    subset = job.get_definition().get_subset(asset_selection={dg.AssetKey(key) for key in keys},
                                             asset_check_selection=set(own_checks))
    return _outcome(subset.execute_in_process(
        run_config={name: value for name, value in run_config.items() if name != "execution"}, instance=instance,
        tags=tags, raise_on_error=False))


def _outcome(result) -> dict:
    """What the main job's summary takes from a run's result."""
    outcome = run_outcome(result.run_id, result.success,
                          [(e.asset_key.to_user_string(), e.materialization.metadata)
                           for e in result.get_asset_materialization_events()],
                          [(e.asset_key.to_user_string(), e.check_name, e.passed, e.severity.value)
                           for e in result.get_asset_check_evaluations()])
    outcome["interrupted"] = not result.success and _interrupted(result)
    return outcome


def _interrupted(result) -> bool:
    """Whether Dagster ended the run because the process was interrupted (SIGINT, or SIGTERM, which Dagster
    handles alike while it runs a job): the run fails, and the job must stop rather than go on to the next."""
    from dagster._core.events import RunFailureReason  # the reason its run failure event gives; not exported

    failure = next((event for event in result.all_events if event.event_type == dg.DagsterEventType.RUN_FAILURE), None)
    reason = getattr(failure.event_specific_data, "failure_reason", None) if failure else None
    return reason == RunFailureReason.UNEXPECTED_TERMINATION


class JobInterrupted(KeyboardInterrupt):
    """A run of the main job was interrupted: no further run starts (`materialize_everything`)."""


def run_outcome(run_id: str, success: bool, materialized: list[tuple[str, Mapping[str, Any]]],
                checks: list[tuple[str, str, bool, str]]) -> dict:
    """What the main job's summary takes from one run (or, for `dev.py plan`, from assets called directly):
    the LLM counts summed over its materializations' metadata (asset, metadata), the records each loader or
    import refused (`refused_records`, each a located row of `dataset_problems`), the steps that asked for
    something and got nothing (every request failed: a provider down), and its checks (asset, check, passed,
    severity)."""
    def total(field: str) -> int:
        return sum(metadata_count(metadata, field) for _asset, metadata in materialized)

    refused: dict[str, int] = {}
    for asset, metadata in materialized:
        if count := metadata_count(metadata, "refused_records"):
            refused[asset] = refused.get(asset, 0) + count
    return {"run_id": run_id, "success": success, "api_calls": total("api_calls"), "cache_hits": total("cache_hits"),
            "refused_records": refused, "failed_calls": total("errors"), "given_up": total("given_up"),
            "not_sent": total("not_sent"),
            "budgets": [_text(metadata["budget"]) for _asset, metadata in materialized if metadata.get("budget")],
            "all_failed": [asset for asset, metadata in materialized if all_calls_failed(metadata)],
            "checks": checks}


def _text(value: Any) -> str:
    return str(getattr(value, "value", value))  # a Dagster MetadataValue or plain text


def run_pool(size: int, with_litellm: bool = True) -> ProcessPoolExecutor:
    """Processes for runs of one stage at once, forked from a forkserver that has imported what a run needs
    (definitions.PRELOADED: the code location, great-expectations, scipy.stats, litellm), so a process starts in a
    fraction of a second; each runs one run at a time, its steps in its own process by default. Without `with_litellm`
    (no registered model calls a provider) litellm is left out: the simulator never imports it, and its ≈ 2 s of
    CPU would hold back the pool's first process while this one runs the first runs alone (`warm_up`)."""
    from definitions import PRELOADED

    restart_forkserver_on_new_environment()
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([module for module in PRELOADED if with_litellm or module != "litellm"])
    return ProcessPoolExecutor(max_workers=size, mp_context=context, initializer=_pool_process_start)


_RUN_IN_FLIGHT = threading.Event()  # in a pool process: it is executing a run (`execute_run`)


def _pool_process_start() -> None:
    """A pool process's SIGINT handler: in a run an interrupt is what it is anywhere (Dagster fails the run as
    interrupted, and the main job stops); between runs it ends the process quietly, the job being stopped, rather
    than printing a KeyboardInterrupt traceback from the pool's wait for work. (After a run Dagster gives SIGTERM
    the same handler.)"""
    signal.signal(signal.SIGINT, _interrupted_in_pool)


def _interrupted_in_pool(signum, frame) -> None:
    if _RUN_IN_FLIGHT.is_set():
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def interrupt_pool(pool: ProcessPoolExecutor) -> None:
    """Interrupt the pool's processes as Ctrl-C in a terminal does (which reaches them; `kill` on the main job does
    not): each run in flight fails as interrupted, its answered calls kept in the LLM cache, instead of calling its
    provider to its end after the job stopped. ProcessPoolExecutor names its processes only in `_processes`."""
    for process in list((pool._processes or {}).values()):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGINT)


def warm_up(pool: ProcessPoolExecutor, size: int, job: ReconstructableJob) -> threading.Event:
    """Start the pool's processes in a thread of their own, each with the job's definition built, while the first
    runs go in this process: starting the forkserver (its imports: ≈ 6–8 s of CPU) and each process's first definition
    take seconds, and starting a process waits for the forkserver. Returns an event set once a process has built the
    definition (or failed to: a process that cannot build the job fails the same way in the run it is given, where
    the error is reported); until then this process takes every run itself (`share_runs`)."""
    ready = threading.Event()

    def start() -> None:
        try:
            for _ in range(size):
                pool.submit(_build_definition, job).add_done_callback(lambda _future: ready.set())
        except RuntimeError:  # the job ended (the pool was shut down) before every process had started
            pass

    threading.Thread(target=start, name="benchwright-run-pool-warm-up", daemon=True).start()
    return ready


def share_runs(count: int, run_here: Callable[[int], dict], run_in_pool: Callable[[int], dict], slots: int,
               pool_ready: threading.Event, done: Callable[[int, dict], None],
               interrupt_pool: Callable[[], None] = lambda: None) -> None:
    """Runs 0..count-1 shared between this process and `slots` processes of a pool: this process takes the next run
    whenever it is free, and each pool slot (a thread that hands a run to the pool and waits for it) takes the next
    once the pool is ready. So no core waits while the pool's processes start, and a pool process that ends a run
    gets the next at once, whatever this process is running. `done(index, outcome)` is called in this thread, in
    the runs' order (the summary does not depend on which run ends first). After an error no new run is taken;
    the runs already taken end, those before the first that has no outcome are reported, and the first error is
    raised here. An interrupt of this process (its own run's, or one while it waits for the pool's) is passed on
    with `interrupt_pool`, so that the pool's runs end now too rather than at their end."""
    lock = threading.Lock()
    taken = 0
    outcomes: dict[int, dict] = {}
    errors: list[BaseException] = []

    def take() -> int | None:
        nonlocal taken
        with lock:
            if errors or taken >= count:
                return None
            taken += 1
            return taken - 1

    def slot() -> None:
        while not pool_ready.wait(0.05):
            with lock:
                if errors or taken >= count:  # this process took them all while the pool started
                    return
        while (index := take()) is not None:
            try:
                outcome = run_in_pool(index)
            except BaseException as err:  # a broken pool, say: raised in the main thread
                with lock:
                    errors.append(err)
                return
            with lock:
                outcomes[index] = outcome

    reported = 0

    def report() -> None:
        nonlocal reported
        while reported in outcomes:
            done(reported, outcomes[reported])
            reported += 1

    threads = [threading.Thread(target=slot, name=f"benchwright-run-slot-{number}", daemon=True)
               for number in range(slots)]
    for thread in threads:
        thread.start()
    def failed(err: BaseException) -> None:
        with lock:
            errors.insert(0, err)  # the slots take no new run
        if isinstance(err, KeyboardInterrupt):
            interrupt_pool()

    try:
        while (index := take()) is not None:
            outcome = run_here(index)
            with lock:
                outcomes[index] = outcome
            report()
    except BaseException as err:
        failed(err)
    for thread in threads:
        while thread.is_alive():
            try:
                thread.join(0.1)
                report()  # the pool's runs that ended while this process waits for the last
            except KeyboardInterrupt as err:  # Ctrl-C or `kill` while the pool's runs go on
                failed(err)
    report()
    if errors:
        raise errors[0]


def _build_definition(job: ReconstructableJob) -> None:
    job.get_definition()


def _run_environment() -> dict[str, str]:
    """The part of the environment a run reads: where the home, warehouse, registry and plugins are."""
    return {name: value for name, value in os.environ.items()
            if name.startswith(("BENCHWRIGHT_", "DAGSTER_", "LITELLM_")) or name == "PYTHONPATH"}


def restart_forkserver_on_new_environment() -> None:
    """Stop Python's forkserver if it was started under another run environment, so the next process starts one
    anew.

    There is one forkserver per process and every child is forked from it, so a child has the environment (and
    the imported code location) of the moment the server started, not of now. A process that runs the main job
    on one home and then on another — `dev.py plan`, which switches BENCHWRIGHT_HOME to its copy, or a test
    process — would otherwise run the second home's runs with the first home's settings: two test workers made
    the plan's pool runs read an empty warehouse this way. The server is a private part of multiprocessing;
    `_stop` is how its own tests restart it."""
    from multiprocessing import forkserver

    server = forkserver._forkserver
    wanted = _run_environment()
    if server._forkserver_pid is not None and getattr(server, "benchwright_environment", None) != wanted:
        server._stop()
    server.benchwright_environment = wanted


def resources_config(resources: dict) -> dict:
    """Run config that rebuilds these resources in every step process, field by field."""
    config = {}
    for name, resource in resources.items():
        if not isinstance(resource, dg.ConfigurableResource):
            raise TypeError(f"resource {name!r} is a {type(resource).__name__}: step processes can only rebuild "
                            "ConfigurableResources from their fields")
        config[name] = {"config": {field: getattr(resource, field) for field in type(resource).model_fields}}
    return config


def known_benchmarks() -> list[str]:
    """The benchmarks a scope may name: the declared ones and the kernel's areas (`selectable_benchmarks`), then a
    plugin module's BENCHMARK (its assets' prefix) if it declares none."""
    from definitions import benchmark_modules

    ours = selectable_benchmarks()
    plugins = [getattr(module, "BENCHMARK", None) for module in benchmark_modules() if not module.__name__.startswith("assets.")]
    return [*ours, *dict.fromkeys(name for name in plugins if isinstance(name, str) and name not in ours)]


def limited_asset_config(limit: int | str, full_home: Path | None = None) -> dict[str, dict]:
    """Run config by asset keeping the first `limit` items of every benchmark: each benchmark module's
    `limited_config(limit)` (a plugin without one runs on all its items). `limit` ANCHORS (`--limit anchors`): each
    benchmark module's `anchored_config(items)` with the anchor items of `full_home`'s snapshot, and `anchor_sets`
    copying the sets fitted there."""
    from definitions import benchmark_modules

    config: dict[str, dict] = {}
    if limit == ANCHORS:
        from benchwright.anchors import anchored_items

        snapshot = str(Path(full_home) / SNAPSHOT_FILE)
        items, _ = anchored_items(snapshot)
        config["anchor_sets"] = {"from_snapshot": snapshot}
        for module in benchmark_modules():
            if hasattr(module, "anchored_config"):
                config.update(module.anchored_config(items))
        return config
    for module in benchmark_modules():
        if hasattr(module, "limited_config"):
            config.update(module.limited_config(limit))
    return config


def out_of_scope(graph, scope: Scope, calling: set[dg.AssetKey]) -> set[dg.AssetKey]:
    """The materializable assets a scope leaves out: those of another benchmark (by name, benchwright/scope.py), and
    with a scope by model or judge, an unpartitioned asset that calls models (`calling`) and reads partitioned
    assets: it asks across every model or judge at once (URS's cross-validation grid), so it would call outside the
    scope; and with a scope by benchmark, an asset that calls models for no one benchmark (canary_judgments asks each
    judge about every benchmark's items). The unpartitioned steps a benchmark needs first (the baseline's references, the describer's
    descriptions, the game's answers) read no partitioned asset and stay in."""
    benchmarks = known_benchmarks()
    left_out = set()
    for key in graph.materializable_asset_keys:
        node = graph.get(key)
        if not scope.covers_benchmark(benchmark_of(key.to_user_string(), benchmarks)):
            left_out.add(key)
        elif scope.by_entry and node.partitions_def is None and key in calling \
                and any(graph.get(parent).partitions_def is not None for parent in node.parent_keys):
            left_out.add(key)
        elif scope.benchmarks is not None and key in calling and benchmark_of(key.to_user_string(), benchmarks) is None:
            left_out.add(key)  # it asks about every benchmark (the canaries' judgments): not in a run of some
    return left_out


def run_stages(graph) -> list[list[dg.AssetKey]]:
    """The graph's materializable assets in stages, each in dependency order: an asset goes in the stage of its
    latest parent with the same partitions (one run per partition materializes both, the parent first) and after
    the stage of any other parent. A stage's runs (one per partitions definition and partition) never depend on
    each other. Grouped so, the demo's graph takes 22 runs cold where one per level and partition took 39: every
    Dagster run costs its own set-up and events (bench/README.md)."""
    stage_of: dict[dg.AssetKey, int] = {}
    order: list[dg.AssetKey] = []
    for level in graph.toposorted_asset_keys_by_level:
        for key in sorted(level, key=lambda k: k.to_user_string()):
            node = graph.get(key)
            if not node.is_materializable:  # sources are observed before any stage
                continue
            stage_of[key] = max([0] + [stage_of[parent] + (graph.get(parent).partitions_def != node.partitions_def)
                                       for parent in node.parent_keys if parent in stage_of])
            order.append(key)
    stages: list[list[dg.AssetKey]] = [[] for _ in range(max(stage_of.values(), default=-1) + 1)]
    for key in order:  # by level, so each stage lists parents before readers
        stages[stage_of[key]].append(key)
    return stages


def independent_runs(keys: list[dg.AssetKey], graph, benchmarks: Collection[str]) -> tuple[list[list[dg.AssetKey]],
                                                                                         list[dg.AssetKey]]:
    """One run's assets (same partition, parents before readers) as runs that can go side by side, and the assets
    that wait for them: an asset goes with its parents in the run (one run: it reads what they write), else with
    its benchmark's other assets (by name; those of no benchmark together); an asset whose parents in the run are
    in different runs, or wait, waits too, and is planned again once they ran. Used when runs go in parallel: a
    stage of one run (the datasets, the metrics) otherwise keeps one core busy while the other waits."""
    in_run = set(keys)
    runs: dict[str, list[dg.AssetKey]] = {}
    run_of: dict[dg.AssetKey, str] = {}
    waiting: list[dg.AssetKey] = []
    for key in keys:
        parents = [parent for parent in graph.get(key).parent_keys if parent in in_run]
        owners = {run_of.get(parent) for parent in parents}
        if None in owners or len(owners) > 1:  # a parent waits, or they go in different runs
            waiting.append(key)
            continue
        name = owners.pop() if owners else (benchmark_of(key.to_user_string(), benchmarks) or "")
        run_of[key] = name
        runs.setdefault(name, []).append(key)
    return list(runs.values()), waiting


def sync_partitions(instance: dg.DagsterInstance, registry, log: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """Add the registry's candidates, judges and judge panels as dynamic partitions (what the registry sensor
    does); returns the candidates and judges (the panels are `registry.panels()`)."""
    for problem in registry.problems():
        log(f"registry entry skipped: {problem}")
    models = [e.slug for e in registry.candidates()]
    judges = [e.slug for e in registry.judges()]
    panels = [e.slug for e in registry.panels()]
    for definition, slugs in ((models_partitions, models), (judges_partitions, judges), (panels_partitions, panels)):
        known = set(instance.get_dynamic_partitions(definition.name))
        instance.add_dynamic_partitions(definition.name, [s for s in slugs if s not in known])
    return models, judges


def stale_status_resolver(instance: dg.DagsterInstance, graph) -> BatchedStaleStatusResolver:
    """A fresh resolver (it caches what it read) of the statuses the UI shows: missing, stale, fresh; Dagster's,
    reading the event log in batches for the assets it was told to `prefetch` (scripts/stale_status.py)."""
    return BatchedStaleStatusResolver(instance, graph)


def observe_sources(instance: dg.DagsterInstance, resources: dict, log: Callable[[str], None],
                    resolver: BatchedStaleStatusResolver | None = None,
                    unrecorded: dict | None = None) -> int:
    """Record the current data version of every observable source (assets/sources.py) whose version
    changed, as runless observations (what "Observe sources" records in the UI, without a run; an unchanged
    version adds no event). Returns the number of observations recorded. The current versions are read with
    `resolver` (a fresh one if none is given): when nothing was recorded, the caller may go on using it. With
    `unrecorded` ((asset key, partition) -> version, as `materialize_everything`'s `execute.unrecorded`), the new
    versions go there and to `resolver` instead of the event log, which keeps the resolver's reads true."""
    from assets.sources import VERSIONS, current_versions, observation
    from definitions import defs

    resolver = resolver or stale_status_resolver(instance, defs.resolve_asset_graph())
    resolver.prefetch(dg.AssetKey(name) for name in VERSIONS)
    recorded = 0
    for key, partition, version in current_versions(resources):
        if resolver.get_current_data_version(key, partition).value != version:
            if unrecorded is None:
                instance.report_runless_asset_event(observation(key, partition, version))
            else:
                unrecorded[(key, partition)] = version
            recorded += 1
    if unrecorded is not None:
        resolver.see_unrecorded(unrecorded)
    if recorded:
        log(f"inputs: {recorded} new data versions of registry entries or files")
    return recorded


def materialize_everything(instance: dg.DagsterInstance, resources: dict,
                           log: Callable[[str], None] = lambda _msg: None, log_level: str = "INFO",
                           force: bool = False, asset_config: dict[str, dict] | None = None,
                           workers: int | None = None, observed_inputs: dict | None = None,
                           parallel_runs: int | None = None, scope: Scope | None = None,
                           only: Collection[str] | None = None,
                           execute: Callable[[dict], dict] | None = None,
                           launched_by: str | None = None) -> dict:
    """Run every asset partition that is missing or stale (every one with ``force``) for every registered
    partition; return counts of runs, calls, up-to-date asset partitions and failed checks, and the registry
    entries that were refused.

    `log_level` is the console level of the runs: INFO shows our progress lines, not Dagster's
    per-event DEBUG lines (the UI keeps every event either way). `asset_config` is run config by asset name
    (e.g. another dataset path for `creation_items`), applied to every run that materializes that asset.
    `workers` is how many step processes a run may use at once (default: `default_workers()`).
    `observed_inputs` are the resources whose inputs (registry, dataset files, drop folders) are observed,
    when they are not `resources`' own: a copy of a home (scripts/plan.py) observes the original's, so a drop
    folder copied elsewhere does not look changed.
    `parallel_runs` is how many runs of one stage may run at once (default: `default_parallel_runs`).
    `scope` (benchwright/scope.py; default: everything) keeps the run to some benchmarks' assets, some candidates'
    partitions and some judges' (or panels'): assets of no benchmark (the ledger, the snapshot) still run when stale,
    and an unpartitioned asset that asks every model or judge at once (URS's cross-validation grid) waits for a run
    scoped by benchmark only. Its `limit` adds run config keeping the first N items of each benchmark; the caller
    points `resources` at a limited home for that (scripts/scope.py): on any other warehouse it raises ValueError.
    `only` (asset names) limits the job to those assets, each run without separate check steps (the checks an
    asset computes itself stay): `dev.py plan` runs only what calls models and what that reads.
    `execute` runs one planned run (its `keys`, `partition_key` and `run_config`) in place of a Dagster run and
    returns what `_outcome` returns: `dev.py plan` calls the asset functions directly (scripts/plan.py). When it
    writes no materialization to the event log, its `unrecorded` attribute maps each (asset key, partition or
    None) it materialized to the new data version, which the staleness of the next stages takes as recorded; the
    sources' new versions are then kept there too, not written.
    `launched_by` (run | demo | plan: the dev.py command) is the value of every run's `LAUNCHED_BY_TAG`, which the
    UI's Runs page filters by.
    A refused entry of the providers' limits raises `ProviderEntriesRefused`, listing every fault, before anything runs.
    """
    scope = scope or Scope()
    if scope.limit is not None:
        warehouse_folder = Path(resources["warehouse"].database).resolve().parent
        if not is_limited_home(warehouse_folder, scope.limit):  # partial results must never land among full ones
            raise ValueError(f"a run limited to {scope.limit} items writes to a limited home (<home>/limited/"
                             f"{scope.limit}/, scripts/scope.py), not to the warehouse in {warehouse_folder}")
    providers_path = getattr(resources["llm"], "providers_path", "")
    if providers_path:  # a refused provider entry stops the job here, every fault listed (ProviderEntriesRefused)
        checked_providers(providers_path)
    from definitions import defs

    restart_forkserver_on_new_environment()  # step processes are forked from it too
    workers = workers or default_workers()
    run_config = {"loggers": {"console": {"config": {"log_level": log_level}}},
                  "execution": {"config": {"step_processes": workers}},
                  "resources": resources_config(resources)}
    parallel_runs = parallel_runs or default_parallel_runs(resources["registry"])
    job = asset_job()
    for run_id in fail_orphaned_runs(instance):  # a run killed earlier must not hold anything up
        log(f"run {run_id} was left in progress by a process that is gone: marked failed")
    if scope.limit is not None:
        full_home = Path(resources["warehouse"].database).resolve().parent.parents[1]  # <full home>/limited/<limit>
        asset_config = {**limited_asset_config(scope.limit, full_home), **(asset_config or {})}
    models, judges = sync_partitions(instance, resources["registry"], log)
    panels = scope.pick("judges", [e.slug for e in resources["registry"].panels()])
    models, judges = scope.pick("models", models), scope.pick("judges", judges)
    if scope.narrowed:
        log(f"scope: {scope.describe()}")
    # Repeated at the end of the main job's output, where a user reads it, not only among the first lines.
    registry_problems = [str(problem) for problem in resources["registry"].problems()]
    partition_keys = {
        None: [None],
        models_partitions: models,
        judges_partitions: judges,  # canary_judgments (assets/canaries.py)
        model_judge_partitions: [dg.MultiPartitionKey({"model": m, "judge": j}) for m in models for j in judges],
        model_panel_partitions: [dg.MultiPartitionKey({"model": m, "judge": p}) for m in models for p in panels],
    }
    graph = defs.resolve_asset_graph()
    ask_again = failed_calls if getattr(resources["llm"], "retry_given_up", False) else calls_to_ask_again
    summary = {"runs": 0, "failed_runs": 0, "api_calls": 0, "cache_hits": 0, "failed_calls": 0, "given_up": 0,
               "not_sent": 0, "budgets": [],  # requests a reached budget kept back (llm/budget.py), its messages
               "all_calls_failed": [], "asked_again": 0, "failed_checks": 0, "check_failures": [],
               "checks": [], "registry_problems": registry_problems, "up_to_date": 0, "materialized": [],
               "run_ids": [], "out_of_scope": [],
               "refused_records": {}}  # asset -> records its loader or import refused (files still read)
    calling = set(llm_asset_keys())
    outside = out_of_scope(graph, scope, calling)
    benchmarks = known_benchmarks()
    # (runs recorded when it was made, resolver): what a resolver read stays true until the event log changes.
    resolvers: list[tuple[int, BatchedStaleStatusResolver]] = [(0, stale_status_resolver(instance, graph))]
    # What an `execute` that records no event materialized (asset, partition) -> data version, if it says so; the
    # sources' new versions go there too.
    unrecorded = getattr(execute, "unrecorded", None)
    if observe_sources(instance, observed_inputs or resources, log, resolvers[0][1], unrecorded) and unrecorded is None:
        resolvers.clear()  # new observations: the sources' readers must see them
    # The refusals are also a check on registry_labels (checks/registry.py), recorded without a run like the sources.
    registry_check = report_registry_check(instance, resources["registry"])
    summary["checks"].append({"asset": REGISTRY_CHECK.asset_key.to_user_string(), "check": REGISTRY_CHECK.name,
                              "partition": None, "passed": registry_check.passed, "severity": "ERROR"})
    if not registry_check.passed:
        summary["failed_checks"] += 1
        summary["check_failures"].append(f"ERROR {REGISTRY_CHECK.asset_key.to_user_string()}:{REGISTRY_CHECK.name}")
    ran: set[dg.AssetKey] = set()

    def plan_run(keys: list[str], partitions_def, partition_key) -> dict:
        """What one run is: its assets, partition, tags and run config."""
        ops = {key: {"config": (asset_config or {})[key]} for key in keys if key in (asset_config or {})}
        own_checks = None if only is None else frozenset(
            check for key in keys for check in graph.assets_def_for_key(dg.AssetKey(key)).check_keys
            if check.asset_key == dg.AssetKey(key))
        tags = {} if partition_key is None else partitions_def.get_tags_for_partition_key(str(partition_key))
        if launched_by:
            tags = {**tags, LAUNCHED_BY_TAG: launched_by}
        return {"keys": keys, "partition_key": partition_key, "tags": tags,
                "label": f" [{partition_key}]" if partition_key is not None else "", "own_checks": own_checks,
                "run_config": {**run_config, **({"ops": ops} if ops else {})}}

    def record(planned: dict, outcome: dict) -> None:
        outcome = {**planned, **outcome}
        if not outcome["success"]:
            log(f"  run failed: {', '.join(outcome['keys'])}{outcome['label']}")
        summary["runs"] += 1
        summary["run_ids"].append(outcome["run_id"])
        summary["failed_runs"] += 0 if outcome["success"] else 1
        summary["materialized"] += [(key, outcome["partition_key"]) for key in outcome["keys"]]
        summary["api_calls"] += outcome["api_calls"]
        summary["cache_hits"] += outcome["cache_hits"]
        for asset, count in outcome.get("refused_records", {}).items():
            summary["refused_records"][asset] = summary["refused_records"].get(asset, 0) + count
        summary["failed_calls"] += outcome["failed_calls"]
        summary["given_up"] += outcome["given_up"]
        summary["not_sent"] += outcome.get("not_sent", 0)
        summary["budgets"] += [f"{line}{outcome['label']}" for line in outcome.get("budgets", [])]
        summary["all_calls_failed"] += [f"{key}{outcome['label']}" for key in outcome["all_failed"]]
        for asset, check, passed, severity in outcome["checks"]:
            summary["checks"].append({"asset": asset, "check": check, "partition": outcome["partition_key"],
                                      "passed": passed, "severity": severity})
            if not passed:
                summary["failed_checks"] += 1
                summary["check_failures"].append(f"{severity} {asset}:{check}{outcome['label']}")

    def run_pending(pending: list[tuple], pool: ProcessPoolExecutor | None, name: str) -> None:
        """Runs of one stage (or of its second look): one at a time in this process, or with a pool up to
        `parallel_runs` at once, this process running one of them (`share_runs`) and the pool's processes the
        others; recorded in the order they were planned either way. In a terminal a bar counts them, with an ETA
        (benchwright.progress_bars; nothing otherwise)."""
        planned = [plan_run(*run) for run in pending]
        nonlocal pool_ready
        if pool is not None and execute is None and planned and pool_ready is None:
            pool_ready = warm_up(pool, parallel_runs - 1, job)
        for run in planned:
            log(f"materializing {', '.join(run['keys'])}{run['label']}")

        def here(index: int) -> dict:
            run = planned[index]
            return stop_if_interrupted(_execute_on(instance, job, run["run_config"], run["tags"], run["keys"],
                                                   run["own_checks"]))

        with progress_bars.bar(len(planned), name, "run") as shown:
            if execute is not None:
                for run in planned:
                    record(run, execute(run))
                    shown.update()
                return
            if pool is None or len(planned) <= 1:
                for index, run in enumerate(planned):
                    with held_between_sections():
                        record(run, here(index))
                    shown.update()
                return

            instance_ref = instance.get_ref()  # read here: the slots' threads touch nothing of this process's runs

            def in_pool(index: int) -> dict:
                run = planned[index]
                return stop_if_interrupted(pool.submit(execute_run, instance_ref, job, run["run_config"], run["tags"],
                                                       run["keys"], run["own_checks"]).result())

            def done(index: int, outcome: dict) -> None:
                record(planned[index], outcome)
                shown.update()

            share_runs(len(planned), here, in_pool, parallel_runs - 1, pool_ready, done, lambda: interrupt_pool(pool))

    def stop_if_interrupted(outcome: dict) -> dict:
        """A run that Ctrl-C or `kill` interrupted ends the job (`JobInterrupted`): Dagster fails that run and
        would let the next one start. What the runs before it wrote stays, and the calls answered are in the LLM
        cache: the same command goes on from there."""
        if outcome.get("interrupted"):
            raise JobInterrupted(f"run {outcome['run_id']} was interrupted")
        return outcome

    def needs_run(key: dg.AssetKey, partition_key, resolver: BatchedStaleStatusResolver) -> bool:
        if force or resolver.get_status(key, partition_key) != StaleStatus.FRESH:
            return True
        # Fresh to Dagster, but its last run left failed calls that are not given up (with the LLM resource's
        # `retry_given_up`, `--retry-given-up`: any failed calls): ask them again (benchwright/llm/failures.py; the
        # cache serves everything else).
        if key in calling and ask_again(resolver.latest_materialization_metadata(key, partition_key)):
            summary["asked_again"] += 1
            return True
        # An unpartitioned asset also runs after any of its parents ran in this job: its data version in
        # Dagster does not always change with a partitioned parent's (and past 100 upstream partitions Dagster
        # stops comparing them), so a reader of all models' judgments could look fresh when it is not. Not after
        # an unpartitioned parent that reports its rows' data version: there the resolver's answer is exact.
        return graph.get(key).partitions_def is None and any(parent in ran and not reports_rows_version(parent, resolver)
                                                             for parent in graph.get(key).parent_keys)

    def reports_rows_version(parent: dg.AssetKey, resolver: BatchedStaleStatusResolver) -> bool:
        """An unpartitioned parent whose data version is its rows' (assets.common.rows_version): the resolver
        already compares it, so a re-run that wrote the same rows leaves its children fresh."""
        return graph.get(parent).partitions_def is None and \
            resolver._is_current_data_version_user_provided(key=AssetKeyPartitionKey(parent, None))

    def current_resolver() -> BatchedStaleStatusResolver:
        """The resolver made since the last run (or observation), or a new one: it caches what it read, which a
        run makes old; with no run in between, the next stage's questions are answered from the same reads. Runs
        that write no event (`execute.unrecorded`) leave those reads true: one resolver serves every stage, told
        what they materialized."""
        if not resolvers or (resolvers[-1][0] != summary["runs"] and unrecorded is None):
            resolvers[:] = [(summary["runs"], stale_status_resolver(instance, graph))]
        if unrecorded is not None:
            resolvers[-1][1].see_unrecorded(unrecorded)
        return resolvers[-1][1]

    def plan_stage(stage: list[dg.AssetKey], among: set | None = None) -> tuple[list[tuple], set, set]:
        """What a stage needs now: (asset names, partitions definition, partition key) of each run, its names in
        dependency order; the (asset, partition) pairs found up to date; and those that wait for this pass's
        runs. A pair waits when a parent in the stage runs and the pair is not stale by itself (Dagster's resolver
        does not call an asset stale because a parent is: after the parent ran it may be), or when a parent in
        the stage waits: its readers are decided after it, so nothing runs twice. `among`: only these pairs are
        looked at (the pairs that waited)."""
        resolver = current_resolver()
        pending: list[tuple] = []
        fresh: set = set()
        waiting: set = set()
        by_partitions: dict = {}
        for key in stage:  # a stage holds only materializable assets (run_stages)
            if key in outside:
                if among is None:
                    summary["out_of_scope"].append(key.to_user_string())
            elif only is None or key.to_user_string() in only:
                by_partitions.setdefault(graph.get(key).partitions_def, []).append(key)
        looked_at = None if among is None else {key for key, _ in among}
        if not force:  # the stage's event-log reads in a few queries per asset, not one per partition and parent
            resolver.prefetch(key for keys in by_partitions.values() for key in keys
                              if looked_at is None or key in looked_at)
        for partitions_def, keys in by_partitions.items():
            if partitions_def not in partition_keys:
                raise ValueError(f"{[k.to_user_string() for k in keys]}: unsupported partitions {partitions_def}; "
                                 "use models, model × judge or model × panel")
            for partition_key in partition_keys[partitions_def]:
                stale: list[dg.AssetKey] = []
                for key in keys:  # parents before readers; a parent in the stage has the same partition key
                    if among is not None and (key, partition_key) not in among:
                        continue
                    parents = graph.get(key).parent_keys
                    if any((parent, partition_key) in waiting for parent in parents):
                        waiting.add((key, partition_key))
                    elif needs_run(key, partition_key, resolver):
                        stale.append(key)
                    elif any(parent in stale for parent in parents):
                        waiting.add((key, partition_key))
                    else:
                        fresh.add((key, partition_key))
                if stale:
                    pending.append((stale, partitions_def, partition_key))
        if pool is not None and execute is None and len(pending) < parallel_runs:
            pending = split_for_the_pool(pending, waiting)
        for keys, _, _ in pending:
            ran.update(keys)
        return [([key.to_user_string() for key in keys], partitions_def, partition_key)
                for keys, partitions_def, partition_key in pending], fresh, waiting

    def split_for_the_pool(pending: list[tuple], waiting: set) -> list[tuple]:
        """Fewer runs than may go at once (a stage of one run: the datasets, the metrics): each split where its
        assets are independent (`independent_runs`); the assets that wait for those parts join `waiting`."""
        split = []
        for keys, partitions_def, partition_key in pending:
            parts, later = independent_runs(keys, graph, benchmarks)
            waiting.update((key, partition_key) for key in later)
            split += [(part, partitions_def, partition_key) for part in parts]
        return split

    def run_stage(stage: list[dg.AssetKey], name: str) -> None:
        """A stage's runs, then the pairs that waited for them, looked at again (and so on down the stage's
        chains): each asset partition runs at most once, after every parent that runs, as by levels."""
        pending, up_to_date, waiting = plan_stage(stage)
        while pending:
            run_pending(pending, pool, name)
            if not waiting:
                break
            pending, fresh, waiting = plan_stage(stage, among=waiting)
            up_to_date |= fresh
        summary["up_to_date"] += len(up_to_date)

    # A pool only when runs may go in parallel and the instance can be reopened in another process (a
    # persistent one: DagsterInstance.get(), a test instance; not an ephemeral one).
    # This process runs one of the runs at once itself, the pool the others (`share_runs`).
    pool = run_pool(parallel_runs - 1, calls_providers(resources["registry"])) \
        if parallel_runs > 1 and not instance.is_ephemeral else None
    # The pool's processes are started at the first run (a job with nothing to run starts none); set once one is up.
    pool_ready: threading.Event | None = None

    def held_between_sections():
        """While a run goes alone in this process with every step in it (no run of the pool is in flight then),
        its warehouse sections share one connection (resources/warehouse.py `held_between`: a cold demo has ≈ 670
        sections, each attach and detach ≈ 8 ms); with step processes, others open the file meanwhile."""
        from resources.warehouse import Warehouse

        if workers == 1 and isinstance(resources.get("warehouse"), Warehouse):
            return Warehouse.held_between(resources["warehouse"].database)
        return contextlib.nullcontext()
    try:
        stages = run_stages(graph)
        for number, stage in enumerate(stages, 1):
            run_stage(stage, f"stage {number}/{len(stages)}")
    finally:
        if pool is not None:
            pool.shutdown()
    log(f"{summary['runs']} runs; {summary['up_to_date']} asset partitions were up to date and not run"
        + (f"; {summary['asked_again']} ran again to ask their failed calls again" if summary["asked_again"] else ""))
    return summary
