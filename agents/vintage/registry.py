"""The Vintage Speed agents, built from spec strings: the vintage game's registry.

``make("vintage-greedy")``, ``make("vintage-search@32", seed=0)``,
``make("vintage-ppo:model.json?sample")``. ``available()`` lists the names
with a one-line description each. A vintage bot reads the vintage observation
of the default pack; building one never builds real-time rules.
(``agents.make`` hands a vintage spec here.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agents.errors import AgentSpecError
from agents.specs.registry import AgentSpec, Registry, spec_settings
from speed_env.policy import Policy

VINTAGE = Registry("Vintage Speed", model_kind="vintage-ppo")
"""The vintage agent kinds; ``build(None, seed, arg)`` (a vintage bot needs no rules object)."""


def _bot(cls_name: str) -> Callable[[None, int | None, str], Policy]:
    def build(context: None, seed: int | None, arg: str) -> Policy:
        from agents.vintage import bots

        cls = getattr(bots, cls_name)
        # Only the random bot draws; the others are deterministic and take no seed.
        return cls(seed=seed) if cls_name == "VintageRandom" else cls()

    return build


def _vintage_search(context: None, seed: int | None, arg: str) -> Policy:
    """``vintage-search@K`` or ``vintage-search:rollout=tactician,score=ahead@K``.

    See :mod:`agents.vintage.search`. A role set to ``network``, of ``rollout``, ``own`` or
    ``prior``, plays ``net=PATH``, else the bundled ``vintage-expert``.
    """
    from agents.vintage.search import VintageSearch, parse_settings

    options, _, budget = arg.partition("@")
    settings = spec_settings("vintage-search", arg, lambda: parse_settings(options, budget))
    network = None
    if settings.uses_network:  # net=PATH, else the bundled vintage-expert
        from agents.model_io.vintage import load_vintage_policy

        network = load_vintage_policy(settings.net or EXPERT_MODEL)
    return VintageSearch(settings, seed, network=network)


def _vintage_ppo(context: None, seed: int | None, arg: str) -> Policy:
    """``vintage-ppo:PATH`` (a model saved by train/vintage_ppo.py); ``?sample`` samples."""
    from agents.model_io.vintage import vintage_policy_from_spec_arg

    return vintage_policy_from_spec_arg(arg, seed)


def _vintage_ismcts(context: None, seed: int | None, arg: str) -> Policy:
    """``vintage-ismcts[:simulations=N,rollouts=R,uct_c=C,infer=0|1]``.

    See :mod:`agents.vintage.ismcts`; it needs the ``[openspiel]`` extra.
    """
    from agents.vintage.ismcts import VintageIsmcts, parse_settings

    settings = spec_settings("vintage-ismcts", arg, lambda: parse_settings(arg))
    try:
        return VintageIsmcts(settings, seed)
    except ImportError as exc:  # OpenSpiel is imported on building, not on listing the kinds
        raise AgentSpecError(
            f"vintage-ismcts needs OpenSpiel ({exc.name or exc}): pip install 'speed-rl[openspiel]'"
        ) from None


def _vintage_openspiel(context: None, seed: int | None, arg: str) -> Policy:
    """``vintage-openspiel:BOT``: an OpenSpiel ``pyspiel.Bot`` on ``python_vintage_speed``.

    See agents/vintage/openspiel_seat.py.
    """
    from agents.openspiel_bots import bot_factory
    from agents.vintage.openspiel_seat import BOTS, VintageOpenSpielSeat

    return VintageOpenSpielSeat(bot_factory(arg, BOTS, VINTAGE.game), seed)


EXPERT_MODEL = Path(__file__).parent.parent / "models" / "vintage" / "expert.json"
"""The bundled network of vintage expert iteration (``train/vintage_expert.py``)."""


def _vintage_expert(context: None, seed: int | None, arg: str) -> Policy:
    """``vintage-expert`` (``?sample`` samples): the bundled expert-iteration network."""
    from agents.model_io.vintage import vintage_policy_from_spec_arg

    return vintage_policy_from_spec_arg(f"{EXPERT_MODEL}{'?' + arg if arg else ''}", seed)


# The kinds, in the order ``speed agents`` lists them: one catalogue, a line each. The last
# field is ``budget``: ``@K`` is the agent's search budget (worlds per decision), not a reaction.
for _name, _about, _build, _budget in (
    ("vintage-random", "vintage Speed: uniform over legal actions", _bot("VintageRandom"), False),
    (
        "vintage-greedy",
        "vintage Speed: sheds costly cards first, keeps Lightning for when stuck",
        _bot("VintageGreedy"),
        False,
    ),
    (
        "vintage-tactician",
        "vintage Speed: greedy plus follow-keeping and endgame Lightning",
        _bot("VintageTactician"),
        False,
    ),
    (
        "vintage-search",
        "vintage Speed: rollout search over worlds sampled from its own view "
        "(vintage-search@K, K worlds per decision)",
        _vintage_search,
        True,
    ),
    (
        "vintage-ppo",
        "vintage Speed: a saved learned model, vintage-ppo:PATH.json",
        _vintage_ppo,
        False,
    ),
    (
        "vintage-ismcts",
        "vintage Speed: OpenSpiel's information-set MCTS on worlds dealt from its own view "
        "(vintage-ismcts:simulations=N,rollouts=R,uct_c=C,infer=0|1)",
        _vintage_ismcts,
        False,
    ),
    (
        "vintage-openspiel",
        "vintage Speed: an OpenSpiel bot (vintage-openspiel:random|ismcts|package.module:FACTORY) "
        "shown worlds dealt from its own view; needs the [openspiel] extra",
        _vintage_openspiel,
        False,
    ),
    (
        "vintage-expert",
        "vintage Speed: the bundled network trained by expert iteration on vintage-search targets",
        _vintage_expert,
        False,
    ),
):
    VINTAGE.register(_name, _about, _build, budget=_budget)


def available() -> dict[str, str]:
    """Vintage agent names and a one-line description of each."""
    return VINTAGE.available()


def parse_spec(spec: str) -> AgentSpec:
    """Split a vintage spec ``name[:arg][@K]``; refuse a name that is no vintage agent."""
    return VINTAGE.parse_spec(spec)


def is_vintage(spec: str) -> bool:
    """Whether ``spec`` names a vintage agent (a malformed spec names none)."""
    return VINTAGE.knows(spec)


def make(spec: str, seed: int | None = None) -> Policy:
    """Build the vintage agent a spec string names."""
    policy: Policy = VINTAGE.make(spec, None, seed)
    return policy
