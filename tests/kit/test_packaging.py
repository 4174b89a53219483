"""``pip install .`` gives a working kit: the wheel holds every package and its data files.

The wheel is built as a user's ``pip install .`` builds it, from a copy of the sources (so a
parallel test never sees a half-written ``build/``), without network: ``--no-build-isolation``
uses this venv's setuptools, ``--no-index`` refuses any download. It is then installed with
``--target`` into a scratch folder and the public packages are imported from there, in a fresh
interpreter whose ``sys.path`` starts with that folder, and each check asserts the module came
from the installed copy (not from the repository or the editable install).
"""

from __future__ import annotations

import email
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("speed_env", "agents", "train", "speed_cli", "speed_table", "speed_lab")

pytestmark = pytest.mark.slow


def package_files(root: Path) -> set[str]:
    """Every file under the public packages (wheel-relative paths), bytecode caches left out."""
    found = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found.add(path.relative_to(root).as_posix())
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``pip wheel .`` builds from a copy of the sources."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=ignore)
    out = tmp_path_factory.mktemp("wheelhouse")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(out),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    (built,) = out.glob("speed_rl-*.whl")
    return built


def test_wheel_holds_every_package_file_and_the_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(package_files(ROOT) - names)
    assert not missing, f"files of the packages left out of the wheel: {missing}"
    # The data files the kit reads at run time, named so that a pattern change shows here.
    for data in (
        "agents/models/trained.safetensors",
        "speed_env/vintage/pack.toml",
        "speed_table/static/index.html",
        "speed_env/py.typed",
    ):
        assert data in names
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    entry_points = zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
    assert "speed = speed_cli:main" in entry_points


def test_metadata_license_and_long_description(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (meta_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    meta = email.message_from_string(archive.read(meta_name).decode("utf-8"))
    assert meta["License-Expression"] == "MIT"
    assert meta["License-File"] == "LICENSE"
    assert "License" not in meta  # the deprecated free-text field is gone
    # PyPI renders the README as Markdown only with this content type; the body is the README.
    assert meta["Description-Content-Type"] == "text/markdown"
    body = meta.get_payload()
    assert isinstance(body, str)
    assert body.strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()
    assert "MIT License" in archive.read(meta_name.replace("METADATA", "licenses/LICENSE")).decode()


IMPORT_CHECK = """
import json, sys
from pathlib import Path
target = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(target))
import agents, speed_cli, speed_env, speed_lab, speed_table, train
from speed_env.vintage.pack import default_pack
from speed_table.app import STATIC
from agents.model_io.kit_model import BUNDLED
mods = [agents, speed_cli, speed_env, speed_lab, speed_table, train]
print(json.dumps({
    "files": {m.__name__: str(Path(m.__file__).resolve()) for m in mods},
    "pack_cards": len(default_pack().cards()),
    "static": sorted(p.name for p in STATIC.iterdir()),
    "bundled": str(BUNDLED.resolve()),
    "bundled_exists": BUNDLED.is_file(),
    "trained_agent": type(agents.make("trained")).__name__,
    "action_space": int(speed_env.parallel_env("us").action_space("player_0").n),
}))
"""


def test_installed_copy_imports_with_its_data(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"pip install --target failed:\n{done.stderr}"
    # cwd is the scratch folder, so the repository is not on sys.path by way of ''.
    run = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK, str(target)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    for name, file in seen["files"].items():
        assert file.startswith(str(target.resolve())), f"{name} imported from {file}"
    assert seen["pack_cards"] > 0
    assert {"index.html", "app.js", "style.css"} <= set(seen["static"])
    assert seen["bundled"].startswith(str(target.resolve())) and seen["bundled_exists"]
    assert seen["action_space"] > 0
    assert seen["trained_agent"] == "MLPPolicy"  # the bundled weights load from the copy
    assert (target / "bin" / "speed").is_file()
