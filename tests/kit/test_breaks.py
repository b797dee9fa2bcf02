"""Issue 38: the five ways an author breaks a ruleset by mistake, each caught by
``tacmap ruleset check`` on a copy of the kit template, with its sentence and exit code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tacmap.cli import main

QUICK = ("--seeds", "1", "--rounds", "4")


def check(capsys: pytest.CaptureFixture[str], folder: Path, *extra: str) -> tuple[int, str]:
    code = main(["--trust-rulesets", "ruleset", "check", str(folder), *QUICK, *extra])
    out, _ = capsys.readouterr()
    return code, re.sub(r" \(\d+\.\d s\)$", "", out, flags=re.M)


@pytest.fixture
def made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A ruleset just written by ``tacmap ruleset new broken``."""
    assert main(["ruleset", "new", "broken", str(tmp_path)]) == 0
    capsys.readouterr()
    return tmp_path / "broken"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.parametrize(("wrong", "right"), [("option", "options"),
                                              ("status_line", "status_lines")])
def test_a_view_name_typo_is_named_with_the_name_meant(
        made: Path, capsys: pytest.CaptureFixture[str], wrong: str, right: str) -> None:
    if right == "options":
        edit(made / "views.py", "def options(", f"def {wrong}(")
    else:
        (made / "views.py").write_text((made / "views.py").read_text() + (
            f"\n\ndef {wrong}(rules: TurnRuleset[Any], state: Encounter, token: Token"
            ") -> tuple[str, ...]:\n    return ()\n"))
    code, out = check(capsys, made)
    assert code == 2
    assert out.startswith("shape: FAILED")
    assert f"    views.{wrong}: did you mean {right}? (the engine never calls {wrong})" in out


def test_a_rules_hook_typo_is_named_with_the_hook_meant(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(made / "rules.py", "    def attack(", "    def out_of_figth(self, token: Token) -> bool:\n"
         "        return token.hp <= 0\n\n    def attack(")
    code, out = check(capsys, made)
    assert code == 2
    assert "    rules.out_of_figth: did you mean out_of_fight?" in out


def test_an_option_enabled_with_no_legal_target_is_listed_and_strict_fails(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Listed, failing only under --strict: the built-ins leave Attack enabled out of reach
    # on purpose (the target's preview greys it with the reason).
    edit(made / "views.py", '"" if near else "no enemy within reach"', '""')
    code, out = check(capsys, made)
    assert code == 0 and "contract: ok" in out, out
    assert re.search(r"seed 0: step \d+: 'Attack' of \w+ is enabled, but no token is a "
                     r"legal target \(the referee refuses every one\)", out), out
    code, out = check(capsys, made, "--strict")
    assert code == 2
    assert re.search(r"seed 0: step \d+: 'Attack' of \w+ is enabled, but no token is a "
                     r"legal target \(the referee refuses every one\)", out), out


def test_an_options_view_that_offers_nothing_fails_the_contract(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The window's Actions panel would hold only the machinery's Move and End turn.
    edit(made / "views.py", "def options(", "def options_meant(")
    (made / "views.py").write_text((made / "views.py").read_text() + (
        "\n\ndef options(rules: TurnRuleset[Any], state: Encounter, token: Token"
        ") -> list[ActionOption]:\n    return []\n"))
    code, out = check(capsys, made)
    assert code == 2
    assert "contract: FAILED" in out
    assert "only Move and End turn: the Actions panel is empty of your rules" in out


def test_an_option_never_offered_is_listed_and_strict_fails(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(made / "views.py", '                         "" if near else "no enemy within reach")]',
         '                         "" if near else "no enemy within reach"),\n'
         '            rules.option(state, "retreat", "Retreat", "none", "not yet")]')
    code, out = check(capsys, made)
    assert code == 0, out
    assert "contract: ok" in out
    assert "    never offered: Retreat" in out
    code, out = check(capsys, made, "--strict")
    assert code == 2
    assert "contract: FAILED" in out and "    never offered: Retreat" in out


def test_an_exception_names_step_command_seed_and_the_ruleset_frames(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(made / "rules.py", '        roll = ctx.roll(token.id, 1, self.data.attack.die',
         '        weapons = {"sword": 6}\n        weapons["spear"]\n'
         '        roll = ctx.roll(token.id, 1, self.data.attack.die')
    # The default rounds: four are too few for the template's two sides to meet.
    code, out = check(capsys, made, "--rounds", "20")
    assert code == 2
    contract = out[out.index("contract: FAILED"):]
    assert re.search(r"seed 0, step \d+, \w+: Attack → \w+: KeyError: 'spear'", contract), out
    assert re.search(r'rules\.py", line \d+, in attack\n\s+weapons\["spear"\]', contract), out
    assert "tacmap/engine" not in contract  # only the frames in the ruleset's folder


def test_a_value_that_does_not_survive_save_and_load_is_named(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(made / "rules.py", "        ctx.emit(HpChanged(target.id, target.hp, hp, \"damage\"))",
         "        ctx.emit(HpChanged(target.id, target.hp, hp, \"damage\"))\n"
         "        ctx.emit(ValueChanged(token.id, \"kit\", None, [\"spear\", \"shield\"]))")
    edit(made / "rules.py", "    Token,\n", "    Token,\n    ValueChanged,\n")
    code, out = check(capsys, made)
    assert code == 2
    assert re.search(r"saving and loading changes tokens\[\w+\]\.values\['kit'\]: "
                     r"\['spear', 'shield'\] comes back as \('spear', 'shield'\)", out), out


def test_a_stat_the_stat_block_does_not_declare_is_one_sentence(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(made / "rules.py", 'self.stat(target, "ac")', 'self.stat(target, "armour")')
    code, out = check(capsys, made)
    assert code == 2
    assert ("LookupError: the rules read the stat 'armour', which [stat_block] does not "
            "declare (it has: atk, ac, sight)") in out, out
