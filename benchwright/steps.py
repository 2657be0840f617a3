"""The one step shape every benchmark uses: plan requests, run them (the caller's LLM client), turn
the results into rows.

A ``Plan`` is one request and where its answer goes: the item it answers (``item_id``), the variant
and sample (generations), the texts a judge was shown (its parser sets echoes of them aside, see
``benchwright.judging``), and ``row``: the other key columns the result's row carries (a judgment's
``judge_order``, a turn's ``chat_id``...). Plans are built by each benchmark's ``steps`` module from
warehouse rows; ``generation_rows`` is the one builder of the shared ``generations`` table.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from benchwright.llm import LLMRequest, LLMResult, ModelLimits
from benchwright.registry import RegistryEntry


@dataclass(frozen=True)
class Plan:
    """One request to make and what its answer will be a row of."""

    item_id: str
    request: LLMRequest
    variant: str = "vision"
    shown: tuple[str, ...] = ()  # the texts a judge was shown: its parser skips echoes of them
    row: Mapping[str, Any] = field(default_factory=dict)  # further key columns of the result's row


def request_for(entry: RegistryEntry, messages: list[dict], prompt_version: str, tag: str,
                sample_index: int = 0) -> LLMRequest:
    """The request a registry entry makes with these messages (its params and API base)."""
    return LLMRequest(model=entry.model, messages=messages, params=dict(entry.params), prompt_version=prompt_version,
                      sample_index=sample_index, api_base=entry.api_base, tag=tag)


def limits_for(entries: Iterable[RegistryEntry]) -> dict[str, ModelLimits]:
    """Per-model limits from the registry: the provider the entry names, and whether the model is called
    through its provider's batch API; models without their own use the client's default (and their model
    string's provider)."""
    limits = {}
    for entry in entries:
        if entry.max_concurrency or entry.rpm or entry.provider or entry.batch or entry.budget_usd is not None:
            limits[entry.model] = ModelLimits(max_concurrency=entry.max_concurrency or 8, rpm=entry.rpm,
                                              provider=entry.provider, batch=entry.batch,
                                              budget_usd=entry.budget_usd,
                                              budget_name=None if entry.budget_usd is None else entry.slug)
    return limits


def images_of(item: Mapping[str, Any], image_urls: Mapping[str, Any]) -> list[Any]:
    """An item's images (``image_hashes``) as its messages show them: ImageRefs (read and encoded only as a
    request is sent, see ``benchwright.llm.request.sendable``) or data URLs."""
    return [image_urls[h] for h in item["image_hashes"]]


GENERATION_COLUMNS = ["benchmark", "model", "item_id", "variant", "sample_index", "response", "error", "request_key",
                      "prompt_version", "tokens_in", "tokens_out", "latency_ms", "cost_usd", "pii_redactions",
                      "injection_kinds", "simulated"]


def generation_rows(benchmark: str, model: RegistryEntry, plan: Sequence[Plan],
                    results: Sequence[LLMResult]) -> pd.DataFrame:
    """Rows of the shared ``generations`` table: one per planned answer, failed calls included.

    ``injection_kinds`` is left empty here: it is filled where answers are stored
    (``assets.common.store_generations``), by ``benchwright.answer_injection``, which knows every
    benchmark's judge formats and so sits above the benchmark packages, not in this kernel."""
    return pd.DataFrame(
        [{"benchmark": benchmark, "model": model.slug, "item_id": p.item_id, "variant": p.variant,
          "sample_index": p.request.sample_index, "response": r.text, "error": r.error, "request_key": r.key,
          "prompt_version": p.request.prompt_version, "tokens_in": r.tokens_in, "tokens_out": r.tokens_out,
          "latency_ms": r.latency_ms, "cost_usd": r.cost_usd, "pii_redactions": r.pii_redactions,
          "injection_kinds": None, "simulated": model.simulated}
         for p, r in zip(plan, results, strict=True)],
        columns=GENERATION_COLUMNS)


def method_versions(modules: Iterable[ModuleType]) -> dict[str, str]:
    """The benchmark packages these modules belong to, with their ``METHOD_VERSION``: package name -> version.

    A module belongs to the nearest package above it (or itself, for a package) that declares
    ``METHOD_VERSION``: ``benchwright.mmmt_if.instruction_following.text`` to ``benchwright.mmmt_if``. Kernel
    modules belong to none. A plugin's package takes part the same way by declaring the name."""
    found = {}
    for module in modules:
        name = module.__name__
        while name:
            package = module if name == module.__name__ else sys.modules.get(name)
            version = getattr(package, "METHOD_VERSION", None)
            if version is not None:
                found[name] = str(version)
                break
            name = name.rpartition(".")[0]
    return found


def prompt_code_version(prompt_version: str, module: ModuleType) -> str:
    """The code version of an asset that calls models: its prompt version (what the cache keys carry, so a
    prompt change is a new request) and, after a ``+``, the method version of the benchmark ``module``
    (its prompts module) belongs to: ``creation-pairwise-v1+method1``. Raising the method version re-runs
    the asset from the cache (the requests are unchanged): its answers are re-read by today's parsers."""
    versions = method_versions([module])
    return prompt_version + "".join(f"+method{v}" for _, v in sorted(versions.items()))


def code_version(*modules: ModuleType, prompt_version: str = "", files: Iterable[Path] = ()) -> str:
    """A Dagster code version that changes whenever the logic behind an asset does: a short hash of the
    source of the modules that compute it, of the files it applies (SQL), of its prompt version for
    assets that call models, and of the ``METHOD_VERSION`` of each benchmark package those modules belong
    to (``method_versions``), so raising a benchmark's method version makes every asset computed by its
    modules stale, and no other benchmark's. Any edit of those makes the asset stale in Dagster's eyes;
    nothing else does. An asset of kernel modules only hashes exactly what it did before method versions."""
    digest = hashlib.sha256(prompt_version.encode("utf-8"))
    for module in modules:
        digest.update(inspect.getsource(module).encode("utf-8"))
    for path in files:
        digest.update(Path(path).read_bytes())
    for package, version in sorted(method_versions(modules).items()):
        digest.update(f"\0method {package}={version}".encode("utf-8"))
    return (prompt_version + "+" if prompt_version else "") + digest.hexdigest()[:12]
