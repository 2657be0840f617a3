"""The model/judge registry as a Dagster resource (reads registry/*.yaml on every use)."""

from pathlib import Path

import dagster as dg

from benchwright.panels import PanelEntry, load_panels
from benchwright.registry import RegistryEntry, RegistryProblem, load_providers, load_registry


class Registry(dg.ConfigurableResource):
    models_path: str
    judges_path: str
    panels_path: str = ""
    """Judge panels; empty means `panels.yaml` next to the models registry (no file, no panels)."""
    providers_path: str = ""
    """Provider limits; empty means `providers.yaml` next to the models registry (no file, defaults)."""

    def _load(self, kind: str) -> tuple[list[RegistryEntry], list[RegistryProblem]]:
        return load_registry(self.models_path if kind == "models" else self.judges_path, kind, self.providers_file())

    def entries(self, kind: str) -> list[RegistryEntry]:
        return self._load(kind)[0]

    def problems(self) -> list[RegistryProblem]:
        return self._load("models")[1] + self._load("judges")[1] + self._load_panels()[1] + \
            load_providers(self.providers_file())[1]

    def providers_file(self) -> str:
        return self.providers_path or str(Path(self.models_path).with_name("providers.yaml"))

    def _load_panels(self) -> tuple[list[PanelEntry], list[RegistryProblem]]:
        path = self.panels_path or str(Path(self.models_path).with_name("panels.yaml"))
        return load_panels(path, judge_slugs=[e.slug for e in self.judges()])

    def panels(self) -> list[PanelEntry]:
        return self._load_panels()[0]

    def panel(self, slug: str) -> PanelEntry:
        for entry in self.panels():
            if entry.slug == slug:
                return entry
        problems = [str(p) for p in self._load_panels()[1] if p.entry == slug]
        raise KeyError(f"{slug!r} is not a valid panel{f' ({problems[0]})' if problems else ''}")

    def candidates(self) -> list[RegistryEntry]:
        return [e for e in self.entries("models") if e.role == "candidate"]

    def canaries(self) -> list[RegistryEntry]:
        """The integrity canaries (`role: canary`, benchwright/canaries.py): fixed answers, never candidates."""
        return [e for e in self.entries("models") if e.canary_kind is not None]

    def judges(self) -> list[RegistryEntry]:
        return self.entries("judges")

    def _one(self, kind: str, slug: str) -> RegistryEntry:
        for entry in self.entries(kind):
            if entry.slug == slug:
                return entry
        problems = [str(p) for p in self._load(kind)[1] if p.entry == slug]
        detail = f" ({problems[0]})" if problems else ""
        raise KeyError(f"{slug!r} is not a valid entry of registry {kind}{detail}")

    def model(self, slug: str) -> RegistryEntry:
        return self._one("models", slug)

    def judge(self, slug: str) -> RegistryEntry:
        return self._one("judges", slug)

    def with_role(self, role: str) -> RegistryEntry | None:
        """The first model with this role (baseline, describer), or None."""
        return next((e for e in self.entries("models") if e.role == role), None)

    def game_model(self, slug: str = "") -> RegistryEntry | None:
        """The model the GAP game asks: `slug` if given, else the describer, else the first candidate."""
        if slug:
            return self.model(slug)
        return self.with_role("describer") or next(iter(self.candidates()), None)

    def labels(self) -> dict[str, tuple[str, bool]]:
        """slug -> (display label, simulated) for models and judges, for report columns."""
        labels = {e.slug: (e.label, e.simulated) for kind in ("models", "judges") for e in self.entries(kind)}
        for panel in self.panels():  # a panel is simulated when a member is
            simulated = any(labels[m][1] for m in panel.members)
            labels[panel.slug] = (f"{panel.display_name} [simulated]" if simulated else panel.display_name, simulated)
        return labels
