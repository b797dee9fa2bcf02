"""``tacmap schema``: the encounter file as a JSON Schema, generated from the records."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from tacmap.cli import main
from tacmap.engine.rules.ruleset import Registry
from tacmap.kit.schema import file_type

ROOT = Path(__file__).resolve().parents[2]
DEMOS = sorted((ROOT / "resources").glob("*.tacmap"))


def test_schema_prints_the_file_token_and_log_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["$ref"] == "#/$defs/EncounterFile"
    defs = doc["$defs"]
    assert {"EncounterFile", "Encounter", "Token", "LogEntry", "Move", "Attack", "Act",
            "HpChanged", "ScheduleChanged"} <= set(defs)
    token = defs["Token"]
    assert set(token["required"]) >= {"id", "name", "side", "x", "y"}
    assert {"hp", "max_hp", "stats", "values", "conditions", "size"} <= set(token["properties"])
    # Generic records get their short names, and every reference points at a definition.
    refs = {r.split("/")[-1] for r in json.dumps(doc).split('"$ref": "')[1:]
            for r in [r.split('"')[0]]}
    assert refs <= set(defs)


def test_a_ruleset_adds_its_own_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--ruleset", "speed_rank"]) == 0
    defs = json.loads(capsys.readouterr().out)["$defs"]
    # "Plan" alone, or "speed_rank.Plan" once another ruleset with a Plan is loaded too.
    assert "Plan" in defs or "speed_rank.Plan" in defs


@pytest.mark.parametrize("path", DEMOS, ids=[p.stem for p in DEMOS])
def test_every_shipped_demo_has_the_shape_the_schema_gives(registry: Registry,
                                                           path: Path) -> None:
    ruleset = json.loads(path.read_bytes())["ruleset"]["id"]
    registry.get(ruleset)  # its records are known once it is loaded
    msgspec.json.decode(path.read_bytes(), type=file_type())
