"""Speed bots behind the batch ``Policy`` protocol, built from spec strings.

``make("greedy")``, ``make("chain@pro")``, ``make("random@200")``: a name, then
optionally ``@`` and a reaction profile (ms or a preset name) that the
tournament gives the bot's seat. ``available()`` lists the names with a
one-line description each.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from speed_env.policy import Policy
from speed_env.reaction import ReactionError, ReactionProfile, make_profile
from speed_env.rules import Rules, make_rules


class AgentSpecError(ValueError):
    """An agent spec string names no known agent, or carries a bad reaction profile."""


@dataclass(frozen=True)
class AgentEntry:
    """How to build one kind of agent."""

    name: str
    description: str
    build: Callable[[Rules, int | None, str], Policy]
    budget: bool = False
    """``@`` in its spec is a search budget (``vintage-search@32``), not a reaction profile."""


def _heuristic(cls_name: str) -> Callable[[Rules, int | None, str], Policy]:
    def build(rules: Rules, seed: int | None, arg: str) -> Policy:
        from agents import heuristics

        return getattr(heuristics, cls_name)(rules, seed)

    return build


_REGISTRY: dict[str, AgentEntry] = {}


def register(
    name: str,
    description: str,
    build: Callable[[Rules, int | None, str], Policy],
    budget: bool = False,
) -> None:
    """Add an agent kind under ``name`` (``name:ARG`` specs pass ARG to ``build``).

    With ``budget``, ``@K`` in a spec is the agent's search budget, passed to
    ``build`` as the tail of its argument (``name:ARG@K`` gives ``ARG@K``)."""
    _REGISTRY[name] = AgentEntry(name, description, build, budget)


register("random", "uniform over legal actions, waiting included", _heuristic("RandomAgent"))
register("greedy", "plays a legal card as soon as it can", _heuristic("GreedyAgent"))


def _chain(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``chain`` or ``chain:run=1,flying=0,…`` (weights of :class:`agents.chain.ChainWeights`);
    ``chain:plan=0`` is the first ``chain``, which played the ``japanese`` options' moves blind."""
    from dataclasses import fields

    from agents.chain import ChainAgent, ChainWeights

    weights = {}
    names = {f.name for f in fields(ChainWeights)}
    for item in filter(None, arg.split(",")):
        key, _, value = item.partition("=")
        try:
            if key not in names or (key == "plan" and value not in ("0", "1")):
                raise ValueError
            weights[key] = float(value)
        except ValueError:
            raise AgentSpecError(
                f"bad chain weight {item!r}; give NAME=NUMBER with NAME one of {', '.join(sorted(names))}"
                " (plan=0 or plan=1)"
            ) from None
    return ChainAgent(rules, seed, ChainWeights(**weights))


register(
    "chain",
    "plans: keeps runs going, avoids races, leaves the opponent fewer plays; plays pairs "
    "together and blocks with its joker (japanese options)",
    _chain,
)


def _search(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``search`` or ``search:worlds=16,depth=40,scale=4,ms_per_world=0`` (agents/search.py)."""
    from agents.search import SearchAgent, parse_settings

    try:
        settings = parse_settings(arg)
    except ValueError as exc:
        raise AgentSpecError(f"bad search spec {arg!r}: {exc}") from None
    return SearchAgent(rules, seed, settings)


register(
    "search",
    "fair rollout search over worlds sampled from its own view (search:worlds=16,depth=40)",
    _search,
)


def _vintage(cls_name: str) -> Callable[[Rules, int | None, str], Policy]:
    def build(rules: Rules, seed: int | None, arg: str) -> Policy:
        from agents import vintage

        cls = getattr(vintage, cls_name)
        return cls(seed=seed) if cls_name == "VintageRandom" else cls()

    return build


register("vintage-random", "vintage Speed: uniform over legal actions", _vintage("VintageRandom"))
register(
    "vintage-greedy",
    "vintage Speed: sheds costly cards first, keeps Lightning for when stuck",
    _vintage("VintageGreedy"),
)
register(
    "vintage-tactician",
    "vintage Speed: greedy plus follow-keeping and endgame Lightning",
    _vintage("VintageTactician"),
)


def _vintage_ppo(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``vintage-ppo:PATH`` (a model saved by train/vintage_ppo.py); ``?sample`` samples."""
    from agents.vintage_tournament import load_vintage_policy

    return load_vintage_policy(arg, seed)


def _vintage_search(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``vintage-search@K`` or ``vintage-search:rollout=tactician,score=ahead@K``
    (:mod:`agents.vintage_search`)."""
    from agents.vintage_search import VintageSearch, parse_settings

    options, _, budget = arg.partition("@")
    try:
        settings = parse_settings(options, budget)
    except ValueError as exc:
        raise AgentSpecError(f"bad vintage-search spec {arg!r}: {exc}") from None
    return VintageSearch(settings, seed)


register(
    "vintage-search",
    "vintage Speed: rollout search over worlds sampled from its own view "
    "(vintage-search@K, K worlds per decision)",
    _vintage_search,
    budget=True,
)


register("vintage-ppo", "vintage Speed: a saved learned model, vintage-ppo:PATH.json", _vintage_ppo)

VINTAGE_EXPERT = Path(__file__).parent / "models" / "vintage" / "expert.json"
"""The bundled network of vintage expert iteration (``train/vintage_expert.py``)."""


def _vintage_expert(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``vintage-expert`` (``?sample`` samples): the bundled expert-iteration network."""
    from agents.vintage_tournament import load_vintage_policy

    return load_vintage_policy(f"{VINTAGE_EXPERT}{'?' + arg if arg else ''}", seed)


register(
    "vintage-expert",
    "vintage Speed: the bundled network trained by expert iteration on vintage-search targets",
    _vintage_expert,
)


def _ppo(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``ppo:PATH`` (a kit model, ``.json``/``.safetensors``); ``?trust`` for an SB3 ``.zip``, ``?sample``."""
    from agents.model_io import policy_from_spec_arg

    return policy_from_spec_arg(arg, rules, seed)


def _trained(rules: Rules, seed: int | None, arg: str) -> Policy:
    """The bundled learned agent trained on ``rules``: ``agents/models/trained.json``, or another
    model bundled beside it (:func:`agents.model_io.bundled_models`); refused, naming each, when
    none was trained on them."""
    from agents.model_io import bundled_policy

    return bundled_policy(rules, seed, arg)


register("ppo", "a saved learned model: ppo:PATH.json (an SB3 .zip needs ppo:PATH.zip?trust)", _ppo)
register(
    "trained", "the bundled learned agent trained on the rules asked for (agents/models/)", _trained
)


def _selfplay(rules: Rules, seed: int | None, arg: str) -> Policy:
    """The bundled agent PPO learned from reward alone (no cloning; the README says how):
    ``agents/models/selfplay/selfplay.json``; ``selfplay:sample`` samples its policy."""
    from agents.model_io import BUNDLED, load_policy

    path = BUNDLED.parent / "selfplay" / "selfplay.json"
    return load_policy(path, rules, seed=seed, sample=arg == "sample")


register(
    "selfplay",
    "the bundled agent PPO learned from reward alone, no cloning (agents/models/selfplay/)",
    _selfplay,
)


def seat_reaction(policy: Policy, default: ReactionProfile) -> ReactionProfile:
    """The reaction profile a seat plays with: the policy's own (``@`` in its spec) or ``default``,
    moved later by the policy's ``think_ms`` (time charged for thinking, as by ``search``)."""
    base = getattr(policy, "reaction", None) or default
    think = float(getattr(policy, "think_ms", 0.0) or 0.0)
    if think <= 0:
        return base
    return replace(
        base, mu=base.mu + think, floor=base.floor + think, name=f"{base.label()}+{think:g}ms"
    )


def available() -> dict[str, str]:
    """Agent names and a one-line description of each."""
    return {name: entry.description for name, entry in _REGISTRY.items()}


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec string: agent name, its argument (``ppo:PATH``) and reaction profile."""

    text: str
    name: str
    arg: str
    reaction: ReactionProfile | None


def parse_spec(spec: str) -> AgentSpec:
    """Split ``name[:arg][@reaction]`` (``@K`` is the budget of a search agent); refuse unknown names and bad profiles."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}")
    text = spec.strip()
    body, _, reaction_text = text.partition("@")
    name, _, arg = body.partition(":")
    if name not in _REGISTRY:
        raise AgentSpecError(
            f"unknown agent {name!r} in spec {spec!r}; available: {', '.join(_REGISTRY)}"
        )
    reaction = None
    if reaction_text and _REGISTRY[name].budget:
        arg = f"{arg}@{reaction_text}"
    elif reaction_text:
        try:
            reaction = make_profile(reaction_text)
        except ReactionError as exc:
            raise AgentSpecError(f"bad reaction in agent spec {spec!r}: {exc}") from None
    return AgentSpec(text, name, arg, reaction)


def make(
    spec: str, rules: str | os.PathLike[str] | Rules = "us", seed: int | None = None, **_: Any
) -> Policy:
    """Build the agent a spec string names (its reaction profile is on ``.reaction``)."""
    parsed = parse_spec(spec)
    policy = _REGISTRY[parsed.name].build(make_rules(rules), seed, parsed.arg)
    try:
        policy.reaction = parsed.reaction  # type: ignore[attr-defined]
        policy.spec = parsed.text  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - slotted third-party policies
        pass
    return policy


__all__ = [
    "AgentSpec",
    "AgentSpecError",
    "available",
    "make",
    "parse_spec",
    "register",
    "seat_reaction",
]
