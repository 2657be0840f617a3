"""Image validation and normalization.

Every image that enters the warehouse goes through `normalize_image`: it is fully decoded by
Pillow (so corrupt or truncated files are caught here, not inside a model call), turned upright
using its EXIF orientation, converted to RGB, shrunk so its longer side fits `max_side`, and
re-encoded as PNG. The PNG carries no metadata (no EXIF, ICC profile, DPI or text chunks), so the
same input always gives the same bytes, and the sha256 of those bytes is a stable content id that
caches and warehouse rows can key on.

Choices made here (the methods leave them open):
- Transparent pixels are composited onto white, because most models treat alpha inconsistently.
- An ICC profile is dropped, not applied; sample and benchmark images are sRGB in practice.
- For animated images (GIF, WebP) only the first frame is kept.
- Downscaling uses Lanczos resampling; the size is rounded, never below 1 pixel.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import struct
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from PIL import Image, ImageOps, UnidentifiedImageError

# Formats a benchmark image may come in. Pillow reads many more (e.g. PSD, EPS via
# ghostscript); refusing them keeps the attack surface and surprises small.
SUPPORTED_FORMATS = frozenset({"PNG", "JPEG", "MPO", "GIF", "WEBP", "BMP", "TIFF"})

# Fill colour for transparent areas.
_WHITE = (255, 255, 255)


class ImageError(ValueError):
    """An image cannot be used; the message says why."""


@dataclass(frozen=True)
class NormalizedImage:
    sha256: str
    mime: str
    width: int
    height: int
    data: bytes


def normalize_image(
    data: bytes,
    max_side: int = 1024,
    max_input_bytes: int = 20_000_000,
    max_pixels: int = 50_000_000,
) -> NormalizedImage:
    """Validate `data` as an image and return it as a deterministic RGB PNG.

    Raises ImageError for empty, oversized, unreadable, truncated, unsupported or
    too-many-pixel input.
    """
    if max_side < 1:
        raise ValueError(f"max_side must be at least 1, got {max_side}")
    if not data:
        raise ImageError("image is empty (zero bytes)")
    if len(data) > max_input_bytes:
        raise ImageError(f"image too large: {len(data)} bytes (limit {max_input_bytes})")

    img = _decode(data, max_pixels)
    img = _to_rgb(img)

    width, height = img.size
    longer = max(width, height)
    if longer > max_side:
        scale = max_side / longer
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        img = img.resize(size, Image.Resampling.LANCZOS)

    # A fresh image with no `info` so nothing but pixels reaches the encoder.
    clean = Image.new("RGB", img.size)
    clean.paste(img)
    buf = io.BytesIO()
    clean.save(buf, format="PNG", compress_level=6)
    png = buf.getvalue()
    return NormalizedImage(
        sha256=hashlib.sha256(png).hexdigest(),
        mime="image/png",
        width=clean.width,
        height=clean.height,
        data=png,
    )


def _decode(data: bytes, max_pixels: int) -> Image.Image:
    """Open, check size and format, and fully decode; every failure becomes an ImageError."""
    # Pillow only warns below its own bomb limit; make that warning an error too.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            probe = Image.open(io.BytesIO(data))
            fmt = probe.format
            if fmt not in SUPPORTED_FORMATS:
                raise ImageError(f"unsupported image format: {fmt}")
            # Check the declared size before decoding anything: a small file can
            # declare a huge canvas (decompression bomb).
            _check_pixels(probe.size, max_pixels)
            # verify() checks structure (e.g. PNG chunk CRCs) but leaves the object unusable.
            probe.verify()

            img = Image.open(io.BytesIO(data))
            img.seek(0)
            img.load()  # decode every pixel; truncated data fails here
        except ImageError:
            raise
        except UnidentifiedImageError:
            raise ImageError("not a recognizable image (corrupt or unknown format)") from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise ImageError(f"too many pixels (decompression bomb guard): {exc}") from None
        # Plugins raise a mix of these on mangled data (struct.error on bad headers).
        except (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error) as exc:
            text = str(exc) or type(exc).__name__
            if "truncated" in text.lower():
                raise ImageError(f"image is truncated: {text}") from None
            raise ImageError(f"image is corrupt: {text}") from None
    return img


def _check_pixels(size: tuple[int, int], max_pixels: int) -> None:
    width, height = size
    if width < 1 or height < 1:
        raise ImageError(f"image has no pixels ({width}x{height})")
    if width * height > max_pixels:
        raise ImageError(
            f"too many pixels: {width}x{height} = {width * height} (limit {max_pixels})"
        )


def _to_rgb(img: Image.Image) -> Image.Image:
    """Apply EXIF orientation, then flatten any transparency onto white."""
    try:
        img = ImageOps.exif_transpose(img)
    except Exception as exc:  # a broken EXIF block should not look like a crash
        raise ImageError(f"image is corrupt: bad EXIF orientation data ({exc})") from None

    has_alpha = img.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        img.mode == "P" and "transparency" in img.info
    )
    if has_alpha:
        rgba = img.convert("RGBA")
        background = Image.new("RGB", rgba.size, _WHITE)
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    if img.mode.startswith("I;16") or img.mode == "I":
        # 16/32-bit greyscale: scale into 8 bits first, convert("RGB") would clip.
        img = img.convert("I").point(lambda v: v * (1 / 256)).convert("L")
    return img.convert("RGB")


class DataURL(str):
    """A `data:` URL that carries the sha256 of its bytes (`digest`, "sha256:<hex>"): a request's cache key names a
    picture by that hash, and a picture shown in hundreds of requests is then hashed once, not once per request.
    It is a str everywhere else (JSON, litellm)."""

    digest: str


def encoded_data_url(mime: str, data: bytes, sha256: str) -> DataURL:
    """`data` as a `data:` URL, whose digest is `sha256` (the hex hash of `data`, already known: not hashed again)."""
    url = DataURL(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}")
    url.digest = "sha256:" + sha256
    return url


def data_url(img: NormalizedImage) -> DataURL:
    """The image as a `data:` URL, the form chat APIs accept inline, hashed once here."""
    return encoded_data_url(img.mime, img.data, hashlib.sha256(img.data).hexdigest())


@dataclass(frozen=True)
class ImageRef:
    """A picture a request shows, named by its content: a request's cache key reads only `digest` (the stored
    sha256), and the picture's bytes are read from `source` and encoded as a data URL only when the request is
    sent (`data_url`, see `benchwright.llm.request.sendable`). A plan of thousands of requests then holds no
    picture; only the calls in flight do."""

    sha256: str
    mime: str
    source: ImageSource = field(compare=False, repr=False)

    @property
    def digest(self) -> str:
        return "sha256:" + self.sha256

    def data_url(self) -> DataURL:
        return encoded_data_url(self.mime, self.source.read(self.sha256), self.sha256)


class ImageSource:
    """Where the pictures of `ImageRef`s are read, through `fetch` (sha256 list -> {sha256: bytes}), e.g. one
    query of the warehouse's `images` table. A read asks for the picture and the next few not held in
    `order` (the order the plan uses them in: requests are sent about in that order), at most `ahead`
    pictures per fetch, and keeps the pictures it read last, up to `max_bytes` (plus the one asked for): a
    picture shown in many requests is read once per stretch of them, and at most a few dozen megabytes are
    held, however large the set."""

    def __init__(self, fetch: Callable[[list[str]], Mapping[str, bytes]], order: Iterable[str] = (),
                 max_bytes: int = 64 * 2**20, ahead: int = 16):
        self.fetch = fetch
        self.order = list(dict.fromkeys(order))
        self._position = {sha: i for i, sha in enumerate(self.order)}
        self.max_bytes = max_bytes
        self.ahead = max(1, ahead)
        self.fetches = 0  # how many times `fetch` was called (for tests and benchmarks)
        self._held: OrderedDict[str, bytes] = OrderedDict()
        self._held_bytes = 0
        self._lock = threading.Lock()  # the runner may send from a helper thread

    def ref(self, sha256: str, mime: str) -> ImageRef:
        return ImageRef(sha256, mime, self)

    def read(self, sha256: str) -> bytes:
        with self._lock:
            data = self._held.get(sha256)
            if data is not None:
                self._held.move_to_end(sha256)
                return data
            wanted = [sha256]
            start = self._position.get(sha256)
            if start is not None:
                wanted += [h for h in self.order[start + 1:start + self.ahead] if h not in self._held]
            found = self.fetch(wanted)
            self.fetches += 1
            if sha256 not in found:
                raise ImageError(f"picture sha256:{sha256} is not stored (images table)")
            for sha in reversed(wanted):  # the one asked for is the most recently used
                if sha in found and sha not in self._held:
                    self._held[sha] = bytes(found[sha])
                    self._held_bytes += len(self._held[sha])
            while len(self._held) > 1 and self._held_bytes > self.max_bytes:
                _, dropped = self._held.popitem(last=False)
                self._held_bytes -= len(dropped)
            return self._held.get(sha256) or bytes(found[sha256])


def decode_data_url(url: str) -> bytes:
    """The bytes inside a base64 `data:` URL; ImageError if it is not one."""
    if not url.startswith("data:"):
        raise ImageError("not a data URL (must start with 'data:')")
    header, sep, payload = url.partition(",")
    if not sep:
        raise ImageError("data URL has no ',' separating header and payload")
    if not header.endswith(";base64"):
        raise ImageError("data URL is not base64-encoded")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ImageError(f"data URL payload is not valid base64: {exc}") from None
