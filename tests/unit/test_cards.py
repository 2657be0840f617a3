"""Every section the code and docs cite (`benchwright/urs/README.md#scoring`, `docs/DESIGN.md#pitfalls` ...) exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"((?:benchwright/[a-z_]+/|docs/)?[A-Z]+\.md)#([a-z0-9-]+)")
SEARCHED = ("*.py", "*.sql", "*.md", "*.toml", "*.txt")
SKIPPED = {".venv", ".git", "node_modules", ".benchwright"}


def anchors(markdown: Path) -> set[str]:
    """GitHub's anchors of a file's headings: lower case, punctuation dropped, spaces to hyphens."""
    slugs = set()
    for line in markdown.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slugs.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return slugs


def citations() -> list[tuple[Path, str, str]]:
    found = []
    for pattern in SEARCHED:
        for path in ROOT.rglob(pattern):
            if SKIPPED & set(path.relative_to(ROOT).parts):
                continue
            for target, anchor in CITATION.findall(path.read_text(encoding="utf-8", errors="replace")):
                found.append((path.relative_to(ROOT), target, anchor))
    return found


def test_every_cited_section_exists():
    found = citations()
    assert len({target for _, target, _ in found}) >= 6  # the four cards, docs/ and the README are cited
    broken = [(str(path), f"{target}#{anchor}") for path, target, anchor in found
              if not (ROOT / target).is_file() or anchor not in anchors(ROOT / target)]
    assert broken == []


def test_the_anchor_rule_on_headings_with_punctuation():
    assert anchors(ROOT / "docs" / "ARCHITECTURE.md") >= {"asset-graph-creation", "llm-layer", "checks"}
    assert "criteria-by-intent" in anchors(ROOT / "benchwright" / "urs" / "README.md")
