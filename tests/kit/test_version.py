"""The kit's version: one ``version`` line in pyproject.toml, ``speed_env.__version__``, the
installed distribution's metadata, and CHANGELOG.md's latest release all say the same."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import speed_env
from speed_env import _version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


def test_version_is_pyprojects_and_semantic():
    assert SEMVER.match(PYPROJECT_VERSION), PYPROJECT_VERSION
    assert int(PYPROJECT_VERSION.split(".")[0]) >= 1
    assert speed_env.__version__ == PYPROJECT_VERSION


def test_changelogs_latest_release_is_the_version_with_added_and_changed():
    text = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert releases and releases[0][0] == PYPROJECT_VERSION
    latest = text.split(f"## [{PYPROJECT_VERSION}]")[1].split("\n## [")[0]
    assert "\n### Added\n" in latest and "\n### Changed\n" in latest
    assert "## [Unreleased]" in text.split(f"## [{PYPROJECT_VERSION}]")[0]


def test_installed_metadata_agrees_where_this_tree_is_the_editable_install():
    # The installed distribution is the one pip recorded (direct_url.json); a build's
    # speed_rl.egg-info beside pyproject.toml has no such record, and may be found first.
    installed = [
        d
        for d in metadata.distributions(name=_version.DISTRIBUTION)
        if d.read_text("direct_url.json")
    ]
    if not installed:
        pytest.skip("speed-rl is not installed here by pip")
    dist = installed[0]
    direct_url = json.loads(dist.read_text("direct_url.json") or "{}")
    if direct_url.get("url") != ROOT.as_uri():
        pytest.skip(f"the installed speed-rl is from {direct_url.get('url')}, not this tree")
    assert dist.version == speed_env.__version__, (
        "the editable install's metadata is older than pyproject.toml: rerun make setup"
    )


def test_a_tree_that_is_not_the_kits_gives_no_version(tmp_path):
    assert _version.source_tree_version(tmp_path) is None  # no pyproject.toml
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "9.9.9"\n')
    assert _version.source_tree_version(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[project\n")
    assert _version.source_tree_version(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "speed-rl"\nversion = "2.0.1"\n')
    assert _version.source_tree_version(tmp_path) == "2.0.1"


def test_an_installed_wheel_reports_its_version_from_its_metadata(tmp_path):
    # Build from a copy of the tracked files (a build writes build/ and *.egg-info beside
    # pyproject.toml), unpack the wheel into a folder of its own and read its version there.
    src = tmp_path / "src"
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (t.decode() for t in tracked)):
        if name.startswith(
            ("speed_env/", "agents/", "train/", "speed_table/", "speed_lab/", "speed_cli/")
        ) or name in ("pyproject.toml", "README.md"):
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    build = f"from setuptools import build_meta; build_meta.build_wheel({str(wheels)!r})"
    done = subprocess.run(
        [sys.executable, "-c", build], cwd=src, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = wheels.glob("speed_rl-*.whl")
    assert wheel.name.startswith(f"speed_rl-{PYPROJECT_VERSION}-")
    with zipfile.ZipFile(wheel) as unpacked:  # what installing a pure wheel amounts to
        unpacked.extractall(site)
    # The installed _version.py run as it is (importing speed_env would compile the engine's
    # kernels afresh, a minute): no pyproject.toml beside it, so it reads the wheel's metadata.
    version_py = site / "speed_env" / "_version.py"
    assert (
        "from speed_env._version import __version__"
        in (version_py.parent / "__init__.py").read_text()
    )
    code = (
        "import importlib.metadata as m, runpy, sys\n"
        "print(runpy.run_path(sys.argv[1])['__version__'], m.version('speed-rl'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(version_py)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(site), "PATH": ""},
    )
    assert out.returncode == 0, out.stderr
    version, meta = out.stdout.split()
    assert version == meta == PYPROJECT_VERSION
