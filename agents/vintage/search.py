"""``vintage-search``: determinized rollout search for Vintage Speed, fair by construction.

For each decision with more than one legal action it samples ``worlds``
complete games consistent with its own observation
(:func:`speed_env.vintage.worlds.sample_world`: the cards it has not seen,
shuffled uniformly into the other hands and the pack), plays every legal
action in every world (the same worlds for every action, so the comparison
is paired) and continues each to the end of the game with a rollout policy
for every seat, then picks the action of best mean score for its seat. It keeps the
tactician's choice (or a given ``prior`` policy's, as expert iteration does)
when that is among the best, and (option ``z``) unless another action leads
it by more than ``z`` paired standard errors. :meth:`VintageSearch.evaluate`
returns every legal action's mean score with the choice (the targets of
``train.vintage_expert``).

It is a plain batch ``Policy``: ``act(obs, mask)`` is all it is given, so it
never reads the true hidden state.

Spec: ``vintage-search@K`` (K worlds per decision, default 16), with options
``vintage-search:rollout=greedy|tactician|network,own=…,prior=tactician|network,net=PATH,
score=reward|ahead,z=Z,infer=0|1,confirm=C,leaf=D,value=PATH@K``
(``+`` also separates options, for agent lists that are split at commas; a
path may hold neither); the defaults are
``rollout=greedy,score=ahead,z=1.5,infer=0,confirm=0,prior=tactician,leaf=0``:

- ``rollout``: the policy every seat plays in the rollouts; ``greedy`` (a
  scalar copy of :class:`agents.vintage.bots.VintageGreedy`, fast),
  ``tactician`` (:class:`agents.vintage.bots.VintageTactician` on the encoded
  observation, slower) or ``network`` (a vintage policy network, ``net``).
  ``own`` overrides it for the searcher's own seat (``rollout=greedy+own=network``:
  the searcher's future self plays as the network, the others greedily).
  Rollouts that call the network run all worlds and actions in lock-step, so
  one forward pass serves every game waiting on it.
- ``prior``: the choice the search must beat by ``z`` standard errors: the
  tactician's, or the network's (``net``).
- ``net``: the network of ``rollout``/``own``/``prior`` ``network``, a saved
  vintage model (``vintage-ppo`` format); from a spec, the bundled ``vintage-expert`` if
  not given. Expert iteration passes its current network instead. Refused
  where no role is ``network`` (nothing would read it).
- ``leaf``: D > 0 cuts every rollout D actions after the searched one and
  scores it by a value network (``value``, :mod:`agents.vintage.value`: the
  searcher's expected finished-ahead share from its own observation there);
  a game over before that is scored as it ended. Needs ``score=ahead``;
  ``value`` without ``leaf`` is refused (nothing would read it).
- ``score``: ``reward`` is the env's reward for its seat (+1 for the winner,
  minus penalty points / 100 otherwise, 0 on truncation); ``ahead`` is the
  share of the other seats it finished ahead of (fewer penalty points; ties
  count half), the tournament's pairwise measure.
- ``infer``: 1 samples worlds that also agree with what the stuck seats
  reveal (``sample_world(..., infer=True)``: the seats that just drew hold
  nothing that follows the top but the card drawn); 0 samples uniformly.
- ``confirm``: C > 0 checks every choice that leaves the prior with a second,
  independent search of C fresh worlds (the same test); the prior's choice
  stands unless that search leaves it for the same action. At z = 1.5 most
  single-search overrides are noise that a second search does not repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.vintage.bots import VintageTactician, _VintageBot
from agents.vintage.value import ValueNet, ahead_share
from speed_env.policy import Policy
from speed_env.vintage import Pack
from speed_env.vintage.engine import TRUNCATED, Game, apply, legal_actions, penalties
from speed_env.vintage.observation import encode
from speed_env.vintage.worlds import copy_game, sample_world

if TYPE_CHECKING:
    from agents.model_io.mlp import MLPPolicy

ROLLOUTS = ("greedy", "tactician", "network")
SCORES = ("reward", "ahead")
PRIORS = ("tactician", "network")
OPTIONS = (
    *("rollout", "own", "prior", "net", "score", "worlds", "z", "infer", "confirm", "leaf"),
    "value",
)


@dataclass(frozen=True)
class SearchSettings:
    """The knobs of :class:`VintageSearch`."""

    worlds: int = 16
    """Worlds sampled per decision."""
    rollout: str = "greedy"
    """Rollout policy of every seat: ``greedy``, ``tactician`` or ``network``."""
    own: str = ""
    """Rollout policy of the searcher's own seat (empty: as ``rollout``)."""
    prior: str = "tactician"
    """Whose choice the search must beat: ``tactician`` or ``network``."""
    net: str = ""
    """Saved vintage model of the ``network`` roles (empty, in a spec: the bundled expert)."""
    leaf: int = 0
    """Cut rollouts this many actions after the searched one and score them by ``value``
    (0: play every rollout to the end)."""
    value: str = ""
    """Saved value network (:mod:`agents.vintage.value`) that scores cut rollouts."""
    score: str = "ahead"
    """What a rollout is worth to the searcher: ``reward`` or ``ahead``."""
    z: float = 1.5
    """Leave the tactician's choice only for an action whose paired lead over it, across
    the worlds, is more than ``z`` standard errors (0: the best mean wins)."""
    infer: bool = False
    """Sample worlds consistent with the stuck seats' draws, not uniform ones."""
    confirm: int = 0
    """Worlds of a second search that must repeat a choice leaving the prior (0: none)."""

    def __post_init__(self) -> None:
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or self.worlds < 1:
            raise ValueError(f"worlds must be a whole number, at least 1; got {self.worlds!r}")
        for name in ("rollout", "own"):
            value = getattr(self, name)
            if value not in ROLLOUTS and not (name == "own" and value == ""):
                raise ValueError(f"{name} must be one of {', '.join(ROLLOUTS)}; got {value!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}; got {self.prior!r}")
        if isinstance(self.leaf, bool) or not isinstance(self.leaf, int) or self.leaf < 0:
            raise ValueError(f"leaf must be a whole number, at least 0; got {self.leaf!r}")
        if self.leaf and self.score != "ahead":
            raise ValueError("leaf needs score=ahead: the value network predicts that share")
        if not isinstance(self.z, int | float) or not self.z >= 0:
            raise ValueError(f"z must be a number, at least 0; got {self.z!r}")
        if self.leaf and not self.value:
            raise ValueError("leaf needs value=PATH, a value network to score cut rollouts")
        if self.value and not self.leaf:
            raise ValueError(f"value={self.value} is read only with leaf=D (D > 0)")
        if self.net and not self.uses_network:
            raise ValueError(f"net={self.net} is read only when rollout, own or prior is network")
        if self.score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}; got {self.score!r}")
        if not isinstance(self.infer, bool):
            raise ValueError(f"infer must be True or False; got {self.infer!r}")
        if isinstance(self.confirm, bool) or not isinstance(self.confirm, int) or self.confirm < 0:
            raise ValueError(f"confirm must be a whole number, at least 0; got {self.confirm!r}")

    @property
    def seat_policies(self) -> tuple[str, str]:
        """Rollout policy of the searcher's seat and of every other seat."""
        return (self.own or self.rollout, self.rollout)

    @property
    def uses_network(self) -> bool:
        """Whether a policy network plays a rollout seat or is the prior."""
        return "network" in (*self.seat_policies, self.prior)


def parse_settings(arg: str, budget: str = "") -> SearchSettings:
    """Settings from a spec's ``rollout=…,score=…`` argument and its ``@K`` budget."""
    values: dict[str, object] = {}
    for item in filter(None, arg.replace("+", ",").split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in OPTIONS:
            raise ValueError(
                f"bad option {item!r}; give rollout=greedy|tactician|network, own=…, "
                "prior=tactician|network, net=PATH, score=reward|ahead, z=NUMBER, infer=0|1, "
                "confirm=WORLDS, leaf=ACTIONS, value=PATH, or the worlds as @K"
            )
        values[key] = value
    if "infer" in values:
        if values["infer"] not in ("0", "1"):
            raise ValueError(f"infer must be 0 or 1; got {values['infer']!r}")
        values["infer"] = values["infer"] == "1"
    for key in ("confirm", "leaf"):
        if key in values:
            if not str(values[key]).isdigit():
                raise ValueError(f"{key} must be a whole number; got {values[key]!r}")
            values[key] = int(str(values[key]))
    if "z" in values:
        try:
            values["z"] = float(str(values["z"]))
        except ValueError:
            raise ValueError(f"z must be a number; got {values['z']!r}") from None
    if budget:
        values["worlds"] = budget
    if "worlds" in values:
        text = str(values["worlds"])
        if not text.isdigit():
            raise ValueError(f"worlds per decision must be a whole number; got {text!r}")
        values["worlds"] = int(text)
    return SearchSettings(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SearchResult:
    """What one search found: each legal action's mean score and the action chosen."""

    legal: list[int]
    """The legal actions, in index order."""
    means: np.ndarray
    """Mean rollout score of each legal action over the worlds (``score`` setting's scale)."""
    choice: int
    """The action the search plays."""
    default: int
    """The prior's action (the tactician's unless another prior was given)."""


class VintageSearch(_VintageBot):
    """Determinized rollout search over worlds sampled from its own observation."""

    def __init__(
        self,
        settings: SearchSettings | None = None,
        seed: int | None = None,
        pack: Pack | None = None,
        prior: Policy | None = None,
        network: MLPPolicy | None = None,
        value: ValueNet | None = None,
    ) -> None:
        super().__init__(pack)
        self.settings = cfg = settings or SearchSettings()
        self.rng = np.random.default_rng(seed)
        self._tactician = VintageTactician(self.pack)
        # The network of the settings' "network" roles (expert iteration passes its own).
        self.network: MLPPolicy | None = network
        if self.network is None and cfg.uses_network:
            if not cfg.net:
                raise ValueError("a search with a network role needs net=PATH or a network")
            from agents.model_io.vintage import load_vintage_policy

            self.network = load_vintage_policy(cfg.net)
        self.value: ValueNet | None = value
        if self.value is None and cfg.leaf:
            from agents.vintage.value import load_value

            self.value = load_value(cfg.value)
        # The default choice the search must beat by z standard errors (the tactician unless
        # given or set to the network).
        if prior is None:
            prior = self.network if cfg.prior == "network" else self._tactician
        self.prior: Policy = prior  # type: ignore[assignment]
        # Rollouts move one game at a time with scalar bots; lock-step when a network is called.
        self._lockstep = cfg.leaf > 0 or "network" in cfg.seat_policies
        p = self.pack
        # Greedy's priorities (as VintageGreedy): X, then numbered cards by penalty,
        # then a Lightning calling the set held most of, then draw, then pass.
        self._prio = [0.0] * self.actions.n
        for k in range(p.n_numbered):
            self._prio[k] = 100.0 + p.penalties[k]
        for s in range(p.n_sets):
            self._prio[self.actions.call(s)] = 10.0
        self._prio[self.actions.play_x] = 200.0
        self._prio[self.actions.draw] = 1.0
        self._set_kinds = [
            [k for k in range(p.n_numbered) if p.kind_sets[k] == s] for s in range(p.n_sets)
        ]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row, each chosen by :meth:`choose`."""
        self._check(obs, mask)
        return np.array([self.choose(o, m) for o, m in zip(obs, mask, strict=True)], dtype=np.int64)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The legal action of best mean rollout score over sampled worlds."""
        return self.evaluate(obs, mask).choice

    def evaluate(self, obs: np.ndarray, mask: np.ndarray) -> SearchResult:
        """The search's values of every legal action for one observation, and its choice."""
        legal = [int(a) for a in np.flatnonzero(mask)]
        # A forced move: no worlds are sampled, so it draws nothing from the generator.
        if len(legal) == 1:
            return SearchResult(legal, np.ones(1), legal[0], legal[0])
        default = int(self.prior.act(obs[None], np.asarray(mask, np.int8)[None])[0])
        means, choice = self._search(obs, legal, default, self.settings.worlds)
        if choice != default and self.settings.confirm:
            # A second, independent search must leave the prior for the same action.
            _, again = self._search(obs, legal, default, self.settings.confirm)
            choice = choice if again == choice else default
        return SearchResult(legal, means, choice, default)

    def _search(
        self, obs: np.ndarray, legal: list[int], default: int, n: int
    ) -> tuple[np.ndarray, int]:
        """Mean score of each legal action over ``n`` fresh worlds, and the action chosen.

        The choice is the best action if it leads ``default`` by more than ``z`` paired
        standard errors.
        """
        infer = self.settings.infer
        worlds = [sample_world(obs, self.rng, pack=self.pack, infer=infer) for _ in range(n)]
        scores = self.world_scores(worlds, legal)
        means = scores.mean(axis=0)
        fallback = legal.index(default)
        best = int(np.argmax(means))
        # Equal means (every action wins in every world, say) keep the prior's choice.
        # 1e-9: means equal but for float rounding count as equal.
        if means[best] <= means[fallback] + 1e-9:
            return means, default
        lead = scores[:, best] - scores[:, fallback]
        if self.settings.z > 0:
            # One world has no spread to measure a lead against: the prior stands.
            spread = lead.std(ddof=1) / np.sqrt(len(lead)) if len(lead) > 1 else np.inf
            if lead.mean() <= self.settings.z * spread:
                return means, default
        return means, legal[best]

    def world_scores(self, worlds: list[Game], legal: list[int]) -> np.ndarray:
        """Rollout score, ``(worlds, actions)``, of each legal action for seat 0 (who acts)."""
        scores = np.zeros((len(worlds), len(legal)))
        if self._lockstep:
            games = []
            for world in worlds:
                for action in legal:
                    game = copy_game(world)
                    apply(game, action, self.rng)
                    games.append(game)
            return self._play_out(games).reshape(len(worlds), len(legal))
        for w, world in enumerate(worlds):
            for i, action in enumerate(legal):
                game = copy_game(world)
                apply(game, action, self.rng)
                self._rollout(game)
                scores[w, i] = self._score(game, 0)
        return scores

    def _score(self, game: Game, seat: int) -> float:
        if game.status == TRUNCATED:
            # The env's reward on truncation is 0; ahead of no one and behind no one is a tie.
            return 0.0 if self.settings.score == "reward" else 0.5
        points = penalties(game)
        if self.settings.score == "reward":
            return 1.0 if game.winner == seat else -points[seat] / 100.0
        return ahead_share(points, seat)

    def _play_out(self, games: list[Game]) -> np.ndarray:
        """Seat 0's score of each game, played on in lock-step.

        Each game runs on with the scalar bots until a seat the network plays has a choice;
        those games wait and one forward pass serves them all. With ``leaf`` a game is cut
        that many actions in and scored by the value network.
        """
        own, others = self.settings.seat_policies
        net_seats = [own == "network"] + [others == "network"] * (games[0].n_players - 1)
        scalar = {"greedy": self._greedy, "tactician": self._tactician_move}
        picks = [scalar.get(own), *[scalar.get(others)] * (games[0].n_players - 1)]
        leaf = self.settings.leaf or -1  # -1: no ply count reaches it, so no game is cut
        zeros = [0] * games[0].n_players  # a rollout is one game: no match scores carried in
        plies = [0] * len(games)
        todo = list(range(len(games)))
        while todo:
            waiting: list[tuple[int, list[int]]] = []
            for i in todo:
                game = games[i]
                while not game.over and plies[i] != leaf:
                    legal = legal_actions(game)
                    if len(legal) > 1 and net_seats[game.current]:
                        waiting.append((i, legal))
                        break
                    pick = picks[game.current]
                    action = legal[0] if len(legal) == 1 else pick(game, legal)  # type: ignore[misc]
                    apply(game, action, self.rng, check=False)  # picked from legal just above
                    plies[i] += 1
            if waiting:
                assert self.network is not None
                obs = np.stack(
                    [encode(games[i], games[i].current, zeros, 0, self.layout) for i, _ in waiting]
                )
                logits = self.network.logits(obs)
                for row, (i, legal) in enumerate(waiting):
                    action = legal[int(np.argmax(logits[row, legal]))]
                    apply(games[i], action, self.rng, check=False)
                    plies[i] += 1
            todo = [i for i, _ in waiting]
        scores = np.array([self._score(g, 0) for g in games])
        cut = [i for i, g in enumerate(games) if not g.over]
        if cut:
            assert self.value is not None
            obs = np.stack([encode(games[i], 0, zeros, 0, self.layout) for i in cut])
            scores[cut] = self.value(obs)
        return scores

    def _rollout(self, game: Game) -> None:
        pick = self._greedy if self.settings.rollout == "greedy" else self._tactician_move
        while not game.over:
            legal = legal_actions(game)
            action = legal[0] if len(legal) == 1 else pick(game, legal)
            apply(game, action, self.rng, check=False)  # picked from legal just above

    def _greedy(self, game: Game, legal: list[int]) -> int:
        prio = self._prio
        best, best_p = legal[0], -1.0
        hand = game.hands[game.current]
        n = self.pack.n_numbered
        for a in legal:
            p = prio[a]
            if n <= a < self.actions.play_x:
                # A Lightning: the set's cards held, / 100 so it orders Lightnings among
                # themselves and never lifts one past another band.
                p += sum([hand[k] for k in self._set_kinds[a - n]]) / 100.0
            if p > best_p:
                best, best_p = a, p
        return best

    def _tactician_move(self, game: Game, legal: list[int]) -> int:
        obs = encode(game, game.current, [0] * game.n_players, 0, self.layout)
        mask = np.zeros(self.actions.n, dtype=np.int8)
        mask[legal] = 1
        return self._tactician.choose(obs, mask)
