"""Settings that would silently do the wrong thing are refused by name: NaN or infinite numbers,
unparseable --set values, presets that are not UTF-8 (with their line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.cli import main
from rag.config import PipelineConfig, PresetError, load_preset, parse_set_options, with_overrides


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_are_refused_with_the_field(value: str) -> None:
    with pytest.raises(PresetError, match=r"postprocess\.threshold is (NaN|infinite)"):
        with_overrides(PipelineConfig(), parse_set_options([f"postprocess.threshold={value}"]))


def test_an_unclosed_set_value_is_one_clear_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PresetError, match=r"--set value '\[unclosed' is not valid YAML"):
        parse_set_options(["fusion.k=[unclosed"])
    assert main(["query", "apt", "--set", "fusion.k=[unclosed"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --set value") and "Traceback" not in err


def test_a_latin1_preset_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_bytes(b"name: mine\ndescription: caf\xe9\n")
    with pytest.raises(PresetError, match=r"mine\.yaml', line 2: not UTF-8 \(byte 0xe9\)"):
        load_preset(path)
