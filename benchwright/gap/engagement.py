"""GAP engagement analytics (benchwright/gap/README.md#engagement): distributions as (measure, bucket, count) rows, and their charts."""

from __future__ import annotations


import numpy as np
import pandas as pd


def engagement(marks: pd.DataFrame) -> pd.DataFrame:
    """Sessions per player per ISO week, images per session, and players' accuracy on tainted images
    (share of tainted marks that were right, in 10 % buckets labelled by their lower edge)."""
    rows = []
    if len(marks):
        sessions = marks.drop_duplicates("session_id")
        iso = pd.to_datetime(sessions["session_start"]).dt.isocalendar()
        per_week = sessions.assign(week=iso["year"].astype(str) + "-" + iso["week"].astype(str)) \
            .groupby(["player_id", "week"]).size()
        images = marks.groupby("session_id")["image_id"].nunique()
        tainted = marks[marks["tainted"]]
        right = (tainted["player_mark"] == "wrong") == tainted["instructed_wrong"]
        accuracy = right.groupby(tainted["player_id"]).mean()
        for measure, values in (("sessions_per_player_week", per_week), ("images_per_session", images)):
            for bucket, count in values.value_counts().sort_index().items():
                rows.append({"measure": measure, "bucket": float(bucket), "count": int(count)})
        buckets = (np.minimum(np.floor(accuracy * 10), 9) / 10).value_counts().sort_index()
        rows += [{"measure": "tainted_accuracy", "bucket": float(b), "count": int(c)} for b, c in buckets.items()]
    return pd.DataFrame(rows, columns=["measure", "bucket", "count"])


def histogram_png(counts: pd.DataFrame, title: str) -> bytes:
    """A small bar chart (Pillow) of one measure's bucket counts."""
    import io

    from PIL import Image, ImageDraw

    width, height, margin = 420, 220, 30
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((margin, 6), title, fill="black")
    if len(counts):
        top = max(counts["count"])
        bar = (width - 2 * margin) / len(counts)
        for k, row in enumerate(counts.itertuples(index=False)):
            h = (height - 2 * margin - 10) * row.count / top
            x = margin + k * bar
            draw.rectangle((x + 2, height - margin - h, x + bar - 2, height - margin), fill=(30, 70, 210))
            draw.text((x + 2, height - margin + 4), f"{row.bucket:g}", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
