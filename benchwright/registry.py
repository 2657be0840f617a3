"""The model and judge registry (`registry/models.yaml`, `registry/judges.yaml`): config as code.

Each file maps a slug to an entry:

    sim-strong:
      model: sim/strong-writer        # litellm model string; sim/... = offline simulator
      display_name: Strong writer
      role: candidate                 # models: candidate | baseline | describer; judges: judge
      vision: true                    # false = text-only model (gets image descriptions)
      api_base: null                  # e.g. http://localhost:8000/v1 for vLLM/Ollama
      params: {temperature: 0.7}      # generation parameters (part of the cache key)
      max_concurrency: 8              # optional per-model limits (within one run)
      rpm: null
      batch: false                    # true = misses go through the provider's batch API (cheaper, slower)
      provider: null                  # whose limits the calls count against (registry/providers.yaml);
                                      # default: litellm's provider of `model` (openai, anthropic...)

`registry/providers.yaml` (`load_providers`) holds each provider's limits, which hold across every process
and run of a home (`benchwright.llm.providers`):

    openai:
      max_in_flight: 32               # calls in flight at once (default 16)
      rpm: 5000                       # requests per minute (default: no limit)
      tpm: 2000000                    # tokens per minute, prompt + completion (default: no limit)

A refused providers.yaml entry does not fall back to the defaults (which could be far above the account's
limits): every fault of it is a problem of its own (field and line), the main job stops before its first run
(`checked_providers`, `ProviderEntriesRefused`), and the runner calls no model of that provider.

Slugs are Dagster partition keys and must never be edited to mean something else: a changed model
or parameter set gets a new slug, so results never silently mix. A malformed entry is reported as a
`RegistryProblem` naming the file and the entry; the other entries still load. Malformed means: a
slug defined twice in one file (YAML would silently keep the last; here neither loads), no `role`,
a `vision` or `batch` that is not a boolean (`'false'` is a string, and would have meant true), `params` that
are not plain JSON values (a YAML date would fail every run later; a number as a key would silently
become a string), a `display_name` that is not text, unknown fields, a bad or reserved slug. YAML
anchors and merge keys (`<<: *shared`) work as usual: a mapping's own keys override merged ones.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

import yaml

from benchwright.llm.providers import DEFAULT_MAX_IN_FLIGHT, SIM_PROVIDER, ProviderEntriesRefused, ProviderLimits

SLUG_RE = re.compile(r"^[a-z0-9._-]+$")
MODEL_ROLES = {"candidate", "baseline", "describer"}
JUDGE_ROLES = {"judge"}
# Words the tables use in a model column for something that is not a model: the margin over all models
# ('all'), a reference answer the dataset wrote ('dataset'), the anchor of pooled baselines ('baseline').
RESERVED_SLUGS = {"all", "baseline", "dataset"}
_KNOWN_FIELDS = {"model", "display_name", "role", "vision", "api_base", "params", "max_concurrency", "rpm",
                 "batch", "provider"}
PROVIDER_FIELDS = {"max_in_flight", "rpm", "tpm"}


@dataclass(frozen=True)
class RegistryEntry:
    slug: str
    model: str
    display_name: str
    role: str
    vision: bool = True
    api_base: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    max_concurrency: int | None = None
    rpm: int | None = None
    batch: bool = False  # answered through the provider's batch API (benchwright.llm.runner.ModelLimits)
    provider: str | None = None

    @property
    def simulated(self) -> bool:
        return self.model.startswith("sim/")

    @property
    def version(self) -> str:
        """A short hash of every field: what a run of this entry depends on (its data version in Dagster)."""
        fields = dataclasses.asdict(self)
        # How the answers are fetched, not what they are (batch or live, whose limits they count against; the
        # cache keys are the same): a switch of either must not make the entry's results stale.
        del fields["batch"], fields["provider"]
        text = json.dumps(fields, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        """Display name, marked when the model is a simulation so no one mistakes it for a real one."""
        return f"{self.display_name} [simulated]" if self.simulated else self.display_name


@dataclass(frozen=True)
class RegistryProblem:
    file: str
    entry: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: entry {self.entry!r}: {self.reason}"


class EntryFaults(ValueError):
    """Every fault of one entry, each with the field it is in, so that each is reported (as a problem of its
    own, at the field's line) and fixing one does not reveal the next."""

    def __init__(self, faults: list[tuple[str | None, str]]):
        super().__init__("; ".join(reason for _, reason in faults))
        self.faults = faults


def validate_slug(slug: object) -> str | None:
    """Return why `slug` is not a valid partition key, or None when it is."""
    if not isinstance(slug, str) or not slug:
        return "slug must be a non-empty string"
    if not SLUG_RE.match(slug):
        return f"slug {slug!r} must match [a-z0-9._-]+ (lower case, digits, '.', '_', '-')"
    if "..." in slug:
        return "slug must not contain '...'"
    if slug in RESERVED_SLUGS:
        return f"slug {slug!r} is reserved: the tables use it for something that is not a model"
    return None


def checked_fields(raw: Any, known: set[str]) -> dict:
    """An entry's fields, refused when it is not a mapping or names a field not in `known` (a YAML error
    found while reading the file arrives here as the ValueError to raise)."""
    if isinstance(raw, ValueError):
        raise raw
    if not isinstance(raw, dict):
        raise ValueError("entry must be a mapping of fields")
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}; known: {sorted(known)}")
    return raw


def display_name_of(raw: dict, slug: str) -> str:
    """The entry's `display_name`, text when given; its slug otherwise."""
    display_name = raw.get("display_name")
    if display_name is not None and (not isinstance(display_name, str) or not display_name.strip()):
        raise ValueError(f"'display_name' must be text, not {display_name!r} (quote it)")
    return display_name or slug


def _parse_entry(slug: str, raw: Any, allowed_roles: set[str]) -> RegistryEntry:
    raw = checked_fields(raw, _KNOWN_FIELDS)
    model = raw.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ValueError("'model' (the litellm model string) is required")
    if "role" not in raw:
        raise ValueError(f"'role' is required (one of {sorted(allowed_roles)})")
    role = raw["role"]
    if role not in allowed_roles:
        raise ValueError(f"role {role!r} is not one of {sorted(allowed_roles)}")
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise ValueError("'params' must be a mapping")
    for key in ("api_key", "api-key", "key", "token"):
        if key in params:
            raise ValueError("API keys never go in the registry: set them in the environment")
    try:  # params are part of the request and its cache key: plain JSON values only
        plain = json.loads(json.dumps(params, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"'params' must hold plain JSON values (strings, numbers, booleans, lists, "
                         f"mappings): {exc}") from None
    if plain != params:  # json.dumps turns a key 1 or true into "1" or "true" without a word
        raise ValueError("'params' must hold plain JSON values: every key of a mapping must be a string")
    display_name = display_name_of(raw, slug)
    for name in ("vision", "batch"):
        if name in raw and not isinstance(raw[name], bool):
            raise ValueError(f"'{name}' must be true or false, not {raw[name]!r}")
    for name in ("max_concurrency", "rpm"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"'{name}' must be a positive integer")
    api_base = raw.get("api_base")
    if api_base is not None and not isinstance(api_base, str):
        raise ValueError("'api_base' must be a URL string")
    provider = raw.get("provider")
    if provider is not None and (not isinstance(provider, str) or validate_slug(provider)):
        raise ValueError(f"'provider' must be a name like the keys of providers.yaml ([a-z0-9._-]+), not {provider!r}")
    return RegistryEntry(
        slug=slug,
        model=model.strip(),
        display_name=display_name,
        role=role,
        vision=raw.get("vision", True),
        api_base=api_base,
        params=dict(params),
        max_concurrency=raw.get("max_concurrency"),
        rpm=raw.get("rpm"),
        batch=raw.get("batch", False),
        provider=provider,
    )


def _parse_provider(name: str, raw: Any) -> ProviderLimits:
    """A provider's limits; every fault of the entry (unknown fields, values that are not positive integers)
    at once, as `EntryFaults`."""
    if isinstance(raw, ValueError):
        raise raw
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise ValueError("entry must be a mapping of fields")
    faults: list[tuple[str | None, str]] = []
    for key, value in raw.items():
        if key not in PROVIDER_FIELDS:
            faults.append((key, f"unknown field {key!r}; known: {sorted(PROVIDER_FIELDS)}"))
        elif value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            faults.append((key, f"'{key}' must be a positive integer, not {value!r}"))
    if faults:
        raise EntryFaults(faults)
    return ProviderLimits(max_in_flight=raw.get("max_in_flight") or DEFAULT_MAX_IN_FLIGHT,
                          rpm=raw.get("rpm"), tpm=raw.get("tpm"))


def load_providers(path: str | Path) -> tuple[dict[str, ProviderLimits], list[RegistryProblem]]:
    """Each provider's limits from `providers.yaml` (name: max_in_flight, rpm, tpm). No file: no provider has
    limits of its own (each gets the defaults of `ProviderLimits`). A refused entry is not in the limits: each
    of its faults is a problem (its field and line), and its provider is refused (`ProviderEntriesRefused`):
    the main job does not start, and the runner calls no model of that provider, rather than calling it at the
    defaults. `sim` (the simulator) is never limited and cannot be given limits."""
    if not Path(path).exists():
        return {}, []

    def parse(name: str, raw: Any) -> tuple[str, ProviderLimits]:
        if name == SIM_PROVIDER:
            raise ValueError("the simulator ('sim') answers in-process and has no limits")
        return name, _parse_provider(name, raw)

    entries, problems = load_entries(path, parse)
    return dict(entries), problems


def checked_providers(path: str | Path) -> dict[str, ProviderLimits]:
    """The providers' limits of `path`, or `ProviderEntriesRefused` listing every fault when any entry is refused."""
    limits, problems = load_providers(path)
    if problems:
        raise ProviderEntriesRefused(refused_providers(problems))
    return limits


def refused_providers(problems: list[RegistryProblem]) -> dict[str, list[str]]:
    """The providers that providers.yaml's problems refuse, each with its faults (file, entry, field, line)."""
    refused: dict[str, list[str]] = {}
    for problem in problems:
        refused.setdefault(problem.entry, []).append(str(problem))
    return refused


T = TypeVar("T")


def load_registry(path: str | Path, kind: str) -> tuple[list[RegistryEntry], list[RegistryProblem]]:
    """Load `models` or `judges` registry entries; bad entries become problems, not exceptions.

    A file that is missing or is not YAML at all raises, because then nothing can be trusted.
    """
    if kind not in ("models", "judges"):
        raise ValueError(f"kind must be 'models' or 'judges', not {kind!r}")
    allowed_roles = MODEL_ROLES if kind == "models" else JUDGE_ROLES
    return load_entries(path, lambda slug, raw: _parse_entry(slug, raw, allowed_roles))


def load_entries(path: str | Path, parse: Callable[[str, Any], T]) -> tuple[list[T], list[RegistryProblem]]:
    """The entries of a registry-like YAML file (slug: fields), each made by `parse`; an entry that cannot
    be (bad slug, a slug defined twice, `parse` raising ValueError) is a problem with its line, not an
    exception. A file that is missing or is not a YAML mapping raises."""
    path = Path(path)
    try:
        pairs = top_level_pairs(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    if pairs is None:
        return [], []
    lines_by_slug: dict[Any, list[int]] = {}
    for slug, line, _, _ in pairs:
        lines_by_slug.setdefault(slug, []).append(line)
    entries: list[T] = []
    problems: list[RegistryProblem] = []
    for slug, line, raw, field_lines in pairs:
        lines = lines_by_slug[slug]
        if len(lines) > 1:
            if line == lines[0]:  # one problem per duplicated slug
                problems.append(RegistryProblem(file=str(path), entry=str(slug), reason=(
                    f"defined {len(lines)} times (lines {', '.join(map(str, lines))}); neither entry is loaded: "
                    "give each entry its own slug")))
            continue
        reason = validate_slug(slug)
        if reason is None:
            try:
                entries.append(parse(slug, raw))
                continue
            except EntryFaults as exc:
                problems += [RegistryProblem(file=str(path), entry=str(slug),
                                             reason=f"{reason} (line {field_lines.get(key, line)})")
                             for key, reason in exc.faults]
                continue
            except ValueError as exc:
                reason = str(exc)
        problems.append(RegistryProblem(file=str(path), entry=str(slug), reason=f"{reason} (line {line})"))
    return entries, problems


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *anchor` merges on purpose; SafeLoader lets the mapping's own keys win
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.setdefault(key, line)
            except TypeError:
                continue  # an unhashable key: SafeLoader refuses it below
            if first != line:
                raise ValueError(f"field {key!r} given twice (lines {first} and {line})")
        return super().construct_mapping(node, deep=deep)


def top_level_pairs(text: str) -> list[tuple[Any, int, Any, dict[Any, int]]] | None:
    """(slug, line, entry, line of each of the entry's fields) for each top-level key, duplicates included, in
    file order; None for an empty file.

    An entry that cannot be built (a duplicated field inside it) becomes the exception in its place, so
    that it is reported as that entry's problem while the others load.
    """
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        if not isinstance(root, yaml.MappingNode):
            raise ValueError("expected a mapping of slug -> entry at the top level")
        pairs = []
        for key_node, value_node in root.value:
            slug = loader.construct_object(key_node, deep=True)
            if not isinstance(slug, Hashable):  # `[a, b]: ...`: reported as a bad slug, not a crash
                slug = str(slug)
            try:
                raw = loader.construct_object(value_node, deep=True)
            except ValueError as exc:
                raw = exc
            except yaml.YAMLError as exc:  # e.g. an unhashable key inside the entry
                raw = ValueError(f"not valid YAML here: {getattr(exc, 'problem', None) or exc}")
            field_lines = {}
            if isinstance(value_node, yaml.MappingNode):
                for field_node, _ in value_node.value:
                    if isinstance(field_node, yaml.ScalarNode):
                        field_lines.setdefault(field_node.value, field_node.start_mark.line + 1)
            pairs.append((slug, key_node.start_mark.line + 1, raw, field_lines))
        return pairs
    finally:
        loader.dispose()
