"""``tacmap roll``: the odds, the chart and the roll; a bad roll is one sentence, exit 2."""

from __future__ import annotations

import pytest

from tacmap.cli import main


def test_roll_prints_the_odds_the_chart_and_a_repeatable_result(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "2d6+3", "--target", "10", "--seed", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2d6+3: average 10.00, from 5 to 15"
    assert out[1] == "chance to reach 10: 58.33%"
    assert out[2].startswith(" 5 #") and out[2].endswith("2.78%")
    assert len(out) == 2 + 11 + 1
    assert main(["roll", "2d6+3", "--target", "10", "--seed", "7"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == out[-1]
    assert out[-1].startswith("2d6 [") and ("reaches 10" in out[-1] or "short of 10" in out[-1])


def test_roll_of_a_huge_sum_gives_its_odds_without_a_line_per_total(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "100d1000", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "100d1000: average 50050.00, from 100 to 100000"
    assert len(out) == 2


@pytest.mark.parametrize(("roll", "sentence"), [
    ("2d6+x", "tacmap: 'x' is not dice (like 2d6 or 4d6kh3) or a number"),
    ("101d6", "tacmap: '101d6' throws 101 dice; a roll has at most 100"),
    ("d20000", "tacmap: 'd20000': a die has 2 to 1,000 sides"),
])
def test_a_bad_roll_is_exit_2_and_one_sentence(capsys: pytest.CaptureFixture[str], roll: str,
                                               sentence: str) -> None:
    assert main(["roll", roll]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == sentence
