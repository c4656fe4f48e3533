"""Every data file the packages read at run time is named by pyproject.toml's package data, so
that an installed (not editable) hakem has its models, dashboard and sample match too."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_in_the_packages_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["*"]
    tops = [p.rstrip("*") for p in config["packages"]["find"]["include"]]
    data = [p for top in tops for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert any(p.name == "upward_model.npz" for p in data)  # the walk sees the models
    missing = [str(p.relative_to(ROOT)) for p in data
               if not any(fnmatch.fnmatch(p.name, pat) for pat in patterns)]
    assert missing == []
