"""The roster: combatants kept in SQLite, surviving a killed writer, refusing what it can't read."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files.roster import (
    APPLICATION_ID,
    VERSION,
    Roster,
    RosterEntry,
    clean_tags,
    default_path,
    next_copy,
)
from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Token

ORC = Token("orc", "Orc", "foes", 0, 0, hp=9, max_hp=9, stats={"str": 3, "weapon": "axe"})
ARCHER = Token("gob", "Goblin Archer", "foes", 0, 0, hp=5, max_hp=5,
               stats={"dex": 3, "weapon": "shortbow"})
KNIGHT = Token("sir", "Sir Ülrich", "party", 0, 0, stats={"str": 4})


@pytest.fixture
def roster(tmp_path: Path) -> Iterator[Roster]:
    with Roster(tmp_path / "data" / "roster.sqlite3") as r:
        yield r


def one_sentence(err: pytest.ExceptionInfo[InputError]) -> str:
    text = str(err.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# --------------------------------------------------------------------------- entries


def test_add_get_update_remove(roster: Roster) -> None:
    orc = roster.add("action_pool", ORC, [" Melee ", "orc", "MELEE", ""])
    entry = roster.get(orc)
    assert entry == RosterEntry(orc, "action_pool", "Orc", ("Melee", "orc"), ORC)
    entry.token.hp = 1                                      # a copy: the roster is untouched
    assert roster.get(orc).token.hp == 9
    roster.update(orc, Token("orc", "Orc Chief", "foes", 0, 0, hp=20, max_hp=20), ["boss"])
    assert roster.get(orc).name == "Orc Chief" and roster.get(orc).tags == ("boss",)
    assert roster.get(orc).ruleset == "action_pool"
    roster.remove(orc)
    for call in (lambda: roster.get(orc), lambda: roster.remove(orc),
                 lambda: roster.update(orc, ORC, [])):
        with pytest.raises(InputError, match=f"the roster has no entry {orc}"):
            call()
    # Ids are never reused: a stale id in a window cannot name a newer entry.
    assert roster.add("action_pool", ORC, []) > orc


def test_search_by_name_or_tag_per_ruleset_ignoring_case(roster: Roster) -> None:
    roster.add("action_pool", ORC, ["melee", "greenskin"])
    roster.add("action_pool", ARCHER, ["ranged", "Greenskin"])
    roster.add("action_pool", KNIGHT, ["melee", "100%_human"])
    roster.add("speed_rank", ORC, ["melee"])

    def names(text: str) -> list[str]:
        return [e.name for e in roster.search("action_pool", text)]

    assert names("") == ["Goblin Archer", "Orc", "Sir Ülrich"]
    assert names("ORC") == ["Orc"]
    assert names("GREENSKIN") == ["Goblin Archer", "Orc"]
    assert names("melee") == ["Orc", "Sir Ülrich"]
    assert names("ülrich") == names("ÜLRICH") == ["Sir Ülrich"]
    assert names("skin rang") == ["Goblin Archer"]          # every word must match
    assert names("%") == ["Sir Ülrich"] and names("_") == ["Sir Ülrich"]   # not wildcards
    assert names("dragon") == []
    assert [e.ruleset for e in roster.search("speed_rank")] == ["speed_rank"]
    assert roster.search("opposed") == []
    assert roster.rulesets() == ["action_pool", "speed_rank"]
    assert roster.search("action_pool", "orc")[0].tags == ("melee", "greenskin")


def test_the_database_persists_and_keeps_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "roster.sqlite3"
    with Roster(path) as r:
        orc = r.add("action_pool", ORC, ["melee"])
    with Roster(path) as r:
        assert r.get(orc).token == ORC
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_bad_tag_is_refused() -> None:
    assert clean_tags(["  a  b ", "A B", "c"]) == ("a b", "c")
    with pytest.raises(InputError, match="longer than 100 characters"):
        clean_tags(["x" * 101])


def test_the_default_roster_lives_in_the_user_data_folder() -> None:
    path = default_path()
    assert path.name == "roster.sqlite3" and "tacmap" in str(path.parent)


# --------------------------------------------------------------------------- bad files


def test_a_roster_from_a_newer_tacmap_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "roster.sqlite3"
    with Roster(path) as r:
        r.add("action_pool", ORC, [])
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {VERSION + 1}")
    db.close()
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        Roster(path)
    assert one_sentence(err) == (f"{path} was written by a newer tacmap (roster version "
                                 f"{VERSION + 1}, this one reads up to {VERSION})")
    assert path.read_bytes() == before


@pytest.mark.parametrize("damage", ["garbage", "truncated", "scribbled", "foreign"])
def test_a_damaged_or_foreign_file_is_one_sentence(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "roster.sqlite3"
    with Roster(path) as r:
        for i in range(200):
            r.add("action_pool", Token(f"orc{i}", f"Orc {i}", "foes", 0, 0,
                                       stats={"note": "x" * 300}), ["melee"])
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"this is not a database at all, just some text" * 100)
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "scribbled":
        page = 4096
        path.write_bytes(data[:page * 3] + bytes(range(256)) * 16 + data[page * 4:])
    else:
        path.unlink()
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE photos (id INTEGER)")
        db.commit()
        db.close()
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        Roster(path)
    text = one_sentence(err)
    assert text.startswith(str(path))
    assert "damaged" in text or "another program" in text
    assert path.read_bytes() == before                      # never "repaired" by writing


def test_a_folder_is_not_a_roster(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder"):
        Roster(tmp_path)


# --------------------------------------------------------------------------- JSON


def test_export_then_import_into_another_roster(tmp_path: Path, roster: Roster) -> None:
    roster.add("action_pool", ORC, ["melee"])
    roster.add("action_pool", ARCHER, [])
    roster.add("speed_rank", KNIGHT, ["hero"])
    out = tmp_path / "all.json"
    assert roster.export_json(out) == 3
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert (doc["format"], doc["version"]) == ("tacmap-roster", 1)
    assert doc["combatants"][0] == {"ruleset": "action_pool", "tags": ["melee"],
                                    "token": records.plain(ORC)}
    assert roster.export_json(tmp_path / "sr.json", "speed_rank") == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    with Roster(tmp_path / "other.sqlite3") as other:
        assert other.import_json(out) == 3
        assert [e.name for e in other.search("action_pool")] == ["Goblin Archer", "Orc"]
        assert other.search("speed_rank", "hero")[0].token == KNIGHT
        # The same file again adds nothing: each entry is already kept, exactly.
        assert other.import_json(out) == 0
        assert other.import_json(tmp_path / "sr.json") == 0


def _export(path: Path, combatants: list[object], version: object = 1) -> Path:
    path.write_text(json.dumps({"format": "tacmap-roster", "version": version,
                                "combatants": combatants}), encoding="utf-8")
    return path


GOOD = {"ruleset": "action_pool", "tags": ["melee"], "token": records.plain(ORC)}


@pytest.mark.parametrize(("doc", "words"), [
    ({"version": 2}, "was written by a newer tacmap (roster file version 2, this one reads "
                     "up to 1)"),
    ({"version": "1"}, "\"version\" must be a whole number from 1"),
    ({"combatants": [GOOD, {**GOOD, "token": {**records.plain(ORC), "hp": "lots"}}]},
     "combatants[1].token.hp: expected a whole number, got 'lots'"),
    ({"combatants": [GOOD, {**GOOD, "tags": "melee"}]},
     "combatants[1].tags: expected a list, got 'melee'"),
    ({"combatants": [GOOD, {"token": records.plain(ORC)}]}, "combatants[1]: missing 'ruleset'"),
    ({"combatants": [GOOD, {**GOOD, "colour": "red"}]}, "combatants[1]: unknown key 'colour'"),
    ({"combatants": [GOOD, {**GOOD, "token": {"type": "move", "actor": "x"}}]},
     "combatants[1].token: unknown token type 'move'"),
    ({"combatants": {"orc": GOOD}}, "\"combatants\" must be a list"),
])
def test_a_bad_or_newer_export_adds_nothing(tmp_path: Path, roster: Roster,
                                            doc: dict[str, object], words: str) -> None:
    base: dict[str, object] = {"format": "tacmap-roster", "version": 1, "combatants": [GOOD]}
    path = tmp_path / "in.json"
    path.write_text(json.dumps({**base, **doc}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        roster.import_json(path)
    assert one_sentence(err) == f"{path}: {words}"
    assert roster.search("action_pool") == []


@pytest.mark.parametrize(("raw", "words"), [
    (b"", "the file is empty"),
    (b'{"format": "tacmap-roster", "version": 1, "combatants": [', "looks truncated"),
    (b'{"format": "tacmap-encounter", "version": 1}', "not a tacmap roster export"),
    (b'[1, 2]', "not a tacmap roster export"),
    (b'{"format": "tacmap-roster", "version": 1, "combatants": [], "x": NaN}',
     "NaN is not a number"),
])
def test_an_unreadable_export_is_one_sentence(tmp_path: Path, roster: Roster, raw: bytes,
                                              words: str) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(raw)
    with pytest.raises(InputError) as err:
        roster.import_json(path)
    assert words in one_sentence(err)
    with pytest.raises(InputError, match="no such file"):
        roster.import_json(tmp_path / "missing.json")


# --------------------------------------------------------------------------- copies


def test_copy_for_takes_the_first_free_id_and_numbers_the_name(roster: Roster) -> None:
    wounded = Token("orc", "Orc", "foes", 4, 4, hp=2, max_hp=9, values={"pool": 3},
                    conditions=("prone",), stats={"str": 3})
    orc = roster.add("action_pool", wounded, [])
    first = roster.copy_for(orc, ["ana"])
    assert (first.id, first.name) == ("orc", "Orc")
    # A copy starts fresh: unhurt, no conditions, nothing tracked in play.
    assert (first.hp, first.values, first.conditions, first.stats) == (9, {}, (), {"str": 3})
    second = roster.copy_for(orc, ["ana", "orc"])
    assert (second.id, second.name) == ("orc-2", "Orc 2")
    assert roster.copy_for(orc, ["orc", "orc-2", "orc-4"]).id == "orc-3"


def test_next_copy_counts_orc_orc_2_orc_3() -> None:
    tokens: dict[str, Token] = {"orc": Token("orc", "Orc", "foes", 1, 1, hp=3, max_hp=9,
                                             conditions=("dead",))}
    two = next_copy(tokens["orc"], tokens)
    assert (two.id, two.name, two.hp, two.conditions) == ("orc-2", "Orc 2", 9, ())
    tokens[two.id] = two
    three = next_copy(two, tokens.values())          # duplicating "Orc 2" gives "Orc 3"
    assert (three.id, three.name) == ("orc-3", "Orc 3")
    tokens[three.id] = three
    assert next_copy(tokens["orc"], tokens).name == "Orc 4"
    del tokens["orc-2"]
    assert next_copy(tokens["orc"], tokens).name == "Orc 2"   # the first free number
    # A name taken by a token of another id is skipped too.
    tokens["x"] = Token("x", "Orc 2", "foes", 0, 0)
    assert next_copy(tokens["orc"], tokens).name == "Orc 4"
    long = Token("o" * 64, "Ogre", "foes", 0, 0)
    assert len(next_copy(long, [long]).id) == 64


# --------------------------------------------------------------------------- crash


WRITER = r"""
import json, random, sys
from pathlib import Path
from tacmap.engine.model import records
from tacmap.engine.files.roster import Roster
from tacmap.engine.model.state import Token

path, folder = Path(sys.argv[1]), Path(sys.argv[2])
rng = random.Random(int(sys.argv[3]))
roster = Roster(path)
k = int(sys.argv[4])
while True:
    k += 1
    # 25 entries in one transaction (an import): ids t<k>-0 … t<k>-24, tagged b<k>.
    batch = [{"ruleset": "action_pool", "tags": [f"b{k}", "crash"],
              "token": records.plain(Token(f"t{k}-{j}", f"B{k} #{j}", "foes", 0, 0,
                                          stats={"note": "x" * rng.randrange(4000)}))}
             for j in range(25)]
    doc = folder / f"batch{k}.json"
    doc.write_text(json.dumps({"format": "tacmap-roster", "version": 1,
                               "combatants": batch}))
    roster.import_json(doc)
    # Rename an entry and tag it with this write's number, in one transaction.
    found = roster.search("action_pool", "crash")
    entry = found[rng.randrange(len(found))]
    token = entry.token
    token.name = f"{entry.name.split(' ~')[0]} ~{k}"
    roster.update(entry.id, token, [*entry.tags[:2], f"u{k}"])
    if k % 3 == 0:
        # Remove an entry and put it back: two writes, so a kill between them loses it.
        victim = roster.get(found[rng.randrange(len(found))].id)
        roster.remove(victim.id)
        roster.add("action_pool", victim.token, [*victim.tags, "re"])
    print(k, flush=True)
"""


def _consistent(path: Path, kills: int) -> int:
    """Open the roster after ``kills`` kills; check every write landed whole."""
    with Roster(path) as r:
        entries = r.search("action_pool")
    ids: dict[str, set[str]] = {}
    for e in entries:
        assert e.name == e.token.name
        batch, crash, *rest = e.tags
        assert batch.startswith("b") and crash == "crash"
        renamed = e.name.rsplit(" ~", 1)
        # A rename and its tag were one write: both landed, or neither.
        assert [t for t in rest if t.startswith("u")] == \
            ([f"u{renamed[1]}"] if len(renamed) == 2 else []), e
        assert set(rest) - {"re"} <= {f"u{renamed[-1]}"}
        k, j = e.token.id[1:].split("-")
        assert f"b{k}" == batch
        assert j not in ids.setdefault(batch, set()), f"{e.token.id} twice"
        ids[batch].add(j)
    # An import is one transaction: a batch is all there, or not at all. Only a kill
    # between a removal and the add that follows it loses one entry.
    missing = sum(25 - len(js) for js in ids.values())
    assert all(len(js) >= 24 for js in ids.values()) and missing <= kills
    return len(entries)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.slow
def test_a_writer_killed_mid_write_leaves_a_readable_consistent_roster(tmp_path: Path) -> None:
    path = tmp_path / "roster.sqlite3"
    Roster(path).close()
    counts = [0]
    for attempt in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(tmp_path), str(attempt),
             str(1000 * attempt)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stderr is not None
        lines = [child.stdout.readline() for _ in range(2 + attempt)]
        if not all(line.strip() for line in lines):
            child.kill()
            pytest.fail(f"the writer stopped: {child.stderr.read()}")
        time.sleep(0.002 * attempt)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
        assert child.returncode == -signal.SIGKILL
        counts.append(_consistent(path, attempt + 1))
        assert counts[-1] > counts[-2]


def test_an_export_saved_with_a_byte_order_mark_imports(tmp_path: Path, roster: Roster) -> None:
    path = tmp_path / "bom.json"
    doc = {"format": "tacmap-roster", "version": 1, "combatants": [GOOD]}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc).encode())
    assert roster.import_json(path) == 1


@pytest.mark.parametrize(("damage", "said"), [
    ("UPDATE combatant SET token = '{\"id\": x}' WHERE name = 'Orc'", "not valid JSON"),
    ("UPDATE combatant SET token = replace(token, '\"hp\":9', '\"hp\":\"nine\"') "
     "WHERE name = 'Orc'", "token.hp: expected a whole number, got 'nine'"),
    ("UPDATE combatant SET token = replace(token, '\"hidden\":false', "
     "'\"hidden\":false,\"aura\":3') WHERE name = 'Orc'", "token.aura: unknown field"),
    ("UPDATE tag SET tag = CAST('melee' AS BLOB)", "the tag b'melee' is bytes, not text"),
    ("UPDATE combatant SET token = zeroblob(2000000) WHERE name = 'Orc'",
     "the token is 2,000,000 bytes, more than the 1,048,576 a roster entry may hold"),
    # Issue 33 item 18: the README's 100 tags of 100 characters hold for stored rows too.
    ("INSERT INTO tag (combatant, position, tag) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
     "SELECT i + 1 FROM n WHERE i < 4999) SELECT c.id, i, 'tag ' || i FROM n, combatant c "
     "WHERE c.name = 'Orc'", "it has 5,000 tags, more than the 100 an entry may have"),
    ("UPDATE tag SET tag = 'melee ' || hex(zeroblob(60))",
     "the tag 'melee 00000000000000'… is longer than 100 characters"),
])
def test_a_damaged_row_is_skipped_once_named_and_kept(tmp_path: Path, damage: str,
                                                      said: str) -> None:
    """Issue 23 item 11: one bad row never stops a listing, an export or the app."""
    path = tmp_path / "roster.sqlite3"
    with Roster(path) as roster:
        orc = roster.add("action_pool", ORC, ["melee"])
        roster.add("action_pool", ARCHER)
    with sqlite3.connect(path) as db:
        db.execute(damage)
        kept = db.execute("SELECT token, typeof(token) FROM combatant WHERE id = ?",
                          (orc,)).fetchone()
    with Roster(path) as roster:
        assert [e.name for e in roster.search("action_pool")] == ["Goblin Archer"]
        messages = roster.skipped()
        assert len(messages) == 1
        assert messages[0].startswith(f"{path}: roster entry {orc} (Orc) is damaged and was "
                                      "skipped (")
        assert said in messages[0] and messages[0].endswith("it is kept in the roster as it is")
        for text in ("", "gob", "melee"):  # every keypress in the search box: no new message
            roster.search("action_pool", text)
        assert roster.skipped() == []
        assert roster.export_json(tmp_path / "out.json") == 1
        with pytest.raises(InputError, match="is damaged"):
            roster.get(orc)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT token, typeof(token) FROM combatant WHERE id = ?",
                          (orc,)).fetchone() == kept
