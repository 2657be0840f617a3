import base64
import hashlib
import io
import struct
import zlib

import pytest
from PIL import Image, PngImagePlugin

from benchwright.images import (
    ImageError,
    ImageSource,
    NormalizedImage,
    data_url,
    decode_data_url,
    normalize_image,
)


def encode(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def picture(size=(200, 120)) -> Image.Image:
    """A picture with structure (gradient + block) so resizing and JPEG have real work."""
    img = Image.linear_gradient("L").resize(size).convert("RGB")
    img.paste((220, 30, 30), (10, 10, size[0] // 3, size[1] // 3))
    return img


def decoded(norm: NormalizedImage) -> Image.Image:
    img = Image.open(io.BytesIO(norm.data))
    img.load()
    return img


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_normalize_is_deterministic_png_output(fmt):
    data = encode(picture(), fmt)
    first, second = normalize_image(data), normalize_image(data)
    assert first.data == second.data
    assert first.sha256 == second.sha256 == hashlib.sha256(first.data).hexdigest()
    assert first.mime == "image/png"
    assert first.data.startswith(b"\x89PNG\r\n\x1a\n")
    out = decoded(first)
    assert (out.format, out.mode, out.size) == ("PNG", "RGB", (200, 120))
    assert (first.width, first.height) == (200, 120)


def test_metadata_does_not_change_the_hash():
    img = picture()
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "made on a Tuesday")
    plain = normalize_image(encode(img, "PNG"))
    tagged = normalize_image(encode(img, "PNG", pnginfo=info, dpi=(300, 300)))
    assert plain.sha256 == tagged.sha256
    assert b"Tuesday" not in tagged.data


def test_different_pixels_give_different_hashes():
    a = picture()
    b = picture()
    b.putpixel((100, 100), (0, 0, 255))
    assert normalize_image(encode(a, "PNG")).sha256 != normalize_image(encode(b, "PNG")).sha256


def test_exif_orientation_is_applied():
    img = Image.new("RGB", (40, 20), (30, 70, 210))
    img.paste((240, 210, 40), (0, 0, 10, 20))  # yellow strip on the left edge
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display"
    norm = normalize_image(encode(img, "JPEG", exif=exif, quality=95))
    assert (norm.width, norm.height) == (20, 40)
    top = decoded(norm).getpixel((10, 2))  # after rotation the strip is along the top
    assert top[0] > 200 and top[2] < 100


def test_alpha_is_flattened_on_white():
    img = Image.new("RGBA", (10, 10), (0, 0, 0, 0))  # fully transparent black
    img.putpixel((0, 0), (220, 30, 30, 255))  # one opaque red pixel
    img.putpixel((1, 0), (0, 0, 0, 128))  # half-transparent black
    out = decoded(normalize_image(encode(img, "PNG")))
    assert out.mode == "RGB"
    assert out.getpixel((5, 5)) == (255, 255, 255)
    assert out.getpixel((0, 0)) == (220, 30, 30)
    assert 120 <= out.getpixel((1, 0))[0] <= 135  # blended halfway to white


def test_palette_transparency_is_flattened():
    img = Image.new("P", (8, 8), 0)
    img.putpalette([0, 0, 0, 220, 30, 30] + [0] * 762)
    img.putpixel((0, 0), 1)
    out = decoded(normalize_image(encode(img, "PNG", transparency=0)))
    assert out.getpixel((4, 4)) == (255, 255, 255)
    assert out.getpixel((0, 0)) == (220, 30, 30)


@pytest.mark.parametrize(
    "size, max_side, expected",
    [
        ((3000, 1500), 1024, (1024, 512)),
        ((500, 2000), 100, (25, 100)),
        ((1000, 3), 100, (100, 1)),  # never below one pixel
        ((300, 200), 1024, (300, 200)),  # small images are not enlarged
    ],
)
def test_downscale_respects_max_side(size, max_side, expected):
    norm = normalize_image(encode(Image.new("RGB", size, (30, 160, 60)), "PNG"), max_side=max_side)
    assert (norm.width, norm.height) == expected
    assert decoded(norm).size == expected


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims a huge canvas (a decompression bomb shape)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def flip_byte_in_idat(data: bytes) -> bytes:
    at = data.index(b"IDAT") + 20
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@pytest.mark.parametrize(
    "data, kwargs, message",
    [
        (b"", {}, "zero bytes"),
        (encode(picture(), "PNG")[:300], {}, "truncated"),
        (encode(picture(), "JPEG")[:600], {}, "truncated"),
        (flip_byte_in_idat(encode(picture(), "PNG")), {}, "corrupt"),
        (bytes(range(256)) * 4, {}, "not a recognizable image"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, {}, "not a recognizable image"),
        (encode(picture(), "PPM"), {}, "unsupported image format: PPM"),
        (encode(picture(), "PNG"), {"max_input_bytes": 100}, "too large"),
        (encode(Image.new("RGB", (2000, 1000)), "PNG"), {"max_pixels": 1_000_000},
         "too many pixels"),
        (png_declaring(8000, 8000), {}, "too many pixels"),  # under Pillow's own limit
        (png_declaring(100_000, 100_000), {}, "too many pixels"),
    ],
    ids=["empty", "truncated-png", "truncated-jpeg", "bad-crc", "random", "png-garbage",
         "ppm", "too-large", "too-many-pixels", "big-header", "bomb-header"],
)
def test_bad_inputs_raise_image_error_saying_why(data, kwargs, message):
    with pytest.raises(ImageError, match=message):
        normalize_image(data, **kwargs)


def test_image_error_is_a_value_error():
    assert issubclass(ImageError, ValueError)


def test_data_url_round_trips():
    norm = normalize_image(encode(picture(), "JPEG"))
    url = data_url(norm)
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == norm.data
    assert decode_data_url(url) == norm.data


@pytest.mark.parametrize(
    "url",
    ["https://example.com/a.png", "data:image/png;base64", "data:image/png,abc",
     "data:image/png;base64,@@@@"],
)
def test_decode_data_url_rejects_non_base64_data_urls(url):
    with pytest.raises(ValueError):
        decode_data_url(url)


class _Store:
    """Pictures by sha256, counting what each fetch asked for."""

    def __init__(self, pictures):
        self.pictures = {p.sha256: p for p in pictures}
        self.asked: list[list[str]] = []

    def fetch(self, wanted):
        self.asked.append(list(wanted))
        return {h: self.pictures[h].data for h in wanted if h in self.pictures}


def _pictures(count):
    return [normalize_image(encode(picture((200 + i, 120)), "PNG")) for i in range(count)]


def test_an_image_ref_is_keyed_by_its_stored_hash_and_sent_as_the_same_data_url():
    [norm] = _pictures(1)
    store = _Store([norm])
    ref = ImageSource(store.fetch).ref(norm.sha256, norm.mime)
    assert store.asked == []  # naming a picture reads nothing
    url = ref.data_url()
    assert url == data_url(norm) and url.digest == data_url(norm).digest == ref.digest
    assert decode_data_url(url) == norm.data


def test_an_image_source_reads_ahead_in_plan_order_and_holds_a_bounded_number_of_bytes():
    pictures = _pictures(7)
    store = _Store(pictures)
    largest = max(len(p.data) for p in pictures)
    source = ImageSource(store.fetch, order=[p.sha256 for p in pictures], max_bytes=3 * largest, ahead=3)
    for p in pictures:  # requests sent in plan order, each picture shown twice
        assert source.read(p.sha256) == p.data
        assert source.read(p.sha256) == p.data
        assert source._held_bytes <= 3 * largest
    hashes = [p.sha256 for p in pictures]
    assert store.asked == [hashes[0:3], hashes[3:6], hashes[6:7]]  # three queries for seven pictures
    # A picture dropped from the held ones is read again when asked for.
    assert source.read(hashes[0]) == pictures[0].data and store.asked[-1][0] == hashes[0]
    with pytest.raises(ImageError, match="not stored"):
        source.read("0" * 64)
