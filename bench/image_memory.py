"""Benchmark: peak memory of `creation_items` on a photo-size image set (issue #18, "memory with real images").

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

    .venv/bin/python bench/image_memory.py [--gb 3] [--before-gb 0.5] [--format jsonl|tsv] [--skip-before]
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


def code_before() -> Path:
    """The repository at BEFORE, extracted once into a temporary folder."""
    folder = Path(tempfile.gettempdir()) / f"benchwright-image-memory-code-{BEFORE}"
    if not (folder / "definitions.py").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", BEFORE], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(code: Path, path: Path | None, what: str = "asset") -> dict:
    """Run creation_items from the repository at `code` on `path` (None: the shipped sample) in a child
    process; its peak RSS (bytes), seconds, and whether it succeeded with how many items and images.
    `what="read"`: only read and normalize the pictures (the current loader), writing nothing."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, __file__, "--child", str(code), str(path or ""), what], cwd=code,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             env={**os.environ, "PYTHONPATH": str(code)})
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    lines = [line for line in output.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"success": False}
    return {**result, "peak": usage.ru_maxrss * 1024, "seconds": time.perf_counter() - started,
            "exit": child.returncode}


def child(code: str, path: str, what: str) -> None:
    """In the child: materialize creation_items as a run would, on a temporary home (or only read)."""
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

    with tempfile.TemporaryDirectory() as home:
        write_registry(Path(home), SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(Path(home))
        config = {"ops": {"creation_items": {"config": {"path": path}}}} if path else None
        with dg.instance_for_test() as instance:
            result = materialize(["creation_items"], instance, resources, run_config=config)
        counts = resources["warehouse"].query("SELECT (SELECT count(*) FROM creation_items) AS items, "
                                              "(SELECT count(*) FROM images) AS images").iloc[0]
    print(json.dumps({"success": result.success, "items": int(counts["items"]), "images": int(counts["images"])}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=3.0, help="size of the picture set for the current code")
    parser.add_argument("--before-gb", type=float, default=0.5, help="size of the set for the code before")
    parser.add_argument("--format", choices=("jsonl", "tsv"), default="jsonl")
    parser.add_argument("--skip-before", action="store_true", help="measure only the current code")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)

    print(machine(), flush=True)
    lines, numbers = [], {}
    runs = [("now", ROOT, args.gb)] + ([] if args.skip_before else [("before", code_before(), args.before_gb)])
    for label, code, gb in runs:
        path, pictures, total, largest = dataset(gb, args.format)
        bare = measure(code, None)
        run = measure(code, path)
        target = GIB + largest
        ratio = run["peak"] / target
        if label == "now":  # the current loader alone, on the smaller set (it stays flat: nothing accumulates)
            read = measure(code, dataset(args.before_gb, args.format)[0], "read")
            numbers["read_only_peak"] = read["peak"]
            print(f"{label}: reading and normalizing alone (no warehouse, {args.before_gb:g} GB): peak {read['peak'] / GIB:.2f} GiB in "
                  f"{read['seconds']:.0f} s, peak / (1 GiB + largest) {read['peak'] / target:.2f}", flush=True)
        lines.append(f"{label}: {pictures} pictures, {total / 1e9:.2f} GB ({args.format}), largest "
                     f"{largest / 1e6:.1f} MB: peak {run['peak'] / GIB:.2f} GiB in {run['seconds']:.0f} s "
                     f"(success {run.get('success')}, {run.get('items')} items, {run.get('images')} images); "
                     f"without pictures {bare['peak'] / GIB:.2f} GiB; (peak - that) / pictures' bytes "
                     f"{(run['peak'] - bare['peak']) / total:.2f}; peak / (1 GiB + largest) {ratio:.2f}")
        print(lines[-1], flush=True)
        numbers[label] = {"pictures": pictures, "bytes": total, "largest": largest, "peak": run["peak"],
                          "bare_peak": bare["peak"], "ratio": ratio, "seconds": run["seconds"],
                          "success": run.get("success")}
    now = numbers["now"]
    summary = (f"{now['pictures']} pictures, {now['bytes'] / 1e9:.2f} GB ({args.format}): peak "
               f"{now['peak'] / GIB:.2f} GiB, peak ÷ (1 GiB + largest) {now['ratio']:.2f} (target ≤ 1: "
               f"{'met' if now['ratio'] <= 1 else 'missed'}); reading and normalizing alone "
               f"{numbers['read_only_peak'] / GIB:.2f} GiB")
    if "before" in numbers:
        before = numbers["before"]
        summary += (f"; before, at {before['bytes'] / 1e9:.2f} GB: peak {before['peak'] / GIB:.2f} GiB, "
                    f"{(before['peak'] - before['bare_peak']) / before['bytes']:.1f}× the pictures' bytes over "
                    f"the bare process")
    emit("image_memory", summary, **numbers)


if __name__ == "__main__":
    main()
