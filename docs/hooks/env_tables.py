"""The environment pages' tables, generated from the live envs: committed in the pages, and
the site's MkDocs hook.

A page holds marker pairs, each marker on a line of its own, with the generated Markdown
between them, so the page reads complete on GitHub as in the built site::

    <!-- env-spec: speed -->
    | | |
    ...
    <!-- /env-spec: speed -->

- ``env-title: KEY``: the page's title, the env's registry id;
- ``env-spec: KEY``: the specification table (import line, agents, action and
  observation spaces for each preset, the mask, rewards, registry ids, version);
- ``env-doc: KEY``: the env module's docstring, as Markdown (its version history
  included; hand-written spec and index tables in it are dropped: the generated ones replace
  them);
- ``env-obs: KEY``: the observation index table, from ``observation_layout``.

``KEY`` is ``speed`` (the real-time parallel and AEC envs), ``speed-gym`` (one seat),
``party`` and ``party-gym`` (Party Speed's, three or four players), ``vintage`` or
``vintage-gym``. The registry ids are looked up by entry point in
``speed_env.registration``, so a version bump renames the pages without anyone editing them,
and a change to an env's spaces changes its table. A marker with an unknown key fails, naming
it; an opening marker without its closing one is closed by the next regeneration.

Regenerate the committed tables after changing an env (``tests/kit/test_env_pages.py`` fails while
a page is stale, naming this command)::

    python docs/hooks/env_tables.py           # rewrite docs/envs/*.md between the markers
    python docs/hooks/env_tables.py --check   # exit 1 naming the stale pages

When the site is built (``on_page_markdown``) the tables are generated again from the live env
and the markers dropped, so the site never shows a stale table.
"""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

MARKER = re.compile(r"^<!--\s*env-(title|spec|doc|obs):\s*([\w-]+)\s*-->$", re.M)
"""An opening marker stands on a line of its own (one quoted inside a sentence is left alone)."""
PAGES = Path(__file__).resolve().parent.parent / "envs"
"""The env pages (``docs/envs/*.md``)."""

# The real-time presets shown in the spec table: each preset's defaults, then `japanese` with
# its options (jokers add a rank; stack and multi-play moves add actions).
REALTIME_RULES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("us", {}),
    ("pagat", {}),
    ("japanese", {}),
    ("us, wild jokers", {"jokers": True}),
    ("pagat, hand_size=3", {"hand_size": 3}),
    ("japanese, jokers", {"jokers": True}),
    (
        "japanese, all options",
        {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True},
    ),
)
PARTY_RULES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("us, players=3", {"players": 3}),
    ("us, players=4", {"players": 4}),
    ("pagat, players=4, wild jokers", {"players": 4, "jokers": True}),
)
"""Party Speed's rows: on the ``speed_v1`` page (``parallel_env`` builds the party env for
``players=3`` or ``4``) and on the party pages."""
VINTAGE_TABLES = (2, 4, 10)

PARTY_REWARDS = (
    "+1 the winner, −1/(n−1) each other seat (they sum to zero), paid on the step the game ends; "
    "a draw or a truncation pays 0"
)

# What each page documents: how to build it, and the entry points that find its registry ids.
ENVS: dict[str, dict[str, Any]] = {
    "speed": {
        "module": "speed_env.parallel",
        "imports": ("from speed_env import parallel_env", "from speed_env import env  # AEC"),
        "entry_points": ("speed_env.parallel:parallel_env", "speed_env.parallel:env"),
        "mask": '`obs[agent]["action_mask"]` (int8, one entry per action), or with '
        '`obs_format="box"` `infos[agent]["action_mask"]`; never empty (waiting is legal)',
        "rewards": "+1 win, −1 loss, 0 draw, paid on the step the game ends; truncation pays 0",
    },
    "speed-gym": {
        "module": "speed_env.single",
        "imports": ("from speed_env import SpeedGymEnv",),
        "entry_points": ("speed_env.single:SpeedGymEnv",),
        "mask": '`action_masks()` and `info["action_mask"]` (int8, one entry per action); '
        'in the observation dict with `obs_format="dict"`; never empty (waiting is legal)',
        "rewards": "+1 win, −1 loss, 0 draw, paid on the step the game ends; truncation pays 0",
    },
    "party": {
        "module": "speed_env.party",
        "registry_args": ", players=3",  # no default: two players are refused
        "imports": (
            "from speed_env.party import PartyParallelEnv",
            "from speed_env.party import env  # AEC",
        ),
        "entry_points": ("speed_env.party:PartyParallelEnv", "speed_env.party:env"),
        "mask": '`obs[agent]["action_mask"]` (int8, one entry per action), or with '
        '`obs_format="box"` `infos[agent]["action_mask"]`; never empty (waiting is legal)',
        "rewards": PARTY_REWARDS,
    },
    "party-gym": {
        "module": "speed_env.party_single",
        "registry_args": ", players=3",  # no default: two players are refused
        "imports": ("from speed_env import PartyGymEnv",),
        "entry_points": ("speed_env.party_single:PartyGymEnv",),
        "mask": '`action_masks()` and `info["action_mask"]` (int8, one entry per action); '
        'in the observation dict with `obs_format="dict"`; never empty (waiting is legal)',
        "rewards": PARTY_REWARDS,
    },
    "vintage": {
        "module": "speed_env.vintage.aec",
        "imports": ("from speed_env.vintage import env",),
        "entry_points": ("speed_env.vintage.aec:env",),
        "mask": '`obs["action_mask"]` (int8, one entry per action); all 0 for an agent '
        "that is not to act; never empty for the one that is",
        "rewards": "+1 to the game's winner; every other player −(its penalty points) / 100; "
        "truncation pays 0",
    },
    "vintage-gym": {
        "module": "speed_env.vintage.single",
        "imports": ("from speed_env.vintage.single import VintageSingleEnv",),
        "entry_points": ("speed_env.vintage.single:VintageSingleEnv",),
        "mask": '`action_masks()` and `info["action_mask"]` (int8, one entry per action)',
        "rewards": "+1 if the learner won, else −(its penalty points) / 100; truncation pays 0",
    },
}


def registry_ids(key: str) -> list[str]:
    """The registry calls that build env ``key``, found by entry point (PettingZoo, Gymnasium)."""
    from speed_env import registration

    wanted = ENVS[key]["entry_points"]
    args = ENVS[key].get("registry_args", "")  # the arguments an id cannot be made without
    calls = []
    for table in (registration.PETTINGZOO_ENVS, registration.PARTY_PETTINGZOO_ENVS):
        for env_type, envs in table.items():
            for env_id, entry in envs.items():
                if entry in wanted:
                    calls.append(f'pettingzoo.make("{env_type}", "{env_id}"{args})')
    gymnasium_envs = {**registration.GYMNASIUM_ENVS, **registration.PARTY_GYMNASIUM_ENVS}
    vectors = {**registration.GYMNASIUM_VECTOR_ENVS, **registration.PARTY_GYMNASIUM_VECTOR_ENVS}
    for env_id, entry in gymnasium_envs.items():
        if entry in wanted:
            calls.append(f'gymnasium.make("{env_id}"{args})')
            if env_id in vectors:  # its native vector env (docs/vector.md)
                calls.append(f'gymnasium.make_vec("{env_id}", num_envs=N{args})')
    if not calls:
        raise ValueError(f"env page {key!r}: no registry entry has entry point {wanted}")
    return calls


def title(key: str) -> str:
    """The id a page is named by: its first registry id (without the namespace)."""
    first = registry_ids(key)[0]
    return re.search(r'"speed_env/([^"]+)"', first).group(1)  # type: ignore[union-attr]


def space_str(space: Any) -> str:
    """A gymnasium space in one short line (a Box with per-entry bounds shows their range)."""
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        inner = ", ".join(f'"{k}": {space_str(v)}' for k, v in space.spaces.items())
        return f"Dict({inner})"
    if isinstance(space, spaces.Box):
        low, high = np.unique(space.low), np.unique(space.high)
        lo = f"{low[0]:g}" if len(low) == 1 else f"{low.min():g}…{low.max():g}"
        hi = f"{high[0]:g}" if len(high) == 1 else f"per entry, up to {high.max():g}"
        return f"Box({lo}, {hi}, {space.shape}, {space.dtype})"
    return str(space)


def _realtime_rows(
    build: Callable[[dict[str, Any]], tuple[Any, Any]],
    rules: tuple[tuple[str, dict[str, Any]], ...] = REALTIME_RULES,
) -> list[list[str]]:
    rows = []
    for label, options in rules:
        preset = label.split(",")[0]
        obs, act = build({"rules": preset, **options})
        rows.append([f"`{label}`", f"`{act}`", f"`{space_str(obs)}`"])
    return rows


def spaces_rows(key: str) -> tuple[list[str], list[list[str]], list[str]]:
    """Header, one row per preset (or table size), and the agents of env ``key``."""
    import speed_env
    from speed_env.party import PartyParallelEnv
    from speed_env.vintage.single import VintageSingleEnv

    def _rows(build: Callable[[dict[str, Any]], tuple[Any, Any]]) -> list[list[str]]:
        return _realtime_rows(build, PARTY_RULES)

    if key == "speed":
        first = speed_env.parallel_env()

        def build(kw: dict[str, Any]) -> tuple[Any, Any]:
            env = speed_env.parallel_env(**kw)
            agent = env.possible_agents[0]
            return env.observation_space(agent), env.action_space(agent)

        agents = [f"`{a}`" for a in first.possible_agents]
        agents[-1] += " (`player_0` … `player_{n-1}` with `players=n`, 3 or 4)"
        rows = _realtime_rows(build, REALTIME_RULES + PARTY_RULES)
        return ["rules", "action space", "observation space"], rows, agents
    if key == "party":

        def build_party(kw: dict[str, Any]) -> tuple[Any, Any]:
            env = PartyParallelEnv(**kw)
            return env.observation_space("player_0"), env.action_space("player_0")

        agents = ["`player_0` … `player_{n-1}` (`players=n`, 3 or 4)"]
        return ["rules", "action space", "observation space"], _rows(build_party), agents
    if key == "party-gym":

        def build_party_gym(kw: dict[str, Any]) -> tuple[Any, Any]:
            env = speed_env.PartyGymEnv(**kw)
            return env.observation_space, env.action_space

        seat = ["one seat (`seat`), the others played by `opponents`"]
        return ["rules", "action space", "observation space"], _rows(build_party_gym), seat
    if key == "speed-gym":

        def build_gym(kw: dict[str, Any]) -> tuple[Any, Any]:
            env = speed_env.SpeedGymEnv(**kw)
            return env.observation_space, env.action_space

        rows = _realtime_rows(build_gym)
        return ["rules", "action space", "observation space"], rows, ["one seat (`seat`)"]
    rows = []
    for n in VINTAGE_TABLES:
        if key == "vintage":
            table_env = speed_env.vintage.env(num_players=n)
            seat = table_env.possible_agents[0]
            obs, act = table_env.observation_space(seat), table_env.action_space(seat)
            names = table_env.possible_agents
            who = f"`{names[0]}` … `{names[-1]}`"
        else:
            single = VintageSingleEnv(num_players=n)
            obs, act = single.observation_space, single.action_space
            who = "the learner's seat"
        rows.append([f"{n}", who, f"`{act}`", f"`{space_str(obs)}`"])
    seats = (
        ["one per seat, in seat order (below, for each table size)"]
        if key == "vintage"
        else ["one seat (`seat`), the others played by `opponents`"]
    )
    return ["players", "agents", "action space", "observation space"], rows, seats


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def spec_table(key: str) -> str:
    """The specification table of env ``key``, from the live env and the registries."""
    header, rows, agents = spaces_rows(key)
    mask = ENVS[key]["mask"]
    own = "version history" in (importlib.import_module(ENVS[key]["module"]).__doc__ or "").lower()
    history = (
        "below"
        if own
        else {
            "speed-gym": "[on the parallel env's page](speed.md#version-history)",
            "vintage-gym": "[on the AEC env's page](vintage-speed.md#version-history)",
            "party-gym": "[on the parallel env's page](speed-party.md#version-history)",
        }.get(key, "in the module docstring")
    )
    version = _metadata_name(key)
    facts = [
        ["Import", "<br>".join(f"`{line}`" for line in ENVS[key]["imports"])],
        ["Registry", "<br>".join(f"`{c}`" for c in registry_ids(key))],
        ["Agents", ", ".join(agents)],
        ["Action mask", mask],
        ["Rewards", ENVS[key]["rewards"]],
        ["Version", f'`{version}` (`metadata["name"]`; version history {history})'],
    ]
    spaces = table(header, rows)
    return (
        table(["", ""], facts)
        + "\n\nSpaces, read from the env built with each setting (one agent's; every agent's "
        "are the same):\n\n" + spaces
    )


def _metadata_name(key: str) -> str:
    import speed_env

    if key in ("party", "party-gym"):
        from speed_env.party import PartyParallelEnv

        return str(PartyParallelEnv.metadata["name"])
    if key in ("speed", "speed-gym"):
        return str(speed_env.parallel_env().metadata["name"])
    return str(speed_env.vintage.env(num_players=2).metadata["name"])


# ------------------------------------------------------------------ observation index tables


def _rst_table_meanings(doc: str) -> dict[str, str]:
    """``name -> meaning`` from the RST simple table of a docstring (continuation lines joined)."""
    out: dict[str, str] = {}
    last = None
    rule = re.compile(r"^=+(\s+=+)+\s*$")
    rules_seen = 0
    for line in doc.splitlines():
        if rule.match(line):
            rules_seen += 1
            continue
        if rules_seen < 2 or rules_seen > 2 or not line.strip():
            continue
        m = re.match(r"^(\w+)\s+(\S+)\s+(.*)$", line)
        if m and not line.startswith(" "):
            last = m.group(1)
            out[last] = m.group(3).strip()
        elif last is not None:
            out[last] += " " + line.strip()
    return {k: rst_inline(v) for k, v in out.items()}


def _md_table_meanings(doc: str) -> dict[str, str]:
    """``slice name -> content`` from a Markdown ``| Index | Slice | Content |`` table."""
    out = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`") and cells[1].endswith("`"):
            out[cells[1].strip("`")] = cells[2]
    return out


def _span(s: slice) -> str:
    return f"{s.start}" if s.stop - s.start == 1 else f"{s.start}–{s.stop - 1}"


def obs_table(key: str) -> str:
    """The observation index table of env ``key``, from its published layout."""
    import speed_env
    from speed_env import observation

    if key.startswith("party"):
        return party_obs_table()
    if key.startswith("speed"):
        meanings = _rst_table_meanings(observation.__doc__ or "")
        plain = speed_env.observation_layout(speed_env.make_rules("us"))
        jokers = speed_env.observation_layout(speed_env.make_rules("japanese", jokers=True))
        rows = [
            [
                f"`{name}`",
                _span(s),
                _span(jokers[name]),
                str(s.stop - s.start),
                meanings.get(name, "(not described in `speed_env/observation.py`)"),
            ]
            for name, s in plain.items()
        ]
        size, size_jokers = (max(s.stop for s in lay.values()) for lay in (plain, jokers))
        dims = f"{size} floats ({size_jokers} with jokers)"
        intro = (
            f"`speed_env.observation_layout(rules)` publishes the vector's fields as named slices "
            f"({dims}); find a field by name, never by offset. Every entry lies in [0, 1]. "
            "`R` below is the number of ranks, 13 (14 with jokers). The `rules` entries are "
            f"{', '.join(f'`{t}`' for t in speed_env.RULES_TAG)}.\n\n"
        )
        header = ["field", "indices", "indices (jokers)", "size", "meaning"]
        return intro + table(header, rows)
    from speed_env.vintage import aec

    layout = speed_env.vintage.ObservationLayout(speed_env.vintage.default_pack())
    meanings = _md_table_meanings(aec.__doc__ or "")
    rows = [
        [f"`{name}`", _span(s), str(s.stop - s.start), meanings.get(name, "")]
        for name, s in layout.slices.items()
    ]
    intro = (
        f"`env.unwrapped.layout` (an `ObservationLayout`) names the slices of the "
        f"{layout.size}-entry vector for the default pack; entries are raw counts.\n\n"
    )
    return intro + table(["field", "indices", "size", "content"], rows)


def party_obs_table() -> str:
    """Party Speed's observation index table, from ``party_layout`` for three and four seats."""
    import speed_env
    from speed_env import party_obs

    meanings = _rst_table_meanings(party_obs.__doc__ or "")
    sizes = _rst_table_sizes(party_obs.__doc__ or "")
    three, four = (party_obs.party_layout(speed_env.make_rules("us", players=n)) for n in (3, 4))
    rows = [
        [
            f"`{name}`",
            f"`{sizes.get(name, '')}`",
            _span(s),
            _span(four[name]),
            meanings.get(name, "(not described in `speed_env/party_obs.py`)"),
        ]
        for name, s in three.items()
    ]
    dims = ", ".join(
        f"{party_obs.party_obs_dim(speed_env.make_rules('us', players=n, **o))} floats "
        f"({n} players{', jokers' if o else ''})"
        for n in (3, 4)
        for o in ({}, {"jokers": True})
    )
    intro = (
        "`speed_env.party_obs.party_layout(rules)` names the vector's fields as slices "
        f"({dims}); find a field by name, never by offset. Every entry lies in [0, 1]. `n` is "
        "the number of seats, `R` the number of ranks, 13 (14 with jokers); seats and piles "
        "are counted from the player's own (seat 0 is the player).\n\n"
    )
    header = ["field", "size", "indices (3 players)", "indices (4 players)", "meaning"]
    return intro + table(header, rows)


def _rst_table_sizes(doc: str) -> dict[str, str]:
    """``name -> size`` (the second column) from the RST simple table of a docstring."""
    rule = re.compile(r"^=+(\s+=+)+\s*$")
    out, rules_seen = {}, 0
    for line in doc.splitlines():
        if rule.match(line):
            rules_seen += 1
        elif rules_seen == 2 and (m := re.match(r"^(\w+)\s+(\S+)\s", line)):
            out[m.group(1)] = m.group(2)
    return out


# ------------------------------------------------------------------ docstrings as Markdown


def rst_inline(text: str) -> str:
    """RST inline markup to Markdown: ``x`` to `x`, :role:`~a.b` to `b`, :role:`a.b` to `a.b`."""
    text = re.sub(r":\w+:`~?([^`]+)`", lambda m: f"`{_short(m)}`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _short(m: re.Match[str]) -> str:
    whole = m.group(0)
    target = m.group(1)
    return target.rsplit(".", 1)[-1] if "`~" in whole else target


def docstring_markdown(key: str) -> str:
    """The env module's docstring as Markdown, under level-2 headings, hand tables dropped."""
    module = importlib.import_module(ENVS[key]["module"])
    doc = inspect.cleandoc(module.__doc__ or "")
    if doc.lstrip().startswith("#"):  # already Markdown (the vintage env's page)
        lines = doc.splitlines()
        body = "\n".join(lines[1:]) if lines[0].startswith("# ") else doc
        body = _drop_first_table(body)  # the hand-written spec table: generated instead
        body = re.sub(
            r"\n\| Index +\| Slice .*?(?=\n\n)", "\n\n(The index table is below.)", body, flags=re.S
        )
        return link_rules(rst_inline(body).strip())
    return link_rules(rst_sections(doc))


def link_rules(text: str) -> str:
    """Mentions of ``docs/rules.md`` become links to the Rules page (env pages are in envs/)."""
    return re.sub(r"`?docs/rules\.md`?", "[docs/rules.md](../rules.md)", text)


def _drop_first_table(body: str) -> str:
    """Drop the first Markdown table when it comes before the first heading (a spec table)."""
    head, sep, rest = body.partition("\n## ")
    return re.sub(r"\n(\|.*\n)+", "\n", head, count=1) + sep + rest


def rst_sections(doc: str) -> str:
    """A docstring of paragraphs and indented sections (``Heading`` then indented body) as
    Markdown: each section a level-2 heading, its body dedented; literal blocks fenced."""
    lines = doc.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line and not line[0].isspace() and nxt.startswith("    "):
            out += ["", f"## {line.strip()}", ""]
            block = []
            i += 1
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i])
                i += 1
            out += [_section_body(textwrap.dedent("\n".join(block)).strip()), ""]
            continue
        out.append(line)
        i += 1
    return _inline_outside_fences(fence_literals("\n".join(out))).strip()


def fence_literals(text: str) -> str:
    """RST literal blocks (a paragraph ending ``::``, a blank line, an indented block) as
    fenced Python code, the ``::`` shown as ``:``."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip():
            indent = len(line) - len(line.lstrip())
            j = i + 2
            block = []
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
            ):
                block.append(lines[j])
                j += 1
            if block and block[0].strip():
                code = textwrap.dedent("\n".join(block)).strip("\n")
                out += [line.rstrip()[:-1], "", "```python", code, "```", ""]
                i = j
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _inline_outside_fences(text: str) -> str:
    parts = re.split(r"(^```python\n.*?^```$)", text, flags=re.S | re.M)
    return "".join(p if p.startswith("```") else rst_inline(p) for p in parts)


def _section_body(body: str) -> str:
    """Lines starting ``vN:`` or ``vN, revision ...:`` (a version history) become list items."""
    if re.match(r"^v\d+[,:]", body):
        items = re.split(r"\n(?=v\d+[,:])", body)
        return "\n".join("- " + " ".join(item.split()) for item in items)
    return body


# ------------------------------------------------------------------ the hook


def render(kind: str, key: str) -> str:
    """The Markdown a marker ``env-KIND: KEY`` stands for."""
    if key not in ENVS:
        raise ValueError(f"env marker names unknown env {key!r}; known: {', '.join(ENVS)}")
    if kind == "title":
        return f"# {title(key)}"
    if kind == "spec":
        return spec_table(key)
    if kind == "doc":
        return docstring_markdown(key)
    return obs_table(key)


def _closing(kind: str, key: str) -> re.Pattern[str]:
    return re.compile(rf"^<!--\s*/env-{kind}:\s*{re.escape(key)}\s*-->$", re.M)


def regenerate(markdown: str, keep_markers: bool = True) -> str:
    """``markdown`` with what stands between each marker pair generated again from the live
    envs (an opening marker without its closing one gets it); without ``keep_markers`` the
    markers themselves are dropped (the built site)."""
    out: list[str] = []
    at = 0
    while (opening := MARKER.search(markdown, at)) is not None:
        kind, key = opening.group(1), opening.group(2)
        out.append(markdown[at : opening.start()])
        closing = _closing(kind, key).search(markdown, opening.end())
        # an opening marker alone (a page in the old form) stands for an empty block
        at = closing.end() if closing is not None else opening.end()
        body = render(kind, key)
        if keep_markers:
            out.append(f"{opening.group(0)}\n{body}\n<!-- /env-{kind}: {key} -->")
        else:
            out.append(body)
    out.append(markdown[at:])
    return "".join(out)


def stale_pages(pages: Path = PAGES) -> list[Path]:
    """The env pages whose committed tables differ from the live envs'."""
    return [
        page
        for page in sorted(pages.glob("*.md"))
        if regenerate(page.read_text(encoding="utf-8")) != page.read_text(encoding="utf-8")
    ]


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """The site's page: every marker pair's block generated from the live env, markers dropped."""
    return regenerate(markdown, keep_markers=False)


def on_page_content(html: str, **kwargs: Any) -> str:
    """Drop Sphinx roles left in API docstrings: ``:func:`x``` renders as ``:func:<code>x</code>``,
    shown as ``<code>x</code>``, and ``:class:`~a.b.C``` as ``<code>C</code>``, as Sphinx would."""
    role = r":(?:func|class|mod|meth|attr|data|exc|obj):"
    html = re.sub(role + r"<code>~(?:[\w.]+\.)?([\w]+)</code>", r"<code>\1</code>", html)
    return re.sub(role + r"(?=<code)", "", html)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the env pages' generated tables (``--check``: only name the stale pages)."""
    # marked_blocks.py lies beside this file, on the path when it runs as a script.
    from marked_blocks import refresh_command

    return refresh_command(
        argv,
        "python docs/hooks/env_tables.py",
        "Regenerate the tables of docs/envs/*.md from the live envs.",
        stale_pages,
        regenerate,
    )


if __name__ == "__main__":
    raise SystemExit(main())
