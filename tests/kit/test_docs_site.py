"""The documentation site builds with ``mkdocs build --strict``, as ``make docs`` does.

Strict mode turns every warning into an error, so this fails on a page missing from the nav
or a nav entry without its page, a broken link or anchor, an unresolved mkdocstrings
reference, a snippet include whose file is gone (an example renamed), or an env page whose
generated table cannot be built (docs/hooks/env_tables.py). Without mkdocs (the ``docs`` extra)
the build is skipped with the reason, except under CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _require_mkdocs() -> None:
    missing = [
        m
        for m in ("mkdocs", "material", "mkdocstrings_handlers")
        if not importlib.util.find_spec(m)
    ]
    if missing:
        message = f"{', '.join(missing)} not installed: pip install -e '.[docs]' (make setup)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true: {message}")
        pytest.skip(message)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once with --strict into a temporary folder."""
    _require_mkdocs()
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


@pytest.mark.slow
def test_site_builds_strict_with_every_page(site: Path) -> None:
    """Every page of the nav is built, the env pages and the API reference included."""
    for page in (
        "index.html",
        "envs/speed/index.html",
        "envs/vintage-speed/index.html",
        "api/speed_env/index.html",
        "api/agents/index.html",
        "api/train/index.html",
        "rl-libraries/index.html",
    ):
        assert (site / page).is_file(), page


@pytest.mark.slow
def test_env_pages_carry_the_live_spaces(site: Path) -> None:
    """The spec and index tables are the live env's: no marker is left, and the page shows
    the observation length and the ids the registries hold now."""
    import speed_env
    from speed_env import registration

    html = (site / "envs/speed/index.html").read_text()
    assert "env-spec" not in html and "env-obs" not in html
    dim = speed_env.obs_dim(speed_env.make_rules("us"))
    assert f"({dim},), float32" in html
    parallel_id = next(
        i for i, e in registration.PETTINGZOO_ENVS["parallel"].items() if e.endswith("parallel_env")
    )
    assert parallel_id in html
    last = max(s.stop for s in speed_env.observation_layout(speed_env.make_rules("us")).values())
    assert re.search(rf"<code>since_placed</code></td>\s*<td>{last - 1}</td>", html)


@pytest.mark.slow
def test_examples_page_shows_the_tested_scripts(site: Path) -> None:
    """The RL-library page includes every script of examples/ from the file, not a copy: a
    new example must be shown there, and a renamed one fails the build (a missing snippet)."""
    html = (site / "rl-libraries/index.html").read_text()
    for script in sorted((ROOT / "examples").glob("*.py")):
        first_def = re.search(r"^def (\w+)", script.read_text(), re.M)
        assert first_def, script
        assert f"{first_def.group(1)}</span>" in html, script.name


def _api_members() -> list[tuple[str, str, str]]:
    """``(page, module, member)`` for each member an API page's ``::: module`` block lists."""
    listed = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for block in re.split(r"^(?=::: )", page.read_text(), flags=re.M)[1:]:
            module = block.split()[1]
            members = re.search(r"^\s+members:\n((?:\s+- \S+\n)+)", block, re.M)
            for name in re.findall(r"- (\S+)", members.group(1) if members else ""):
                listed.append((page.name, module, name))
    return listed


def test_every_member_an_api_page_lists_is_in_its_module() -> None:
    """mkdocstrings renders a listed member that its module lacks as nothing, even under
    --strict: ``save_vintage_model`` once stood under ``agents.model_io.kit_model``."""
    listed = _api_members()
    assert len(listed) > 10  # the pages list members: the parse found them
    missing = [
        f"docs/api/{page}: {module}.{name}"
        for page, module, name in listed
        if not hasattr(importlib.import_module(module), name)
    ]
    assert missing == []
