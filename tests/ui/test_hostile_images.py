"""Issue 17 item 4: a small file must not demand gigabytes through its images."""

from __future__ import annotations

import base64
import resource
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.ruleset import Registry
from tacmap.engine.storage import load
from tacmap.ui.images import MAP_PIXELS, PORTRAIT_PIXELS, ImageCache


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


def test_a_small_portrait_and_a_large_map_are_drawn(qapp: object) -> None:
    cache = ImageCache()
    assert cache.get(uri(huge_png(1000, 1000)), None, PORTRAIT_PIXELS).width() == 1000
    assert cache.get(uri(huge_png(3000, 2000)), None, MAP_PIXELS).width() == 3000
    assert cache.messages() == []


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
        {**base, "id": f"p{i}", "name": f"P{i}", "x": i, "y": 19, "image": image}
        for i, image in enumerate(portraits)]
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
    from tacmap.engine.commands import SetMapImage
    from tacmap.ui.window import MainWindow

    assert isinstance(window, MainWindow)
    window.run(SetMapImage(uri(huge_png(9000, 9000)), (0.0, 0.0), 0.1))
    assert window.scene.image_item.pixmap().isNull()
    assert window.statusBar().currentMessage() == (
        "The map image is 9000×9000 pixels, over the 64 megapixel limit: drawn without it")


def test_the_player_view_draws_the_gm_maps_images_without_decoding_them_again(
        window: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from tacmap.engine.commands import SetMapImage
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
