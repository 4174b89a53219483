"""The real-time game's registry and its agent kinds.

The kinds: ``random``, ``greedy``, ``chain``, ``search``, ``openspiel:``, ``ppo:``, ``trained``,
``selfplay``, ``league`` and ``league:``.

Each kind is a builder ``(rules, seed, arg) -> Policy`` registered under its name; a builder
imports its agent only when called, so listing the kinds stays cheap. ``@`` and a reaction
profile after a spec is the tournament's business (:func:`seat_reaction`), not the builder's.
"""

from __future__ import annotations

from agents.errors import AgentSpecError
from agents.specs.registry import REALTIME_GAME, Registry, spec_settings
from agents.think.plan import seat_profile
from speed_env.policy import Policy, RandomPolicy
from speed_env.reaction import ReactionProfile
from speed_env.rules import Rules

REALTIME = Registry(REALTIME_GAME, model_kind="ppo")
"""The real-time agent kinds; ``build(rules, seed, arg)``."""
register = REALTIME.register


def two_seats(kind: str, rules: Rules) -> None:
    """Refuse agent ``kind`` at a table of more than two (it reads the two-seat observation)."""
    if rules.players > 2:
        raise AgentSpecError(
            f"agent {kind!r} plays two players, not {rules.players} (players={rules.players}); "
            "at a table of three or four play random, greedy, chain, search or a ppo: model "
            "trained at that many seats"
        )


def _random(rules: Rules, seed: int | None, arg: str) -> Policy:
    return RandomPolicy(seed)


def _greedy(rules: Rules, seed: int | None, arg: str) -> Policy:
    from agents.greedy import GreedyAgent

    return GreedyAgent(rules, seed)


def _chain(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``chain`` or ``chain:run=1,flying=0,…``, weights of :class:`agents.chain.ChainWeights`.

    ``chain:plan=0`` is the first ``chain``, which played the ``japanese`` options' moves blind.
    """
    from dataclasses import fields

    from agents.chain import ChainAgent, ChainWeights

    weights = {}
    names = {f.name for f in fields(ChainWeights)}
    for item in filter(None, arg.split(",")):
        key, _, value = item.partition("=")
        try:
            if key not in names or (key == "plan" and value not in ("0", "1")):
                raise ValueError  # to the one message below, which lists every name
            weights[key] = float(value)
        except ValueError:
            raise AgentSpecError(
                f"bad chain weight {item!r}; give NAME=NUMBER with NAME one of "
                f"{', '.join(sorted(names))} (plan=0 or plan=1)"
            ) from None
    return ChainAgent(rules, seed, ChainWeights(**weights))


def _search(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``search`` or ``search:worlds=16,depth=40,scale=4,wait=1,ms_per_world=0``.

    See agents/search/ (at three or four seats ``us`` and ``pagat``: agents/search/party.py).
    """
    if rules.players > 2 and rules.is_japanese:
        raise AgentSpecError(
            f"agent 'search' plays japanese at two players, not {rules.players} "
            f"(players={rules.players}): at three or four it samples us and pagat worlds, not "
            "japanese ones (each seat's own suit; the observation does not show whose joker tops "
            "a pile)"
        )
    from agents.search import SearchAgent, parse_settings

    settings = spec_settings("search", arg, lambda: parse_settings(arg))
    return SearchAgent(rules, seed, settings)


def _openspiel(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``openspiel:BOT``: an OpenSpiel ``pyspiel.Bot`` on ``python_speed``.

    See agents/openspiel_bots.py.
    """
    two_seats("openspiel", rules)
    from agents.openspiel_bots import REALTIME_BOTS, RealtimeOpenSpielSeat, bot_factory

    return RealtimeOpenSpielSeat(rules, bot_factory(arg, REALTIME_BOTS, REALTIME.game), seed)


def _ppo(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``ppo:PATH``: a kit model, ``.json`` or ``.safetensors``.

    ``?trust`` for an SB3 ``.zip``; ``?sample`` samples the policy. It plays at tables of the
    seats its model was trained at (``speed train realtime --players N``), refused at others.
    """
    from agents.model_io.learned import policy_from_spec_arg

    return policy_from_spec_arg(arg, rules, seed)


def _trained(rules: Rules, seed: int | None, arg: str) -> Policy:
    """The bundled learned agent trained on ``rules``.

    It is ``agents/models/trained.json``, or another model bundled beside it
    (:func:`agents.model_io.learned.bundled_models`); refused, naming each, when none was
    trained on them.
    """
    two_seats("trained", rules)
    from agents.model_io.learned import bundled_policy

    return bundled_policy(rules, seed, arg)


def _selfplay(rules: Rules, seed: int | None, arg: str) -> Policy:
    """The bundled agent PPO learned from reward alone, no cloning.

    It is ``agents/models/selfplay/selfplay.json``; ``selfplay:sample`` samples its policy.
    The story: docs/research/selfplay.md.
    """
    two_seats("selfplay", rules)
    from agents.model_io.kit_model import BUNDLED, load_policy

    path = BUNDLED.parent / "selfplay" / "selfplay.json"
    return load_policy(path, rules, seed=seed, sample=arg == "sample")


def _league(rules: Rules, seed: int | None, arg: str) -> Policy:
    """``league:DIR``: a member of the league in ``DIR`` drawn per game from its meta-strategy.

    ``league`` alone plays the bundled league, ``agents/models/league/``
    (:data:`agents.league.bundle.BUNDLED`), the same way. See agents/league/mixture.py; each
    member is built with a seed of its own from ``seed``.
    """
    two_seats("league", rules)
    from agents.league import bundle, mixture, record

    if arg:
        folder, bundled = arg, False
    else:
        folder, bundled = str(bundle.BUNDLED), True  # read at call time: a test bundles its own
        if not (bundle.BUNDLED / record.LEAGUE_FILE).exists():
            raise AgentSpecError(
                f"the bundled league {bundle.BUNDLED} is missing: this copy of the kit ships "
                f"without one. Train one (speed train league --out runs/NAME), bundle it with "
                f"{bundle.COMMAND} runs/NAME, or play a league's folder with league:DIR"
            )
    try:
        league = record.read(folder, bundled=bundled)
    except ValueError as exc:
        raise AgentSpecError(f"bad league spec {arg or 'league'!r}: {exc}") from None
    base = 0 if seed is None else seed
    kept = [k for k, w in enumerate(league.weights) if w > 0]
    members = [
        REALTIME.make(league.specs[k], rules, (base * 31 + 7 * k + 1) & 0x7FFFFFFF) for k in kept
    ]
    return mixture.MixturePolicy(
        members, [league.weights[k] for k in kept], base, [league.names[k] for k in kept]
    )


# The kinds, in the order ``speed agents`` lists them: one catalogue, a line each.
for _name, _about, _build in (
    ("random", "uniform over legal actions, waiting included", _random),
    ("greedy", "plays a legal card as soon as it can", _greedy),
    (
        "chain",
        "plans: keeps runs going, avoids races, leaves the opponent fewer plays; plays pairs "
        "together and blocks with its joker (japanese options)",
        _chain,
    ),
    (
        "search",
        "fair rollout search over worlds sampled from its own view (search:worlds=16,depth=40)",
        _search,
    ),
    (
        "openspiel",
        "an OpenSpiel bot (openspiel:random, or openspiel:package.module:FACTORY) shown worlds "
        "dealt from its own view; needs the [openspiel] extra",
        _openspiel,
    ),
    ("ppo", "a saved learned model: ppo:PATH.json (an SB3 .zip needs ppo:PATH.zip?trust)", _ppo),
    (
        "trained",
        "the bundled learned agent trained on the rules asked for (agents/models/)",
        _trained,
    ),
    (
        "selfplay",
        "the bundled agent PPO learned from reward alone, no cloning (agents/models/selfplay/)",
        _selfplay,
    ),
    (
        "league",
        "a member of a speed train league drawn per game from its meta-strategy: league:DIR, "
        "or league alone for the bundled one (agents/models/league/, when one is bundled)",
        _league,
    ),
):
    register(_name, _about, _build)


def seat_reaction(policy: Policy, default: ReactionProfile) -> ReactionProfile:
    """The reaction profile a seat plays with, moved later by the policy's ``think_ms``.

    The profile is the policy's own, ``@`` in its spec, or else ``default``. ``think_ms`` is
    time charged for thinking, as by ``search`` or ``@think=5ms`` (docs/thinking-time.md); a
    negative or non-number ``think_ms`` is refused (:class:`~agents.think.plan.ThinkError`).
    """
    # One mechanism for every mode (agents/think/plan.py): this is ``--think off``'s.
    return seat_profile(policy, getattr(policy, "spec", type(policy).__name__), default)
