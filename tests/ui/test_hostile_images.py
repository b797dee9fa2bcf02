"""Issue 17 item 4: a small file must not demand gigabytes through its images."""

from __future__ import annotations

import base64
import os
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.files.storage import load
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.images import (
    MAP_PIXELS,
    PORTRAIT_BUDGET,
    PORTRAIT_EDGE,
    PORTRAIT_PIXELS,
    ImageCache,
)


def huge_png(w: int, h: int, tail: bytes = b"") -> bytes:
    """A 1-bit PNG of w×h pixels: a few kB on disk, w*h*4 bytes once decoded."""
    raw = (b"\x00" + b"\x00" * ((w + 7) // 8)) * h

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"") + tail)


def uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def test_a_portrait_over_a_megapixel_is_refused_and_named(qapp: object) -> None:
    cache = ImageCache()
    pix = cache.get(uri(huge_png(8000, 8000)), None, PORTRAIT_PIXELS, "the portrait of Barry")
    assert pix.isNull()
    assert cache.messages() == ["the portrait of Barry is 8000×8000 pixels, over the "
                                "1 megapixel limit: drawn without it"]


def test_a_portrait_at_its_limit_and_a_large_map_are_drawn(qapp: object) -> None:
    cache = ImageCache()
    assert cache.get(uri(huge_png(1000, 1000)), None, PORTRAIT_PIXELS, "A",
                     PORTRAIT_EDGE).width() == PORTRAIT_EDGE
    assert cache.get(uri(huge_png(3000, 2000)), None, MAP_PIXELS).width() == 3000
    assert cache.messages() == []
    assert cache.get(uri(huge_png(1000, 1001)), None, PORTRAIT_PIXELS, "B",
                     PORTRAIT_EDGE).isNull()
    assert cache.messages() == ["B is 1000×1001 pixels, over the 1 megapixel limit: "
                                "drawn without it"]


def test_each_distinct_image_is_decoded_once(qapp: object) -> None:
    cache = ImageCache()
    same = uri(huge_png(500, 500))
    first = cache.get(same, None, PORTRAIT_PIXELS)
    assert cache.get(same, None, PORTRAIT_PIXELS).cacheKey() == first.cacheKey()


def _encounter(tmp_path: Path, portraits: list[str], map_image: str | None = None) -> Path:
    demo = Path(__file__).parents[2] / "resources" / "demo.tacmap"
    import json

    data = json.loads(demo.read_text())
    base = data["encounter"]["tokens"][0]
    data["encounter"]["tokens"] = [
        {**base, "id": f"p{i}", "name": f"P{i}", "x": i % 30, "y": 19 + i // 30, "image": image}
        for i, image in enumerate(portraits)]
    data["encounter"]["map"]["height"] = 20 + len(portraits) // 30  # 30 tokens a row
    data["encounter"]["map"]["image"] = map_image
    data["log"] = []
    path = tmp_path / "hostile.tacmap"
    path.write_text(json.dumps(data))
    return path


def test_twenty_huge_portraits_render_quickly_and_small(
        tmp_path: Path, registry: Registry, capsys: pytest.CaptureFixture[str]) -> None:
    """The reproducer: 20 data-URI portraits of 8000×8000 took 10-20 s and 5 GB to render."""
    from tacmap.ui.render import render

    path = _encounter(tmp_path, [uri(huge_png(8000, 8000, bytes([i]))) for i in range(20)])
    assert path.stat().st_size < 400_000
    loaded = load(path, registry)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    render(loaded.state, registry.get(loaded.state.ruleset), tmp_path / "out.png", tmp_path)
    assert time.perf_counter() - start < 5
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200
    err = capsys.readouterr().err
    assert "the portrait of P0 is 8000×8000 pixels, over the 1 megapixel limit" in err
    assert "the portrait of P19 is 8000×8000" in err


def test_the_window_names_a_refused_map_image_in_the_status_bar(window: object) -> None:
    from tacmap.engine.model.commands import SetMapImage
    from tacmap.ui.window import MainWindow

    assert isinstance(window, MainWindow)
    window.run(SetMapImage(uri(huge_png(9000, 9000)), (0.0, 0.0), 0.1))
    assert window.scene.image_item.pixmap().isNull()
    assert window.statusBar().currentMessage() == (
        "The map image is 9000×9000 pixels, over the 64 megapixel limit: drawn without it")


def test_the_player_view_draws_the_gm_maps_images_without_decoding_them_again(
        window: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from tacmap.engine.model.commands import SetMapImage
    from tacmap.ui import images
    from tacmap.ui.window import MainWindow

    assert isinstance(window, MainWindow)
    decoded: list[str] = []
    real = images.decode

    def counting(name: str, *args: Any) -> Any:
        decoded.append(name)
        return real(name, *args)

    monkeypatch.setattr(images, "decode", counting)
    window.run(SetMapImage(uri(huge_png(400, 300)), (0.0, 0.0), 0.05))
    assert len(decoded) == 1 and not window.scene.image_item.pixmap().isNull()
    window.show_player_view()
    player = window.players.window
    assert player is not None and not player.scene.image_item.pixmap().isNull()
    assert len(decoded) == 1  # the player view reused the GM map's decoded image


# --- Issue 23: formats, pipes, links, many portraits --------------------------------------

#: A valid 1×1 GIF: a format tacmap refuses, whole enough for Qt's GIF reader.
GIF = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00"
       b"\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


def rgb_png(w: int, h: int, tag: int = 0) -> bytes:
    """An 8-bit RGB PNG of w×h pixels (4 bytes a pixel once decoded), told apart by ``tag``."""
    row = b"\x00" + bytes((x // 300 * 60 + tag) % 256 for x in range(w * 3))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"tEXt", b"tag\x00" + str(tag).encode())
            + chunk(b"IDAT", zlib.compress(row * h, 9)) + chunk(b"IEND", b""))


def tagged(png: bytes, tag: int) -> bytes:
    """``png`` with a text chunk naming ``tag``: the same pixels, another image to the cache."""
    text = b"tag\x00" + str(tag).encode()
    crc = zlib.crc32(b"tEXt" + text) & 0xFFFFFFFF
    return png[:33] + struct.pack(">I", len(text)) + b"tEXt" + text + struct.pack(">I", crc) \
        + png[33:]


def svg_bomb(depth: int = 10, fan: int = 10) -> bytes:
    """An SVG of ``<use>`` elements nested ``depth`` deep, ``fan`` each: fan**depth shapes."""
    levels = "".join(
        f'<g id="l{d}">' + "".join(f'<use xlink:href="#l{d - 1}" transform="rotate({i})"/>'
                                   for i in range(fan)) + "</g>" for d in range(1, depth + 1))
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
            ' width="100" height="100"><defs><path id="l0" d="M0 0 L100 100 L0 100 Z" '
            f'fill="#c33" opacity="0.5"/>{levels}</defs><use xlink:href="#l{depth}"/></svg>'
            ).encode()


def qt_encoded(fmt: str, w: int = 40, h: int = 30) -> bytes:
    """A w×h picture written by Qt as ``fmt`` (JPEG, WEBP, BMP)."""
    from tacmap.ui.qt import QBuffer, QColor, QImage, QIODevice

    image = QImage(w, h, QImage.Format.Format_RGB32)
    image.fill(QColor("#3a7"))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, fmt)  # type: ignore[call-overload]
    return bytes(buffer.data().data())


def render_child(file: Path, out: Path, env: dict[str, str] | None = None,
                 ) -> tuple[int, str, int]:
    """``tacmap render file out`` in a child process: its exit code, stderr, peak RSS in MB.

    The child is a process of its own so that its peak memory is its own, and a
    hang ends at the timeout instead of stopping the test run.
    """
    wrapper = ("import resource, subprocess, sys\n"
               "done = subprocess.run([sys.executable, '-m', 'tacmap', 'render', *sys.argv[1:]],"
               " capture_output=True, text=True, timeout=120)\n"
               "sys.stderr.write(done.stderr)\n"
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", wrapper, str(file), str(out)],
                          capture_output=True, text=True, timeout=180,
                          env=env if env is not None else dict(os.environ))
    assert done.returncode == 0, done.stderr
    code, peak_kb = (int(v) for v in done.stdout.split())
    return code, done.stderr, peak_kb // 1024


def test_an_svg_portrait_of_nested_uses_is_refused_unseen_by_any_decoder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qapp: object) -> None:
    """Item 1: the 8 kB SVG that rendered for minutes is named and never decoded."""
    from tacmap.ui import images

    readers: list[bytes] = []

    class Spying(images.QImageReader):
        def __init__(self, device: Any, fmt: Any) -> None:
            readers.append(bytes(fmt.data()))
            super().__init__(device, fmt)

    monkeypatch.setattr(images, "QImageReader", Spying)
    bomb = "data:image/svg+xml;base64," + base64.b64encode(svg_bomb()).decode()
    assert len(bomb) < 10_000
    cache = ImageCache()
    assert cache.get(bomb, None, PORTRAIT_PIXELS, "the portrait of Barry", 128).isNull()
    assert cache.messages() == ["the portrait of Barry is an SVG drawing; a map or a portrait "
                                "must be PNG, JPEG or WebP: drawn without it"]
    assert readers == []


def test_render_names_an_svg_portrait_and_draws_the_rest(tmp_path: Path) -> None:
    bomb = "data:image/svg+xml;base64," + base64.b64encode(svg_bomb()).decode()
    path = _encounter(tmp_path, [bomb, uri(rgb_png(64, 64))])
    code, err, _ = render_child(path, tmp_path / "out.png")
    assert code == 0 and (tmp_path / "out.png").stat().st_size > 0
    assert err == ("tacmap: the portrait of P0 is an SVG drawing; a map or a portrait must be "
                   "PNG, JPEG or WebP: drawn without it\n")


@pytest.mark.parametrize(("data", "what"), [
    (svg_bomb(2, 2), "an SVG drawing"),
    (b"\xef\xbb\xbf  <?xml version='1.0'?>" + svg_bomb(2, 2), "an SVG drawing"),
    (GIF, "a GIF image"),
    (b"%PDF-1.4\n", "a PDF document"),
    (b"II*\x00" + b"\x00" * 20, "a TIFF image"),
    (b"\x1f\x8b\x08\x00", "a compressed file (SVGZ or gzip)"),
    (b"hello", "not an image tacmap knows"),
    (b"", "empty"),
])
def test_a_map_file_in_another_format_is_refused_whatever_its_name(
        tmp_path: Path, qapp: object, data: bytes, what: str) -> None:
    (tmp_path / "map.png").write_bytes(data)
    cache = ImageCache()
    assert cache.get("map.png", tmp_path, MAP_PIXELS, "the map image map.png").isNull()
    assert cache.messages() == [f"the map image map.png is {what}; a map or a portrait must be "
                                "PNG, JPEG or WebP: drawn without it"]


def test_a_bmp_is_refused_and_png_jpeg_and_webp_are_drawn(tmp_path: Path, qapp: object) -> None:
    cache = ImageCache()
    assert cache.get(uri(qt_encoded("BMP")), None, PORTRAIT_PIXELS, "Ana", 128).isNull()
    assert cache.messages() == ["Ana is a BMP image; a map or a portrait must be PNG, JPEG or "
                                "WebP: drawn without it"]
    for fmt in ("PNG", "JPEG", "WEBP"):
        (tmp_path / f"map.{fmt}").write_bytes(qt_encoded(fmt))
        pix = cache.get(f"map.{fmt}", tmp_path, MAP_PIXELS)
        assert (pix.width(), pix.height()) == (40, 30), fmt
        portrait = cache.get("data:;base64," + base64.b64encode(qt_encoded(fmt, 400, 200))
                             .decode(), None, PORTRAIT_PIXELS, edge=128)
        assert (portrait.width(), portrait.height()) == (128, 64), fmt
    assert len(cache.messages()) == 1


def test_a_named_pipe_as_the_map_image_is_named_not_waited_on(tmp_path: Path) -> None:
    """Item 2: ``render`` blocked forever opening a FIFO that no one writes to."""
    path = _encounter(tmp_path, [uri(rgb_png(64, 64))], map_image="map.png")
    (tmp_path / "images").mkdir()
    os.mkfifo(tmp_path / "images" / "map.png")
    code, err, _ = render_child(path, tmp_path / "out.png")
    assert code == 0 and (tmp_path / "out.png").is_file()
    assert err == "tacmap: the map image map.png is a named pipe, not a file: drawn without it\n"


def test_a_folder_or_a_device_as_an_image_is_named(tmp_path: Path, qapp: object) -> None:
    (tmp_path / "map.png").mkdir()
    (tmp_path / "null.png").symlink_to(os.devnull)
    cache = ImageCache()
    assert cache.get("map.png", tmp_path, MAP_PIXELS, "the map image map.png").isNull()
    assert cache.get("null.png", tmp_path, PORTRAIT_PIXELS, "the portrait of Zog", 128).isNull()
    assert cache.messages() == [
        "the map image map.png is a folder, not a file: drawn without it",
        "the portrait of Zog leads outside the encounter's image folder (through a link): "
        "drawn without it"]


def test_a_map_image_linked_from_outside_the_folder_is_not_drawn(tmp_path: Path) -> None:
    """Item 13: ``images/map.png`` linking to a file elsewhere passed the text check."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.png").write_bytes(rgb_png(200, 100))
    (tmp_path / "enc").mkdir()
    path = _encounter(tmp_path / "enc", [], map_image="map.png")
    (tmp_path / "enc" / "images").mkdir()
    (tmp_path / "enc" / "images" / "map.png").symlink_to(outside / "secret.png")
    code, err, _ = render_child(path, tmp_path / "out.png")
    assert code == 0
    assert err == ("tacmap: the map image map.png leads outside the encounter's image folder "
                   "(through a link): drawn without it\n")


def test_a_link_that_stays_inside_the_image_folder_is_drawn(tmp_path: Path, qapp: object) -> None:
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "cave.png").write_bytes(rgb_png(200, 100))
    (tmp_path / "map.png").symlink_to(tmp_path / "art" / "cave.png")
    cache = ImageCache()
    assert cache.get("map.png", tmp_path, MAP_PIXELS).width() == 200
    assert cache.messages() == []


def test_portraits_are_decoded_at_the_size_they_are_drawn(qapp: object) -> None:
    """Item 3: a 1-megapixel portrait is kept as 128×128, a small one as it is."""
    cache = ImageCache()
    big = cache.get(uri(rgb_png(1000, 1000)), None, PORTRAIT_PIXELS, "Ana", PORTRAIT_EDGE)
    assert (big.width(), big.height()) == (PORTRAIT_EDGE, PORTRAIT_EDGE)
    wide = cache.get(uri(rgb_png(1000, 250)), None, PORTRAIT_PIXELS, "Bo", PORTRAIT_EDGE)
    assert (wide.width(), wide.height()) == (PORTRAIT_EDGE, PORTRAIT_EDGE // 4)
    small = cache.get(uri(rgb_png(40, 30)), None, PORTRAIT_PIXELS, "Zog", PORTRAIT_EDGE)
    assert (small.width(), small.height()) == (40, 30)
    assert cache.portrait_pixels == PORTRAIT_EDGE * PORTRAIT_EDGE * 5 // 4 + 40 * 30


def test_portraits_past_the_budget_are_drawn_plain_and_said_once(qapp: object) -> None:
    fits = PORTRAIT_BUDGET // (PORTRAIT_EDGE * PORTRAIT_EDGE)
    one = rgb_png(PORTRAIT_EDGE, PORTRAIT_EDGE)
    cache = ImageCache()
    drawn = [cache.get(uri(tagged(one, i)), None, PORTRAIT_PIXELS, f"P{i}", PORTRAIT_EDGE)
             for i in range(fits + 3)]
    assert [p.isNull() for p in drawn] == [False] * fits + [True] * 3
    assert cache.portrait_pixels == PORTRAIT_BUDGET
    assert cache.messages() == [
        f"there are more portraits than tacmap decodes for one encounter (at most {fits:,} "
        "kept, from at most 256 megapixels of images): the tokens past them are drawn without "
        "their portrait"]
    # A portrait already decoded is still drawn: the budget counts distinct images.
    assert not cache.get(uri(tagged(one, 0)), None, PORTRAIT_PIXELS, "P0", PORTRAIT_EDGE).isNull()


def test_portraits_past_the_decoding_work_budget_are_drawn_plain(
        qapp: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding time is bounded too: large sources stop before the memory budget does."""
    from tacmap.ui import images

    monkeypatch.setattr(images, "PORTRAIT_WORK", 5_000_000)
    one = rgb_png(1000, 1000)
    cache = ImageCache()
    drawn = [cache.get(uri(tagged(one, i)), None, PORTRAIT_PIXELS, f"P{i}", PORTRAIT_EDGE)
             for i in range(7)]
    assert [p.isNull() for p in drawn] == [False] * 5 + [True] * 2
    assert cache.portrait_work == 5_000_000
    assert cache.messages() == [
        "there are more portraits than tacmap decodes for one encounter (at most 1,024 kept, "
        "from at most 5 megapixels of images): the tokens past them are drawn without their "
        "portrait"]


def test_a_map_image_replaced_lets_the_old_one_go(tmp_path: Path, qapp: object) -> None:
    cache = ImageCache()
    first = uri(rgb_png(300, 200, 1))
    cache.get(first, None, MAP_PIXELS)
    cache.get(uri(rgb_png(300, 200, 2)), None, MAP_PIXELS)
    assert first not in {key[0] for key in cache._pixmaps}


def test_many_megapixel_portraits_render_in_bounded_memory(tmp_path: Path) -> None:
    """Item 3: 2,400 distinct 1-megapixel portraits took ``render`` to 7.8 GB.

    600 of them here (main peaks over 1.1 GB on it): decoded at 128×128 and
    within the budgets, the child stays far below.
    """
    one = rgb_png(1000, 1000)
    path = _encounter(tmp_path, [uri(tagged(one, i)) for i in range(600)])
    code, err, peak_mb = render_child(path, tmp_path / "out.png")
    assert code == 0, err
    assert peak_mb < 500, f"render peaked at {peak_mb} MB"
    assert err == ("tacmap: there are more portraits than tacmap decodes for one encounter (at "
                   "most 1,024 kept, from at most 256 megapixels of images): the tokens past "
                   "them are drawn without their portrait\n")


def test_render_without_a_display_draws_offscreen(tmp_path: Path) -> None:
    """Item 15: with no DISPLAY and no platform named, Qt aborted ``render`` (exit 134)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    code, err, _ = render_child(Path(__file__).parents[2] / "resources" / "demo.tacmap",
                                tmp_path / "out.png", env)
    assert (code, err) == (0, "")
    assert (tmp_path / "out.png").stat().st_size > 0


def test_a_platform_the_user_chose_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from tacmap.ui.render import offscreen_without_screen

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", "minimal")
    offscreen_without_screen()
    assert os.environ["QT_QPA_PLATFORM"] == "minimal"
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setattr(sys, "platform", "linux")
    offscreen_without_screen()
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
    monkeypatch.setenv("QT_QPA_PLATFORM", "")
    monkeypatch.setenv("DISPLAY", ":5")
    offscreen_without_screen()
    assert os.environ["QT_QPA_PLATFORM"] == ""


def test_the_window_names_an_svg_map_image_in_the_status_bar(window: object) -> None:
    from tacmap.engine.model.commands import SetMapImage
    from tacmap.ui.window import MainWindow

    assert isinstance(window, MainWindow)
    bomb = "data:image/svg+xml;base64," + base64.b64encode(svg_bomb()).decode()
    window.run(SetMapImage(bomb, (0.0, 0.0), 0.1))
    assert window.scene.image_item.pixmap().isNull()
    assert window.statusBar().currentMessage() == (
        "The map image is an SVG drawing; a map or a portrait must be PNG, JPEG or WebP: "
        "drawn without it")
