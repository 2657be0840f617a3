"""The model and judge registry (`registry/models.yaml`, `registry/judges.yaml`): config as code.

Each file maps a slug to an entry:

    sim-strong:
      model: sim/strong-writer        # litellm model string; sim/... = offline simulator
      display_name: Strong writer
      role: candidate                 # models: candidate | baseline | describer | canary; judges: judge
      vision: true                    # false = text-only model (gets image descriptions)
      api_base: null                  # e.g. http://localhost:8000/v1 for vLLM/Ollama
      params: {temperature: 0.7}      # generation parameters (part of the cache key)
      max_concurrency: 8              # optional per-model limits (within one run)
      rpm: null
      batch: false                    # true = misses go through the provider's batch API (cheaper, slower)
      provider: null                  # whose limits the calls count against (registry/providers.yaml);
                                      # default: litellm's provider of `model` (openai, anthropic...)
      family: null                    # who made the model, for judge self-preference (benchwright/families.py);
                                      # default: derived from `model` (gpt → openai, claude → anthropic,
                                      # sim/x → sim:x); not part of the entry's version
      budget_usd: null                # USD its calls may cost in this home, over every run (llm/budget.py)

`registry/providers.yaml` (`load_providers`) holds each provider's limits, which hold across every process
and run of a home (`benchwright.llm.providers`):

    openai:
      max_in_flight: 32               # calls in flight at once (default 16)
      rpm: 5000                       # requests per minute (default: no limit)
      tpm: 2000000                    # tokens per minute, prompt + completion (default: no limit)

A refused providers.yaml entry does not fall back to the defaults (which could be far above the account's
limits): every fault of it is a problem of its own (field and line), the main job stops before its first run
(`checked_providers`, `ProviderEntriesRefused`), and the runner calls no model of that provider.

A `role: canary` entry is an integrity canary (benchwright/canaries.py): `model: canary/<kind>` names its fixed
answer (constant, injection, style, blind), and it takes no other field but `display_name`; it is never a
candidate, and no other role may name a `canary/` model.

Slugs are Dagster partition keys and must never be edited to mean something else: a changed model
or parameter set gets a new slug, so results never silently mix. A malformed entry is reported as a
`RegistryProblem` naming the file, the entry, the key at fault (`field`: `params.released`, `vision`; none when
the entry as a whole is refused, as for a bad slug) and that key's line (else the entry's); the other entries
still load.
Malformed means: a slug defined twice in one file (YAML would silently keep the last; here neither loads),
no `role`, a `vision` or `batch` that is not a boolean (`'false'` is a string, and would have meant true), a
`max_concurrency` or `rpm` that is not a positive integer (`true` is not 1), `params` that are not plain
JSON values (a YAML date would fail every run later; a number as a key would silently become a string),
`params` that hold a credential (a field such as `api_key`, a header such as `extra_headers.Authorization`,
`x-api-key` or a cookie, or a value that looks like a bearer token or an API key: keys come from the
environment), a simulated model's behaviour setting (`skill`, `position_bias` ...) that is not a number in its
range, a `budget_usd` that is not a number ≥ 0, an `api_base` that is not an http(s) URL with a host (or
carries a password or a key), a `provider` that is neither defined in providers.yaml nor one of litellm's providers (its calls would count
against limits nobody wrote down), a `display_name` that is not text, unknown fields, a bad or reserved slug. YAML
anchors and merge keys (`<<: *shared`) work as usual: a mapping's own keys override merged ones.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import functools
import hashlib
import json
import math
import re
import urllib.parse
from collections.abc import Collection, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

import yaml

from benchwright import canaries, families
from benchwright.llm.providers import DEFAULT_MAX_IN_FLIGHT, SIM_PROVIDER, ProviderEntriesRefused, ProviderLimits

SLUG_RE = re.compile(r"^[a-z0-9._-]+$")
CANARY_ROLE = "canary"
MODEL_ROLES = {"candidate", "baseline", "describer", CANARY_ROLE}
# What a canary entry may hold: its answer is fixed, so nothing about calling a model applies.
_CANARY_FIELDS = {"model", "display_name", "role"}
JUDGE_ROLES = {"judge"}
# Words the tables use in a model column for something that is not a model: the margin over all models
# ('all'), a reference answer the dataset wrote ('dataset'), the anchor of pooled baselines ('baseline').
RESERVED_SLUGS = {"all", "baseline", "dataset"}
_KNOWN_FIELDS = {"model", "display_name", "role", "vision", "api_base", "params", "max_concurrency", "rpm",
                 "batch", "provider", "family", "budget_usd"}
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
    family: str | None = None  # the `family:` field as written; None = derived (`family_name`)
    budget_usd: float | None = None  # what its calls may cost in the home, every run together (llm/budget.py)

    @property
    def family_name(self) -> str:
        """The model's family for judge self-preference (benchwright.families): `family:` when given, else
        derived from the model string (gpt → openai, claude → anthropic, a simulation's sim:<name> ...)."""
        return self.family or families.derive_family(self.model, self.params)

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
        # Which family it belongs to is read by the self-preference analysis, not by any run: giving or changing
        # `family:` must not make the entry's answers or judgments stale.
        del fields["family"]
        # Nor its budget: the answers a larger budget adds are the same requests' (the cache fills in).
        del fields["budget_usd"]
        text = json.dumps(fields, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def canary_kind(self) -> str | None:
        """The kind of fixed answer of a `role: canary` entry (benchwright/canaries.py), else None."""
        return canaries.kind_of(self.model) if self.role == CANARY_ROLE else None

    @property
    def label(self) -> str:
        """Display name, marked when the model is a simulation or a canary so no one mistakes it for a real one."""
        if self.role == CANARY_ROLE:
            return f"{self.display_name} [canary]"
        return f"{self.display_name} [simulated]" if self.simulated else self.display_name


@dataclass(frozen=True)
class RegistryProblem:
    file: str
    entry: str
    reason: str
    line: int | None = None
    """The line of the key at fault, else of the entry."""
    field: str | None = None
    """The key at fault as a dotted path (`params.released`, `params.stop[1]`, `vision`); None when the entry as
    a whole is refused (its slug, a slug defined twice, an entry that is not a mapping)."""

    def __str__(self) -> str:
        where = ", ".join(filter(None, (f"line {self.line}" if self.line else "",
                                        f"field {self.field}" if self.field else "")))
        return f"{self.file}: entry {self.entry!r}: {self.reason}" + (f" ({where})" if where else "")


class FieldError(ValueError):
    """An entry refused because of one of its keys: `field` is the key's dotted path under the entry
    (`params.released`), `line` its line when the loader already knows it (a key given twice)."""

    def __init__(self, message: str, field: str | None = None, line: int | None = None):
        super().__init__(message)
        self.field, self.line = field, line


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
    unknown = [name for name in raw if name not in known]
    if unknown:
        raise FieldError(f"unknown field(s) {sorted(map(str, unknown))}; known: {sorted(known)}", str(unknown[0]))
    return raw


def display_name_of(raw: dict, slug: str) -> str:
    """The entry's `display_name`, text when given; its slug otherwise."""
    display_name = raw.get("display_name")
    if display_name is not None and (not isinstance(display_name, str) or not display_name.strip()):
        raise FieldError(f"'display_name' must be text, not {display_name!r} (quote it)", "display_name")
    return display_name or slug


# Names of request headers and parameters that carry a credential (compared in lower case, '_' as '-').
_CREDENTIAL_NAMES = {"authorization", "proxy-authorization", "api-key", "apikey", "x-api-key", "key", "token",
                     "cookie", "set-cookie", "x-goog-api-key", "ocp-apim-subscription-key", "x-auth-token",
                     "access-token", "session-token", "aws-session-token", "aws-secret-access-key"}
_CREDENTIAL_WORDS = ("secret", "password", "credential", "api-key", "apikey", "auth-token", "cookie")
# Where params hold request headers or query/body fields by name (litellm passes them on as they are).
_NAMED_FIELDS = {"extra_headers", "headers", "default_headers", "extra_query", "extra_body"}
# A value that is a credential whatever its field: a bearer token, or a provider key's or a JWT's form.
_CREDENTIAL_VALUE = re.compile(
    r"^\s*bearer\s+\S{8,}\s*$"
    r"|(?<![A-Za-z0-9])(sk-(ant-|proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.)",
    re.IGNORECASE)
# A header's value that is an HTTP authentication scheme and its credentials ("Basic dXNlcjpwYXNz").
_AUTH_HEADER_VALUE = re.compile(r"^\s*(basic|bearer|digest|token|apikey)\s+\S+\s*$", re.IGNORECASE)


def is_credential_name(name: str) -> bool:
    """True for a header or parameter name that carries a credential (Authorization, x-api-key, a cookie...)."""
    normal = name.strip().lower().replace("_", "-")
    return normal in _CREDENTIAL_NAMES or any(word in normal for word in _CREDENTIAL_WORDS)


def credential_in_params(params: dict) -> tuple[str, str] | None:
    """Where `params` hold a credential (``params.extra_headers.Authorization``) and what it is, or None.

    Names are checked at the top level and inside the mappings of headers, query and body fields (a JSON
    schema's property may well be called `token`); values everywhere: a bearer token or a provider key's
    form, and, in headers, any "<scheme> <credentials>"."""
    def found_in(value: Any, where: str, top: bool, fields: bool) -> tuple[str, str] | None:
        if isinstance(value, str):
            pattern_found = _CREDENTIAL_VALUE.search(value) or (fields and _AUTH_HEADER_VALUE.match(value))
            return (where, f"{where} looks like a credential (a bearer token or an API key)") if pattern_found else None
        if isinstance(value, list):
            return next(filter(None, (found_in(v, f"{where}[{i}]", False, False) for i, v in enumerate(value))), None)
        if not isinstance(value, dict):
            return None
        for name, inner in value.items():
            place = f"{where}.{name}"
            if (top or fields) and is_credential_name(str(name)):
                return place, f"{place} is a credential's field"
            # `fields`: this mapping's values are headers (or query / body fields); a mapping below it is not.
            found = found_in(inner, place, False, top and name in _NAMED_FIELDS if isinstance(inner, dict) else fields)
            if found:
                return found
        return None

    return found_in(params, "params", True, False)


def api_base_problem(api_base: Any) -> str | None:
    """Why `api_base` cannot be an endpoint to send prompts to (not an http(s) URL with a host, or a URL that
    carries a credential), or None."""
    if not isinstance(api_base, str) or not api_base.strip():
        return f"must be an http:// or https:// URL, not {api_base!r}"
    # The refusal is shown in the sensor's ticks and the registry check's event: a value that may hold a
    # credential (user info, a query, a key's look) is not repeated there.
    shown = "this value (not shown: it may hold a credential)" if (
        "@" in api_base or "?" in api_base or _CREDENTIAL_VALUE.search(api_base)) else repr(api_base)
    try:
        url = urllib.parse.urlsplit(api_base.strip())
        url.port  # raises on a port that is not a number
    except ValueError as exc:
        return f"{shown} is not a URL ({exc})"
    if url.scheme.lower() not in ("http", "https") or not url.hostname:
        return f"must be an http:// or https:// URL with a host, not {shown}"
    if url.username or url.password:
        return ("holds a user name or password: credentials never go in the registry; set them in the "
                "environment, where litellm reads them")
    for name, _ in urllib.parse.parse_qsl(url.query, keep_blank_values=True):
        if is_credential_name(name):
            return (f"passes {name!r} in its query: credentials never go in the registry; set them in the "
                    "environment, where litellm reads them")
    return None


_LITELLM_PROVIDERS: frozenset[str] | None = None


def litellm_providers() -> frozenset[str]:
    """litellm's own provider names (openai, anthropic, ...), which need no providers.yaml entry. Imports
    litellm (seconds), so it is asked only for a `provider:` that providers.yaml does not define."""
    global _LITELLM_PROVIDERS
    if _LITELLM_PROVIDERS is None:
        from benchwright.llm.litellm_setup import load_litellm

        _LITELLM_PROVIDERS = frozenset(str(getattr(name, "value", name)) for name in load_litellm().provider_list)
    return _LITELLM_PROVIDERS


def provider_names(path: str | Path) -> set[str]:
    """The provider names `providers.yaml` defines (refused ones too: `load_providers` reports those); none
    when there is no file or it cannot be read (`load_providers` reports that)."""
    try:
        pairs = top_level_pairs(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return set()
    return {str(pair[0]) for pair in pairs or []}


def not_plain_json(value: Any, where: str) -> tuple[str, str] | None:
    """Where `value` holds something that is not a plain JSON value (and JSON would refuse, or silently change:
    a number as a key becomes a string), and what it is; None when it is plain JSON."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, f"{where} is {value!r}, which JSON has no number for")
    if isinstance(value, list):
        return next(filter(None, (not_plain_json(v, f"{where}[{i}]") for i, v in enumerate(value))), None)
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str):
                return f"{where}.{key}", f"{where} has the key {key!r}: every key of a mapping must be a string (quote it)"
            found = not_plain_json(inner, f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        return where, f"{where} is a YAML date ({value.isoformat()}): quote it to mean text"
    return where, f"{where} is a YAML {type(value).__name__}"


def _parse_entry(slug: str, raw: Any, allowed_roles: set[str], known_providers: Collection[str] = ()) -> RegistryEntry:
    raw = checked_fields(raw, _KNOWN_FIELDS)
    model = raw.get("model")
    if not isinstance(model, str) or not model.strip():
        raise FieldError("'model' (the litellm model string) is required", "model")
    if "role" not in raw:
        raise FieldError(f"'role' is required (one of {sorted(allowed_roles)})", "role")
    role = raw["role"]
    if role not in allowed_roles:
        raise FieldError(f"role {role!r} is not one of {sorted(allowed_roles)}", "role")
    kind = canaries.kind_of(model.strip())
    if role == CANARY_ROLE:
        extra = sorted(name for name in raw if name not in _CANARY_FIELDS)
        if extra:
            raise FieldError(f"a canary's answer is fixed: it takes only {sorted(_CANARY_FIELDS)}, not {extra}", extra[0])
        if kind not in canaries.KINDS:
            raise FieldError(f"a canary's model must be {canaries.MODEL_PREFIX}<kind>, kind one of "
                             f"{list(canaries.KINDS)}; not {model!r}", "model")
    elif kind is not None:
        raise FieldError(f"{model!r} is a canary's fixed answer, not a model: give the entry `role: canary`", "model")
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise FieldError("'params' must be a mapping", "params")
    credential = credential_in_params(params)
    if credential:
        place, what = credential
        raise FieldError(f"{what}: API keys and other credentials never go in the registry (a versioned "
                         "file, and params reach the cache key): set them in the environment (e.g. "
                         "OPENAI_API_KEY), where litellm reads them", place)
    # params are part of the request and its cache key: plain JSON values only (json.dumps would refuse a
    # date, and turn a key 1 or true into "1" or "true" without a word)
    found = not_plain_json(params, "params")
    if found:
        place, what = found
        raise FieldError("'params' must hold plain JSON values (strings, numbers, booleans, lists, mappings): "
                         + what, place)
    if model.strip().startswith("sim/"):
        from benchwright.simulate.request import setting_problem  # here: start-up loads no part of the simulator

        problem = setting_problem(params)
        if problem:
            name, what = problem
            raise FieldError(f"'params.{name}' {what}: the simulator would otherwise use its default or the nearest "
                             "bound without a word (benchwright/simulate/request.py SETTING_RANGES)", f"params.{name}")
    display_name = display_name_of(raw, slug)
    for name in ("vision", "batch"):
        if name in raw and not isinstance(raw[name], bool):
            raise FieldError(f"'{name}' must be true or false, not {raw[name]!r}", name)
    for name in ("max_concurrency", "rpm"):
        value = raw.get(name)  # (YAML's true is a Python int: 1, which nobody meant)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise FieldError(f"'{name}' must be a positive integer, not {value!r}", name)
    api_base = raw.get("api_base")
    if api_base is not None:
        problem = api_base_problem(api_base)
        if problem:
            raise FieldError(f"'api_base' {problem}", "api_base")
    for name in ("api_base", "base_url"):  # litellm takes these from params too: the same rule
        if name in params and api_base_problem(params[name]):
            raise FieldError(f"'params.{name}' {api_base_problem(params[name])}", f"params.{name}")
    provider = raw.get("provider")
    if provider is not None and (not isinstance(provider, str) or validate_slug(provider)):
        raise FieldError(f"'provider' must be a name like the keys of providers.yaml ([a-z0-9._-]+), not {provider!r}",
                         "provider")
    if provider is not None and provider not in known_providers and provider not in litellm_providers():
        raise FieldError(f"'provider' {provider!r} is neither defined in providers.yaml nor one of litellm's "
                         f"providers (openai, anthropic, ...): its calls would count against limits nobody wrote "
                         f"down. Add `{provider}:` to providers.yaml (its limits are optional) or fix the name",
                         "provider")
    family = raw.get("family")
    if family is not None and (not isinstance(family, str) or validate_slug(family.lower())):
        raise FieldError(f"'family' must be a name like openai or anthropic ([a-z0-9._-]+), not {family!r}", "family")
    family = family.lower() if family is not None else None
    budget = raw.get("budget_usd")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))
                               or not math.isfinite(budget) or budget < 0):
        raise FieldError(f"'budget_usd' must be a number of dollars ≥ 0, not {budget!r}", "budget_usd")
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
        family=family,
        budget_usd=None if budget is None else float(budget),
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


def load_registry(path: str | Path, kind: str, providers_path: str | Path | None = None,
                  ) -> tuple[list[RegistryEntry], list[RegistryProblem]]:
    """Load `models` or `judges` registry entries; bad entries become problems, not exceptions.

    An entry's `provider` must be defined in `providers_path` (default: `providers.yaml` beside `path`) or be
    one of litellm's providers. A file that is missing or is not YAML at all raises, because then nothing can
    be trusted.
    """
    if kind not in ("models", "judges"):
        raise ValueError(f"kind must be 'models' or 'judges', not {kind!r}")
    allowed_roles = MODEL_ROLES if kind == "models" else JUDGE_ROLES
    known = provider_names(providers_path or Path(path).with_name("providers.yaml"))
    return load_entries(path, lambda slug, raw: _parse_entry(slug, raw, allowed_roles, known))


def load_entries(path: str | Path, parse: Callable[[str, Any], T]) -> tuple[list[T], list[RegistryProblem]]:
    """The entries of a registry-like YAML file (slug: fields), each made by `parse`; an entry that cannot
    be (bad slug, a slug defined twice, `parse` raising ValueError) is a problem, not an exception: with the
    key at fault and its line when `parse` raised a `FieldError`, else with the entry's line. A file that is
    missing or is not a YAML mapping raises."""
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
    for slug, line, raw, keys_at in pairs:
        lines = lines_by_slug[slug]
        if len(lines) > 1:
            if line == lines[0]:  # one problem per duplicated slug
                problems.append(RegistryProblem(file=str(path), entry=str(slug), line=line, reason=(
                    f"defined {len(lines)} times (lines {', '.join(map(str, lines))}); neither entry is loaded: "
                    "give each entry its own slug")))
            continue
        reason, field = validate_slug(slug), None
        if reason is None:
            try:
                entries.append(parse(slug, raw))
                continue
            except EntryFaults as exc:  # every fault of the entry, each at its own key's line
                problems += [RegistryProblem(file=str(path), entry=str(slug), reason=reason,
                                             line=keys_at.get(str(key), line) if key is not None else line,
                                             field=None if key is None else str(key))
                             for key, reason in exc.faults]
                continue
            except ValueError as exc:
                reason, field = str(exc), _as_written(getattr(exc, "field", None), keys_at)
                line = _line_of(field, getattr(exc, "line", None), keys_at) or line
                if field and getattr(exc, "line", None):  # a key given twice: its whole path, from its line
                    field = next((path for path, at in keys_at.items()
                                  if at == exc.line and _last_step(path) == field), field)
        problems.append(RegistryProblem(file=str(path), entry=str(slug), reason=reason, line=line, field=field))
    return entries, problems


def _as_written(field: str | None, keys_at: dict[str, int]) -> str | None:
    """`field` with its last key spelled as in the file: a key that is not text was built from what the file
    says (`params.on` is loaded as the key True, which `field` names `params.True`)."""
    if not field or field in keys_at or "." not in field:
        return field
    parent, key = field.rsplit(".", 1)
    try:
        value = yaml.safe_load(key)
        return next((path for path in keys_at if path.rsplit(".", 1)[0] == parent
                     and yaml.safe_load(_last_step(path)) == value), field)
    except yaml.YAMLError:
        return field


def _last_step(path: str) -> str:
    """`extra_body` of `params.extra_body`, `stop[1]` of `params.stop[1]`."""
    return path.rsplit(".", 1)[-1]


def _line_of(field: str | None, known_line: int | None, key_lines: dict[str, int]) -> int | None:
    """The line of `field` (a dotted path) in its entry, or of the nearest key above it that has one (a field
    that is missing has none: then None, and the entry's line is used)."""
    if known_line or not field:
        return known_line
    path = field
    while path:
        if path in key_lines:
            return key_lines[path]
        path = path[:max(path.rfind("."), path.rfind("["), 0)]
    return None


def key_lines(node: yaml.Node, prefix: str = "", lines: dict[str, int] | None = None,
              walking: frozenset[int] = frozenset()) -> dict[str, int]:
    """Dotted path -> line of every key (and list item) under an entry's YAML node: `params.released`,
    `params.stop[1]`. Keys merged from an anchor (`<<: *shared`) have the anchor's lines, and a mapping's own
    keys win over merged ones, as in the loaded entry."""
    lines = {} if lines is None else lines
    if id(node) in walking:  # an alias of a node that holds it: loaded as a recursive value, walked once
        return lines
    walking = walking | {id(node)}
    if isinstance(node, yaml.MappingNode):
        own = []
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for source in reversed(merged):  # of several merged mappings, the first one's keys win
                    key_lines(source, prefix, lines, walking)
            else:
                own.append((key_node, value_node))
        for key_node, value_node in own:
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            path = f"{prefix}.{name}" if prefix else str(name)
            lines[path] = key_node.start_mark.line + 1
            key_lines(value_node, path, lines, walking)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[f"{prefix}[{index}]"] = item.start_mark.line + 1
            key_lines(item, f"{prefix}[{index}]", lines, walking)
    return lines


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
                raise FieldError(f"field {key!r} given twice (lines {first} and {line})", str(key), line)
        return super().construct_mapping(node, deep=deep)


def top_level_pairs(text: str) -> list[tuple[Any, int, Any, dict[str, int]]] | None:
    """(slug, line, entry, line of each key under it (`key_lines`)) for each top-level key, duplicates included,
    in file order; None for an empty file.

    An entry that cannot be built (a duplicated field inside it) becomes the exception in its place, so
    that it is reported as that entry's problem while the others load.

    The registry is read by every step that names a model (a job reads the same few files hundreds of times) and
    PyYAML's pure-Python parser costs milliseconds per file: the pairs of a text already parsed are kept, and
    each caller gets its own copy of them.
    """
    return copy.deepcopy(_parsed_pairs(text))


@functools.lru_cache(maxsize=32)
def _parsed_pairs(text: str) -> list[tuple[Any, int, Any, dict[str, int]]] | None:
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
                mark = getattr(exc, "problem_mark", None)
                raw = FieldError(f"not valid YAML here: {getattr(exc, 'problem', None) or exc}",
                                 line=mark.line + 1 if mark else None)
            pairs.append((slug, key_node.start_mark.line + 1, raw, key_lines(value_node)))
        return pairs
    finally:
        loader.dispose()
