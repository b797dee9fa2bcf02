"""Universal VTT import: a map maker's file becomes an encounter with its walls, doors and image."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
import shapely

from tacmap.cli import main
from tacmap.engine.files import storage, uvtt, uvtt_sample
from tacmap.engine.files.uvtt_sample import rooms
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import MAX_WALLS
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space.geometry import Walls
from tests.conftest import TEST_RULESETS


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--rulesets-dir", str(TEST_RULESETS), *args])
    out, err = capsys.readouterr()
    return code, out, err


def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str], registry: Registry,
             data: dict[str, Any], name: str = "crypt.dd2vtt") -> storage.Loaded:
    code, _, err = run(capsys, "import", str(write(tmp_path / name, data)),
                         str(tmp_path / "crypt.tacmap"), "--ruleset", "action_pool",
                         "--seed", "3")
    assert code == 0, err
    return storage.load(tmp_path / "crypt.tacmap", registry)


def test_import_lays_image_grid_walls_and_doors(tmp_path: Path, registry: Registry,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data = rooms(ppg=50)
    loaded = imported(tmp_path, capsys, registry, data)
    m = loaded.state.map
    assert (m.width, m.height) == (30, 20)
    # The image is the file's, in the image folder, and one cell is 50 of its pixels.
    assert m.image == "crypt.png"
    assert (tmp_path / loaded.images / "crypt.png").read_bytes() == \
        base64.b64decode(data["image"])
    assert m.image_scale == pytest.approx(1 / 50) and m.image_offset == (0.0, 0.0)
    doors = [w for w in m.walls if w.kind == "door"]
    assert sorted((d.points, d.open) for d in doors) == [
        (((12.0, 4.0), (12.0, 5.0)), False),   # between rooms A and B, closed
        (((17.0, 9.0), (18.0, 9.0)), True),    # room B's south door, open
        (((27.0, 13.0), (27.0, 15.0)), False),  # the freestanding door
    ]
    assert loaded.state.fog.enabled and loaded.log == []


def test_walls_block_moves_and_sight_and_doors_open(tmp_path: Path, registry: Registry,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    m = imported(tmp_path, capsys, registry, rooms()).state.map
    walls = Walls(m.walls)
    assert walls.sight_blocked((5, 5), (15, 5))        # room A's east wall
    assert walls.sight_blocked((11, 4), (13, 4))       # the closed door
    assert not walls.sight_blocked((17, 8), (17, 10))  # the open door
    assert walls.sight_blocked((12, 14), (17, 13))     # the diagonal wall
    assert walls.sight_blocked((24, 15), (24, 19))     # inside the curve, looking out
    assert walls.sight_blocked((4, 14), (7, 14))       # the pillar
    assert walls.step_test()((11, 4), (12, 4))         # a closed door bars a step


def test_shared_walls_are_kept_once_and_joined(tmp_path: Path, registry: Registry,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    walls = [w for w in imported(tmp_path, capsys, registry, rooms()).state.map.walls
             if w.kind == "wall"]
    segments = [frozenset(s) for w in walls for s in zip(w.points, w.points[1:], strict=False)]
    assert len(segments) == len(set(segments))  # room B's copy of the shared wall is gone
    assert frozenset({(12.0, 1.0), (12.0, 4.0)}) in segments
    curve = next(w for w in walls if len(w.points) == 13)  # 12 segments in one wall
    assert curve.points[0] == (27.0, 15.0)


def test_join_meets_at_ends_and_stops_at_junctions() -> None:
    a, b, c, d = (0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 1.0)
    assert uvtt.join([(a, b), (c, b)]) == [(a, b, c)]
    assert uvtt.join([(a, b), (b, a)]) == [(a, b)]
    assert sorted(uvtt.join([(a, b), (b, c), (b, d)])) == sorted([(a, b), (b, c), (b, d)])
    loop = uvtt.join([(a, b), (b, d), (d, a)])
    assert len(loop) == 1 and loop[0][0] == loop[0][-1] and len(loop[0]) == 4


def test_origin_shifts_walls_to_the_map_corner(tmp_path: Path, registry: Registry,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    plain = imported(tmp_path, capsys, registry, rooms(image=False)).state.map.walls
    shifted = uvtt.read(json.dumps(rooms(image=False, origin=(5.0, -3.0))).encode())
    assert shifted.walls == plain


@pytest.mark.parametrize("fmt", [0.2, 0.3, 1.0, 1])
def test_formats_read(fmt: float) -> None:
    read = uvtt.read(json.dumps(rooms(image=False, fmt=fmt)).encode())
    assert (len(read.walls) - read.doors, read.doors) == (9, 3)


def test_lights_and_environment_are_kept_in_the_file(tmp_path: Path, registry: Registry,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = rooms(image=False)
    loaded = imported(tmp_path, capsys, registry, data)
    extras = loaded.state.map_extras
    assert extras["format"] == 0.3
    assert extras["environment"]["ambient_light"] == "ff7f7f7f"
    assert extras["lights"][0]["range"] == 6
    # Saved again, they are still there.
    storage.save(tmp_path / "again.tacmap", loaded.state, loaded.log)
    assert storage.load(tmp_path / "again.tacmap", registry).state == loaded.state


def test_a_file_without_imports_keeps_its_bytes(registry: Registry) -> None:
    from tests.engine.helpers import skirmish_state

    assert b"map_extras" not in storage.encode(skirmish_state(), [])


def test_a_wall_off_the_map_is_clipped_with_a_note(tmp_path: Path, registry: Registry,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "off.uvtt", rooms(image=False, outside=True))
    code, out, _ = run(capsys, "import", str(source), str(tmp_path / "off.tacmap"),
                       "--ruleset", "action_pool")
    assert code == 0
    assert "1 wall was partly or wholly outside the 30×20 map and clipped" in out
    walls = storage.load(tmp_path / "off.tacmap", registry).state.map.walls
    assert any(w.points == ((26.0, 5.0), (30.0, 5.0)) for w in walls)


def _bad(kind: str) -> Any:
    data = rooms(image=False)
    if kind == "json":
        return "{\"format\": 0.3, \"resolution\": "
    if kind == "resolution":
        del data["resolution"]
    elif kind == "one point":
        data["line_of_sight"].append([{"x": 3, "y": 3}])
    elif kind == "jpeg":
        data["image"] = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(100)).decode()
    elif kind == "too many":
        data["line_of_sight"] = [[{"x": i % 30, "y": i // 30 * 0.001},
                                  {"x": i % 30 + 0.5, "y": i // 30 * 0.001 + 0.5}]
                                 for i in range(MAX_WALLS + 1)]
    elif kind == "format":
        data["format"] = 7
    elif kind == "door":
        data["portals"][1]["bounds"] = [{"x": 3, "y": 3}, {"x": 3, "y": 3}]
    elif kind == "no grid size":
        del data["resolution"]["pixels_per_grid"]
    return data


@pytest.mark.parametrize(("kind", "sentence"), [
    ("json", "not JSON, so not a Universal VTT map"),
    ("resolution", "resolution: missing"),
    ("one point", "line_of_sight[6]: a wall needs at least two points, this one has 1"),
    ("jpeg", "image: the map image is a JPEG image; a Universal VTT image must be PNG or WebP"),
    ("too many", "walls and doors after joining, more than the 10,000 a map may hold"),
    ("format", "format: 7 is not a Universal VTT version tacmap reads"),
    ("door", "portals[1].bounds: a door needs two different ends"),
    # Python's None is no word for a GM: "pixels_per_grid: None is not a number …".
    ("no grid size", "resolution.pixels_per_grid: missing; the grid's size in pixels"),
])
def test_bad_files_say_why_in_one_sentence_and_write_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, sentence: str) -> None:
    source = write(tmp_path / "bad.dd2vtt", _bad(kind))
    code, out, err = run(capsys, "import", str(source), str(tmp_path / "out" / "bad.tacmap"),
                         "--ruleset", "action_pool")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and sentence in err, err
    assert err.startswith(f"tacmap: {source}: ")
    assert not (tmp_path / "out").exists()


def test_an_existing_encounter_is_not_overwritten(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "a.uvtt", rooms())
    (tmp_path / "a.tacmap").write_text("mine")
    code, _, err = run(capsys, "import", str(source), str(tmp_path / "a.tacmap"),
                       "--ruleset", "action_pool")
    assert code == 2 and "already exists" in err
    assert (tmp_path / "a.tacmap").read_text() == "mine"
    assert not (tmp_path / "images").exists()


def test_webp_size_is_read_from_its_header() -> None:
    lossless = b"RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f" + \
        ((639) | (479 << 14)).to_bytes(4, "little")
    assert uvtt.image_size(lossless, "webp") == (640, 480)
    extended = b"RIFF\x00\x00\x00\x00WEBPVP8X" + bytes(8) + (4095).to_bytes(3, "little") + \
        (2730).to_bytes(3, "little")
    assert uvtt.image_size(extended, "webp") == (4096, 2731)


def test_walls_for_a_smaller_map_are_clipped() -> None:
    data = uvtt.read(json.dumps(rooms(image=False)).encode())
    walls, notes = uvtt.walls_for(data, 20, 20)
    assert all(x <= 20 for w in walls for x, _ in w.points)
    assert notes and "clipped to this 20×20 map" in notes[0]


# --------------------------------------------------------------------------- doors under walls

#: Room A (0,0)-(6,6) and room B (6,0)-(12,6) share the wall x = 6; the door is (6,2)-(6,3).
DOOR = ((6.0, 2.0), (6.0, 3.0))
#: Room A's outline, cut at the door as the map maker drew it.
ROOM_A: list[tuple[float, float]] = [(6, 3), (6, 6), (0, 6), (0, 0), (6, 0), (6, 2)]


def two_rooms(*walls: list[tuple[float, float]]) -> dict[str, Any]:
    """A 12×6-cell map of room A and the ``walls`` given, with one closed door at ``DOOR``."""
    def line(points: list[tuple[float, float]]) -> list[dict[str, float]]:
        return [{"x": x, "y": y} for x, y in points]

    return {"format": 1.0,
            "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 12, "y": 6},
                           "pixels_per_grid": 50},
            "line_of_sight": [line(ROOM_A), *(line(w) for w in walls)],
            "portals": [{"bounds": line(list(DOOR)), "closed": True}]}


@pytest.mark.parametrize(("walls", "cut"), [
    # room B's outline runs straight over the door
    ([[(6, 0), (12, 0), (12, 6), (6, 6), (6, 0)]], 1),
    # room B's west wall has a point inside the door's span and one below it
    ([[(6, 0), (6, 2.5), (6, 4), (6, 6)], [(6, 0), (12, 0), (12, 6), (6, 6)]], 1),
    # two walls lie along each other over the door
    ([[(6, 0), (6, 6)], [(6, 1), (6, 5)], [(6, 0), (12, 0), (12, 6), (6, 6)]], 2),
])
def test_a_door_under_another_rooms_wall_opens(
        tmp_path: Path, registry: Registry, capsys: pytest.CaptureFixture[str],
        walls: list[list[tuple[float, float]]], cut: int) -> None:
    from tacmap.engine.model.commands import Move, SetDoor, StartCombat
    from tacmap.engine.model.state import Token
    from tacmap.engine.play.referee import Referee
    from tacmap.engine.space import vision

    source = write(tmp_path / "rooms.dd2vtt", two_rooms(*walls))
    code, out, err = run(capsys, "import", str(source), str(tmp_path / "rooms.tacmap"),
                         "--ruleset", "action_pool")
    assert code == 0, err
    s = "" if cut == 1 else "s"
    assert f"note: {cut} wall{s} ran across a door and {'was' if cut == 1 else 'were'} cut " \
        "at it" in out
    state = uvtt.encounter(uvtt.read(source.read_bytes()), registry.get("skirmish"), "rooms",
                           3, None)
    state.tokens["ana"] = Token("ana", "Ana", "party", 4, 2)
    state.tokens["orc"] = Token("orc", "Orc", "orcs", 10, 5)
    referee = Referee(state, registry.get("skirmish"))
    beyond = shapely.Point(8.5, 2.5)

    def ana_sees(point: shapely.Point) -> bool:
        return bool(vision.Sight(Walls(state.map.walls), 12, 6).of((4, 2, 1, None))
                    .contains(point))

    assert ana_sees(shapely.Point(1.5, 4.5)) and not ana_sees(beyond)
    door = next(i for i, w in enumerate(state.map.walls) if w.kind == "door")
    assert state.map.walls[door].points == DOOR
    # No wall is left anywhere along the door's span.
    assert not any(w.kind == "wall" and a[0] == b[0] == 6 and min(a[1], b[1]) < 3
                   and max(a[1], b[1]) > 2 for w in state.map.walls
                   for a, b in zip(w.points, w.points[1:], strict=False))
    referee.execute(SetDoor(door, True))
    assert ana_sees(beyond) and vision.area_shape(state.fog.explored).contains(beyond)
    referee.execute(StartCombat(("ana", "orc")))
    through = referee.preview(Move("ana", ((7, 2),)))
    assert through.legal and through.path == ((4, 2), (5, 2), (6, 2), (7, 2)), through


def test_a_door_cuts_only_the_wall_along_it() -> None:
    # A wall crossing the door's line, and one along the same line but clear of the door.
    read = uvtt.read(json.dumps(two_rooms([(5, 2.5), (7, 2.5)], [(6, 3.5), (6, 5)])).encode())
    assert "across a door" not in " ".join(read.notes)
    points = {w.points for w in read.walls if w.kind == "wall"}
    assert ((5.0, 2.5), (7.0, 2.5)) in points and ((6.0, 3.5), (6.0, 5.0)) in points


def test_the_clip_note_counts_the_walls_as_drawn(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = rooms(image=False)
    # Twelve walls of three segments each leave the map's right edge and come back.
    data["line_of_sight"] += [[{"x": 26, "y": i + 1}, {"x": 32, "y": i + 1},
                               {"x": 32, "y": i + 1.5}, {"x": 26, "y": i + 1.5}]
                              for i in range(12)]
    source = write(tmp_path / "off.uvtt", data)
    code, out, _ = run(capsys, "import", str(source), str(tmp_path / "off.tacmap"),
                       "--ruleset", "action_pool")
    assert code == 0
    assert "note: 12 walls were partly or wholly outside the 30×20 map and clipped" in out


# --------------------------------------------------------------------------- memory


def _many(key: str, items: int) -> bytes:
    """A Universal VTT file whose ``key`` list holds ``items`` small entries."""
    item = {"line_of_sight": '[{"x": 1.5, "y": 2.25}, {"x": 2.5, "y": 2.25}]',
            "objects_line_of_sight": '[{"x": 1.5, "y": 2.25}, {"x": 2.5, "y": 2.25}]',
            "portals": '{"bounds": [{"x": 1.5, "y": 2}, {"x": 2.5, "y": 2}], "closed": true}',
            "lights": '{"position": {"x": 1.5, "y": 2}, "range": 6}'}[key]
    return ('{"format": 1.0, "resolution": {"map_size": {"x": 30, "y": 20}, '
            f'"pixels_per_grid": 50}}, "{key}": [' + ", ".join([item] * items) + "]}").encode()


@pytest.mark.parametrize(("key", "sentence"), [
    ("line_of_sight", "line_of_sight: more than 20,000 wall points, more than the 10,000 "
                      "walls a map may hold"),
    ("objects_line_of_sight", "line_of_sight: more than 20,000 wall points"),
    ("portals", "portals: more than 20,000 doors and points, more than the 10,000 "
                "walls and doors a map may hold"),
    ("lights", "lights: the value is too big (more than 10,000 items"),
])
def test_a_file_over_the_counts_is_refused_before_it_is_decoded(
        monkeypatch: pytest.MonkeyPatch, key: str, sentence: str) -> None:
    import tracemalloc

    monkeypatch.setattr(uvtt, "MAX_POINTS", 20_000)  # the same rule, a smaller file
    raw = _many(key, 30_000)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=re.escape(sentence)):
            uvtt.read(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Decoded, the entries take ten times the file's bytes; counted, next to nothing.
    assert peak < len(raw) // 2, f"{peak:,} bytes to refuse a {len(raw):,}-byte file"


def test_an_image_over_the_pixel_limit_is_refused_before_it_is_decoded() -> None:
    import tracemalloc

    header = uvtt_sample.png(8, 8)[:33]
    big = header[:16] + (10_000).to_bytes(4, "big") * 2 + header[24:] + bytes(3_000_000)
    data = rooms(image=False)
    data["image"] = base64.b64encode(big).decode()
    raw = json.dumps(data).encode()
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="image: the map image is 10000×10000 pixels, "
                                             "over the 64 megapixel limit of a map image"):
            uvtt.read(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The base64 text is read once; its 3 MB of pixels are never decoded.
    assert peak < len(raw) * 1.5, f"{peak:,} bytes to refuse a {len(raw):,}-byte file"
