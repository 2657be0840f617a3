"""Benchmark: peak memory of `creation_items`, and of the model-calling assets after it, on a photo-size image set
(issue #18, "memory with real images"; issue #30 item 8, "images are read once").

Writes a synthetic Creation dataset once into a temporary folder (reused by later runs with the same
size and format): photo-like pictures (smooth random colour fields with fine noise, 1600 × 1200 JPEG,
about 1.2 MB each) until they add up to ``--gb`` gigabytes, one item per picture, in our JSONL layout
(pictures as files) or the published TSV layout (``--format tsv``: base64 inside the file). Then runs
`creation_items` on it in a child process (``dagster.materialize`` on a temporary home, as a run would)
and reads the child's peak resident memory from the kernel (``os.wait4``). Target: peak ≤ 1 GiB + the
largest picture, reported as peak ÷ (1 GiB + largest picture) ≤ 1.

The same is measured for the code before images streamed (``BEFORE``, extracted with ``git archive``)
at ``--before-gb`` (smaller: it holds several times the pictures' bytes), and for both on the shipped
sample (15 small pictures), which is the process's own size without pictures.

Then, on the warehouse the current code loaded (``--gb``), generation and judging, each in a child process of
its own: "generate" materializes `creation_references`, `creation_image_descriptions` (the describer sees every
picture) and one vision candidate's `creation_generations`; "judge" that candidate's `creation_pairwise_judgments`
(both orders) and `creation_vfs_judgments` by one vision judge, all with the offline simulated models (which
decode every picture they are sent, as a provider would receive it). Same target. The code before pictures were
read per request (``BEFORE_REFS``: every item's data URL built up front) is measured the same way on a
``--before-gb`` warehouse of its own.

    .venv/bin/python bench/image_memory.py [--gb 3] [--before-gb 0.5] [--format jsonl|tsv] [--skip-before]
                                           [--only-calls]
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit, machine

BEFORE = "7e067b5"  # the last commit that loaded every item's pictures at once
BEFORE_REFS = "70a5e0f"  # the last commit whose model-calling assets built every item's data URL up front
MODEL, JUDGE = "sim-strong", "sim-fair-judge"  # the candidate and judge of the generation and judging steps
GIB = 2**30
SIZE = (1600, 1200)
TASK, CATEGORY = "photography_appreciation", "Creative Multimodal Understanding"


def picture(rng) -> bytes:
    """A photo-like JPEG: a smooth random colour field (bicubic from 50 × 38) plus fine noise."""
    import numpy as np
    from PIL import Image

    width, height = SIZE
    coarse = rng.integers(0, 256, (height // 32, width // 32, 3), dtype=np.uint8)
    smooth = np.asarray(Image.fromarray(coarse).resize(SIZE, Image.Resampling.BICUBIC), dtype=np.int16)
    noisy = np.clip(smooth + rng.integers(-40, 41, smooth.shape, dtype=np.int16), 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noisy).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def item(number: int) -> dict:
    return {"item_id": f"photo-{number:05d}", "category": CATEGORY, "task": TASK, "role": "a photography critic.",
            "background": "A reader sent in a photograph.", "instruction": "write a short appreciation",
            "requirements": ["Describe the colours.", "Keep it under 200 words."],
            "subjective_criteria": "1. Appreciation\n1.1 It is specific.",
            "visual_factuality_criteria": "1. The colours named are in the picture.",
            "ground_truth": None, "reference_answer": "A warm, grainy study in colour."}


def dataset(gb: float, fmt: str) -> tuple[Path, int, int, int]:
    """(dataset file, pictures, their bytes, largest picture) — written once per size and format."""
    import numpy as np

    folder = Path(tempfile.gettempdir()) / f"benchwright-image-memory-{gb:g}gb-{fmt}"
    done = folder / "done.json"
    if done.exists():
        info = json.loads(done.read_text())
        return folder / info["file"], info["pictures"], info["bytes"], info["largest"]
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "images").mkdir(parents=True)
    rng = np.random.default_rng(18)
    count = total = largest = 0
    name = "items.tsv" if fmt == "tsv" else "items.jsonl"
    with open(folder / name, "w", encoding="utf-8", newline="") as out:
        if fmt == "tsv":
            out.write("\t".join(["index", "image", "task_name", "role", "background", "instruction", "requirement",
                                 "criteria", "reference_answer_by_gpt4o"]) + "\n")
        while total < gb * 1e9:
            data = picture(rng)
            fields = item(count)
            if fmt == "tsv":
                criteria = repr({"subjective requirement": fields["subjective_criteria"],
                                 "groundtruth alignment": fields["visual_factuality_criteria"]})
                out.write("\t".join([str(count), base64.b64encode(data).decode("ascii"), TASK, fields["role"],
                                     fields["background"], fields["instruction"],
                                     " ".join(f"{i}. {r}" for i, r in enumerate(fields["requirements"], 1)),
                                     criteria, fields["reference_answer"]]) + "\n")
            else:
                (folder / "images" / f"{count:05d}.jpg").write_bytes(data)
                out.write(json.dumps({**fields, "images": [f"images/{count:05d}.jpg"]}) + "\n")
            count, total, largest = count + 1, total + len(data), max(largest, len(data))
    done.write_text(json.dumps({"file": name, "pictures": count, "bytes": total, "largest": largest}))
    return folder / name, count, total, largest


def code_before(commit: str = BEFORE) -> Path:
    """The repository at `commit`, extracted once into a temporary folder."""
    folder = Path(tempfile.gettempdir()) / f"benchwright-image-memory-code-{commit}"
    if not (folder / "definitions.py").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(code: Path, path: Path | None, what: str = "asset", home: Path | None = None) -> dict:
    """Run creation_items from the repository at `code` on `path` (None: the shipped sample) in a child
    process; its peak RSS (bytes), seconds, and whether it succeeded with how many items and images.
    `what="read"`: only read and normalize the pictures (the current loader), writing nothing. With a `home`,
    the run's warehouse stays there, and `what="generate"` / `"judge"` run those steps on it (see the top)."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, __file__, "--child", str(code), str(path or ""), what, str(home or "")],
                             cwd=code,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             env={**os.environ, "PYTHONPATH": str(code)})
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    lines = [line for line in output.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"success": False}
    return {**result, "peak": usage.ru_maxrss * 1024, "seconds": time.perf_counter() - started,
            "exit": child.returncode}


def child(code: str, path: str, what: str, home: str) -> None:
    """In the child: materialize creation_items as a run would, on `home` or a temporary one (or only read), or
    the generation or judging steps on `home`."""
    sys.path.insert(0, code)
    if what == "read":
        from benchwright.creation.loader import normalize_item_images, stream_creation_items
        from benchwright.loading import LoadProblem

        usable = [normalize_item_images(entry)[1] is None for entry in stream_creation_items(path)
                  if not isinstance(entry, LoadProblem)]
        print(json.dumps({"success": all(usable), "items": len(usable), "images": None}))
        return
    import dagster as dg
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, materialize, resources_for, write_registry

    if what in ("generate", "judge"):
        return calls(Path(home), what)
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(home or scratch)
        # The generation and judging steps' models (a dict comprehension: the code before has no `pick`).
        write_registry(home, {slug: SHIPPED_MODELS[slug] for slug in ("sim-baseline", "sim-describer", MODEL)},
                       {JUDGE: SHIPPED_JUDGES[JUDGE]})
        resources = resources_for(home)
        config = {"ops": {"creation_items": {"config": {"path": path}}}} if path else None
        with dg.instance_for_test() as instance:
            result = materialize(["creation_items"], instance, resources, run_config=config)
        counts = resources["warehouse"].query("SELECT (SELECT count(*) FROM creation_items) AS items, "
                                              "(SELECT count(*) FROM images) AS images").iloc[0]
    print(json.dumps({"success": result.success, "items": int(counts["items"]), "images": int(counts["images"])}))


def calls(home: Path, what: str) -> None:
    """In the child: the generation or the judging steps on the warehouse of `home` (see the top)."""
    import dagster as dg
    from tests.support.pipeline import materialize, resources_for

    resources = resources_for(home)
    steps = ([("creation_references", None), ("creation_image_descriptions", None), ("creation_generations", MODEL)]
             if what == "generate" else
             [(asset, dg.MultiPartitionKey({"model": MODEL, "judge": JUDGE}))
              for asset in ("creation_pairwise_judgments", "creation_vfs_judgments")])
    success, requests = True, 0
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("models", [MODEL])
        instance.add_dynamic_partitions("judges", [JUDGE])
        for asset, partition in steps:
            result = materialize([asset], instance, resources, partition_key=partition)
            success = success and result.success
            for event in result.get_asset_materialization_events():
                requests += int(event.materialization.metadata.get("requests", dg.IntMetadataValue(0)).value)
    print(json.dumps({"success": success, "requests": requests}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=3.0, help="size of the picture set for the current code")
    parser.add_argument("--before-gb", type=float, default=0.5, help="size of the set for the code before")
    parser.add_argument("--format", choices=("jsonl", "tsv"), default="jsonl")
    parser.add_argument("--skip-before", action="store_true", help="measure only the current code")
    parser.add_argument("--only-calls", action="store_true",
                        help="measure only generation and judging (loading the warehouses as needed, unmeasured)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)

    print(machine(), flush=True)
    lines, numbers = [], {}
    scratch = Path(tempfile.mkdtemp(prefix="benchwright-image-memory-homes-"))
    try:
        now_home = scratch / "now"
        if not args.only_calls:
            runs = [("now", ROOT, args.gb)] + ([] if args.skip_before else [("before", code_before(), args.before_gb)])
            for label, code, gb in runs:
                path, pictures, total, largest = dataset(gb, args.format)
                bare = measure(code, None)
                run = measure(code, path, home=now_home if label == "now" else None)
                target = GIB + largest
                ratio = run["peak"] / target
                if label == "now":  # the current loader alone, on the smaller set (it stays flat: nothing accumulates)
                    read = measure(code, dataset(args.before_gb, args.format)[0], "read")
                    numbers["read_only_peak"] = read["peak"]
                    print(f"{label}: reading and normalizing alone (no warehouse, {args.before_gb:g} GB): peak "
                          f"{read['peak'] / GIB:.2f} GiB in {read['seconds']:.0f} s, peak / (1 GiB + largest) "
                          f"{read['peak'] / target:.2f}", flush=True)
                lines.append(f"{label}: {pictures} pictures, {total / 1e9:.2f} GB ({args.format}), largest "
                             f"{largest / 1e6:.1f} MB: peak {run['peak'] / GIB:.2f} GiB in {run['seconds']:.0f} s "
                             f"(success {run.get('success')}, {run.get('items')} items, {run.get('images')} images); "
                             f"without pictures {bare['peak'] / GIB:.2f} GiB; (peak - that) / pictures' bytes "
                             f"{(run['peak'] - bare['peak']) / total:.2f}; peak / (1 GiB + largest) {ratio:.2f}")
                print(lines[-1], flush=True)
                numbers[label] = {"pictures": pictures, "bytes": total, "largest": largest, "peak": run["peak"],
                                  "bare_peak": bare["peak"], "ratio": ratio, "seconds": run["seconds"],
                                  "success": run.get("success")}
        # Generation and judging: the current code on its --gb warehouse, the code before on a --before-gb one.
        calls_runs = [("now", ROOT, args.gb, now_home)]
        if not args.skip_before:
            calls_runs.append(("before", code_before(BEFORE_REFS), args.before_gb, scratch / "before"))
        for label, code, gb, home in calls_runs:
            path, pictures, total, largest = dataset(gb, args.format)
            if not (home / "warehouse.duckdb").exists():
                loaded = measure(ROOT, path, home=home)
                print(f"{label}: {gb:g} GB loaded for generation and judging in {loaded['seconds']:.0f} s", flush=True)
            if label == "now" and not args.skip_before and not (scratch / "before").exists() and args.before_gb == gb:
                shutil.copytree(home, scratch / "before")  # before any call: the code before starts as cold
            target = GIB + largest
            for step in ("generate", "judge"):
                run = measure(code, None, step, home)
                ratio = run["peak"] / target
                lines.append(f"{label} ({code.name if label == 'before' else 'this code'}), {step}: {pictures} "
                             f"pictures, {total / 1e9:.2f} GB, largest {largest / 1e6:.1f} MB: peak "
                             f"{run['peak'] / GIB:.2f} GiB in {run['seconds']:.0f} s (success {run.get('success')}, "
                             f"{run.get('requests')} requests); peak / (1 GiB + largest) {ratio:.2f}")
                print(lines[-1], flush=True)
                numbers[f"{label}_{step}"] = {"pictures": pictures, "bytes": total, "largest": largest,
                                              "peak": run["peak"], "ratio": ratio, "seconds": run["seconds"],
                                              "requests": run.get("requests"), "success": run.get("success")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    parts = []
    if "now" in numbers:
        now = numbers["now"]
        parts.append(f"{now['pictures']} pictures, {now['bytes'] / 1e9:.2f} GB ({args.format}): loading peak "
                     f"{now['peak'] / GIB:.2f} GiB, peak ÷ (1 GiB + largest) {now['ratio']:.2f} (target ≤ 1: "
                     f"{'met' if now['ratio'] <= 1 else 'missed'}); reading and normalizing alone "
                     f"{numbers['read_only_peak'] / GIB:.2f} GiB")
    if "before" in numbers:
        before = numbers["before"]
        parts.append(f"loading before, at {before['bytes'] / 1e9:.2f} GB: peak {before['peak'] / GIB:.2f} GiB, "
                     f"{(before['peak'] - before['bare_peak']) / before['bytes']:.1f}× the pictures' bytes over "
                     f"the bare process")
    for label in ("now", "before"):
        steps = [numbers.get(f"{label}_{step}") for step in ("generate", "judge")]
        if all(steps):
            worst = max(step["ratio"] for step in steps)
            parts.append(f"{'generation and judging' if label == 'now' else 'before (' + BEFORE_REFS + ')'} at "
                         f"{steps[0]['bytes'] / 1e9:.2f} GB: peak {steps[0]['peak'] / GIB:.2f} / "
                         f"{steps[1]['peak'] / GIB:.2f} GiB, peak ÷ (1 GiB + largest) ≤ {worst:.2f}"
                         + (f" (target ≤ 1: {'met' if worst <= 1 else 'missed'})" if label == "now" else ""))
    emit("image_memory", "; ".join(parts), **numbers)


if __name__ == "__main__":
    main()
