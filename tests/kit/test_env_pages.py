"""The env pages (docs/envs/*.md) carry their generated tables in the committed Markdown, so
they read complete on GitHub, and the tables are the live envs' (docs/hooks/env_tables.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import speed_env

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "docs" / "hooks" / "env_tables.py"


def _hook():
    spec = importlib.util.spec_from_file_location("env_tables", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("env_tables", module)
    spec.loader.exec_module(module)
    return module


def test_env_pages_hold_the_live_tables() -> None:
    """A change to an env's spaces, ids or docstring must reach its committed page."""
    stale = _hook().stale_pages()
    assert not stale, (
        f"stale env pages {[p.name for p in stale]}: run python {HOOK.relative_to(ROOT)}"
    )


def test_each_page_shows_its_tables_in_the_markdown() -> None:
    """Once the pages were templates that only the built site filled in."""
    dim = speed_env.obs_dim(speed_env.make_rules("us"))
    for page in ("speed.md", "speed-gym.md"):
        text = (ROOT / "docs" / "envs" / page).read_text(encoding="utf-8")
        for kind in ("title", "spec", "doc", "obs"):
            assert f"<!-- /env-{kind}:" in text, (page, kind)
        assert f"({dim},), float32" in text and "| `since_placed` |" in text
    assert "# Speed-v1" in (ROOT / "docs" / "envs" / "speed-gym.md").read_text(encoding="utf-8")


def test_a_stale_table_is_found_and_regenerated(tmp_path) -> None:
    hook = _hook()
    page = tmp_path / "speed.md"
    fresh = (ROOT / "docs" / "envs" / "speed.md").read_text(encoding="utf-8")
    page.write_text(fresh.replace("float32", "float64", 1), encoding="utf-8")
    assert hook.stale_pages(tmp_path) == [page]
    assert hook.regenerate(page.read_text(encoding="utf-8")) == fresh
    # the old template form (an opening marker alone) is filled and closed
    template = "# x\n\n<!-- env-obs: speed -->\n\ntext\n"
    filled = hook.regenerate(template)
    assert "<!-- /env-obs: speed -->" in filled and filled.endswith("\n\ntext\n")
    # the built site shows the tables without the markers
    assert "env-obs" not in hook.on_page_markdown(filled)


def test_party_pages_show_their_ids_spaces_and_n_seat_layout() -> None:
    """Party Speed's pages are generated like the others: their own ids, the spaces of three
    and four seats, and the n-seat observation index (``party_layout``)."""
    from speed_env.party_obs import party_obs_dim

    dims = [party_obs_dim(speed_env.make_rules("us", players=n)) for n in (3, 4)]
    for page, title, registry in (
        ("speed-party.md", "# speed_party_v0", '"speed_env/speed_party_v0", players=3'),
        ("speed-party-gym.md", "# SpeedParty-v0", '"speed_env/SpeedParty-v0", players=3'),
    ):
        text = (ROOT / "docs" / "envs" / page).read_text(encoding="utf-8")
        for kind in ("title", "spec", "doc", "obs"):
            assert f"<!-- /env-{kind}:" in text, (page, kind)
        assert title in text and registry in text
        assert all(f"({d},), float32" in text for d in dims)
        assert "| `flight` | `n·(R+n+1)` |" in text and "indices (4 players)" in text
