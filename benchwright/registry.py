"""The model and judge registry (`registry/models.yaml`, `registry/judges.yaml`): config as code.

Each file maps a slug to an entry:

    sim-strong:
      model: sim/strong-writer        # litellm model string; sim/... = offline simulator
      display_name: Strong writer
      role: candidate                 # models: candidate | baseline | describer; judges: judge
      vision: true                    # false = text-only model (gets image descriptions)
      api_base: null                  # e.g. http://localhost:8000/v1 for vLLM/Ollama
      params: {temperature: 0.7}      # generation parameters (part of the cache key)
      max_concurrency: 8              # optional per-model limits
      rpm: null

Slugs are Dagster partition keys and must never be edited to mean something else: a changed model
or parameter set gets a new slug, so results never silently mix. A malformed entry is reported as a
`RegistryProblem` naming the file and the entry; the other entries still load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SLUG_RE = re.compile(r"^[a-z0-9._-]+$")
MODEL_ROLES = {"candidate", "baseline", "describer"}
JUDGE_ROLES = {"judge"}
_KNOWN_FIELDS = {"model", "display_name", "role", "vision", "api_base", "params", "max_concurrency", "rpm"}


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

    @property
    def simulated(self) -> bool:
        return self.model.startswith("sim/")

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


def validate_slug(slug: object) -> str | None:
    """Return why `slug` is not a valid partition key, or None when it is."""
    if not isinstance(slug, str) or not slug:
        return "slug must be a non-empty string"
    if not SLUG_RE.match(slug):
        return f"slug {slug!r} must match [a-z0-9._-]+ (lower case, digits, '.', '_', '-')"
    if "..." in slug:
        return "slug must not contain '...'"
    return None


def _parse_entry(slug: str, raw: Any, allowed_roles: set[str]) -> RegistryEntry:
    if not isinstance(raw, dict):
        raise ValueError("entry must be a mapping of fields")
    unknown = set(raw) - _KNOWN_FIELDS
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}; known: {sorted(_KNOWN_FIELDS)}")
    model = raw.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ValueError("'model' (the litellm model string) is required")
    role = raw.get("role", "candidate" if "candidate" in allowed_roles else "judge")
    if role not in allowed_roles:
        raise ValueError(f"role {role!r} is not one of {sorted(allowed_roles)}")
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise ValueError("'params' must be a mapping")
    for key in ("api_key", "api-key", "key", "token"):
        if key in params:
            raise ValueError("API keys never go in the registry: set them in the environment")
    for name in ("max_concurrency", "rpm"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"'{name}' must be a positive integer")
    api_base = raw.get("api_base")
    if api_base is not None and not isinstance(api_base, str):
        raise ValueError("'api_base' must be a URL string")
    return RegistryEntry(
        slug=slug,
        model=model.strip(),
        display_name=str(raw.get("display_name") or slug),
        role=role,
        vision=bool(raw.get("vision", True)),
        api_base=api_base,
        params=dict(params),
        max_concurrency=raw.get("max_concurrency"),
        rpm=raw.get("rpm"),
    )


def load_registry(path: str | Path, kind: str) -> tuple[list[RegistryEntry], list[RegistryProblem]]:
    """Load `models` or `judges` registry entries; bad entries become problems, not exceptions.

    A file that is missing or is not YAML at all raises, because then nothing can be trusted.
    """
    if kind not in ("models", "judges"):
        raise ValueError(f"kind must be 'models' or 'judges', not {kind!r}")
    path = Path(path)
    allowed_roles = MODEL_ROLES if kind == "models" else JUDGE_ROLES
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        return [], []
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of slug -> entry at the top level")
    entries: list[RegistryEntry] = []
    problems: list[RegistryProblem] = []
    for slug, raw in data.items():
        reason = validate_slug(slug)
        if reason is None:
            try:
                entries.append(_parse_entry(slug, raw, allowed_roles))
                continue
            except ValueError as exc:
                reason = str(exc)
        problems.append(RegistryProblem(file=str(path), entry=str(slug), reason=reason))
    return entries, problems
