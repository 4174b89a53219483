"""Reaction-latency profiles: how long after a player commits a card it lands.

A profile is fixed (every play takes the same milliseconds) or ex-Gaussian
with a floor: ``max(floor, mu + sigma * N(0, 1) + tau * Exp(1))``, the usual
fit of human reaction times (a Gaussian body with a right-skewed tail).
Latencies are whole milliseconds, at least 1.

Named presets (ms; medians are approximate):

============  =====  =====  =====  =====  ==========================================
name          mu     sigma  tau    floor  meant as
============  =====  =====  =====  =====  ==========================================
superhuman    110    10     15     80     a bot with quick eyes and hands (~120 ms)
pro           190    25     45     130    a practised, fast player (~220 ms)
human         240    40     80     150    the default: a keen player (~290 ms)
casual        320    60     140    180    a relaxed player (~420 ms)
============  =====  =====  =====  =====  ==========================================

What the presets stand on. Woods et al. 2015 (Front. Hum. Neurosci. 9:131,
n = 1,469, ages 18-65) measured a mean *simple* visual reaction time of 231 ms
(213 ms once corrected for the hardware's delay), rising 0.55 ms a year of
age: one stimulus, one response. A play in Speed is slower than that by
nature: it is a *choice* reaction (which card, which pile, is it legal) plus a
*movement* (pick the card, put it down): ``pro`` (median 226 ms, measured on
20,001 draws) is about as fast as a simple reaction, a keen player's ``human``
(304 ms) sits above it, and ``superhuman`` (122 ms) is faster than any
person's simple reaction. A person's own profile is fitted
from their recorded plays by ``speed data profile`` (docs/human-data.md) and
read back as ``profile:FILE``.

A profile file (``--reaction profile:FILE``, ``chain@profile:FILE``) is JSON with
``"format": "speed-reaction-profile"``, ``"version": 1`` and the numbers
``mu``, ``sigma``, ``tau``, ``floor`` (other keys, such as the fit's intervals,
are kept for the reader and ignored here): :func:`load_profile`.

Each committed play draws its latency from the counter-based stream
``rng.LATENCY + seat`` (seats 2 and 3 of a party game: ``rng.PARTY_LATENCY + seat - 2``,
clear of the piles' ``REBUILD`` streams) at counters ``3n, 3n + 1, 3n + 2`` (``n`` = that
seat's play count): two uniforms for a Box–Muller normal and one for the
exponential. The draw is made whatever the profile, so switching a profile
never shifts any other random draw of the game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numba import njit
from numba import types as nb_types

from speed_env import rng

FIXED = 0
EXGAUSS = 1
MAX_REACTION_MS = 10**9
"""The largest value of any profile parameter, in ms. A latency drawn is then at most
``floor + mu + 8.6 sigma + 36.7 tau`` (the extreme uniforms' normal and exponential),
under 5e10 ms: inside ``rules.MAX_MS``, so the engine's int64 clock cannot overflow."""


class ReactionError(ValueError):
    """A reaction profile or reaction argument is not valid."""


@dataclass(frozen=True)
class ReactionProfile:
    """A latency distribution for one player's plays (milliseconds)."""

    mu: float
    """Mean of the Gaussian body (the fixed latency when ``sigma == tau == 0``)."""
    sigma: float = 0.0
    """Standard deviation of the Gaussian body."""
    tau: float = 0.0
    """Mean of the exponential tail (right skew)."""
    floor: float = 1.0
    """No play lands faster than this."""
    name: str = ""
    """Preset name, or empty for a custom profile."""

    def __post_init__(self) -> None:
        for field in ("mu", "sigma", "tau", "floor"):
            value = getattr(self, field)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or not 0 <= value <= MAX_REACTION_MS
            ):
                raise ReactionError(
                    f"reaction profile {field!r} must be a number of ms "
                    f"between 0 and {MAX_REACTION_MS}, "
                    f"got {value!r}"
                )
        if self.mu < 1 and self.sigma == 0 and self.tau == 0:
            raise ReactionError(f"a fixed reaction must be at least 1 ms, got {self.mu!r}")

    @property
    def is_fixed(self) -> bool:
        """True when every play takes exactly ``mu`` ms."""
        return self.sigma == 0 and self.tau == 0

    def params(self) -> np.ndarray:
        """The profile as the engine's float64 vector ``[kind, mu, sigma, tau, floor]``."""
        kind = FIXED if self.is_fixed else EXGAUSS
        return np.array([kind, self.mu, self.sigma, self.tau, self.floor], dtype=np.float64)

    def median_ms(self, n: int = 20_001) -> float:
        """Median latency, measured on ``n`` draws of a fixed seed."""
        p = self.params()
        return float(np.median([latency_ms(p, rng.seed_to_u64(12345), 0, i) for i in range(n)]))

    def label(self) -> str:
        """Short human-readable name: the preset, ``250ms``, or the parameters."""
        if self.name:
            return self.name
        if self.is_fixed:
            return f"{self.mu:g}ms"
        return f"exgauss(mu={self.mu:g},sigma={self.sigma:g},tau={self.tau:g},floor={self.floor:g})"


PRESETS: dict[str, ReactionProfile] = {
    "superhuman": ReactionProfile(110, 10, 15, 80, name="superhuman"),
    "pro": ReactionProfile(190, 25, 45, 130, name="pro"),
    "human": ReactionProfile(240, 40, 80, 150, name="human"),
    "casual": ReactionProfile(320, 60, 140, 180, name="casual"),
}
DEFAULT = "human"

ReactionSpec = ReactionProfile | str | int | float


PROFILE_FORMAT = "speed-reaction-profile"
"""The ``format`` of a profile file."""
PROFILE_VERSION = 1
"""The profile file format's version."""
PROFILE_PREFIX = "profile:"
"""A reaction spec ``profile:FILE`` reads a profile file."""


def load_profile(path: str) -> ReactionProfile:
    """The profile in the JSON profile file ``path`` (see the module docstring)."""
    from speed_env.user_file import read_json

    data = read_json(path, "reaction profile file", ReactionError)
    if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
        raise ReactionError(
            f"reaction profile file {path!r} must be a JSON object with "
            f'"format": "{PROFILE_FORMAT}" (speed data profile writes one)'
        )
    if data.get("version") != PROFILE_VERSION:
        raise ReactionError(
            f"reaction profile file {path!r} has version {data.get('version')!r}; "
            f"this kit reads version {PROFILE_VERSION}"
        )
    values = {}
    for key in ("mu", "sigma", "tau", "floor"):
        if key not in data:
            raise ReactionError(f"reaction profile file {path!r} lacks {key!r}")
        values[key] = data[key]
    try:
        return ReactionProfile(**values)
    except ReactionError as exc:
        raise ReactionError(f"reaction profile file {path!r}: {exc}") from None


def fixed(ms: float) -> ReactionProfile:
    """A profile where every play takes exactly ``ms`` milliseconds."""
    return ReactionProfile(float(ms), 0.0, 0.0, 1.0)


def check_think_ms(value: object, what: str) -> float:
    """``value`` as a thinking cost in ms (a finite number >= 0); else a :class:`ReactionError`.

    ``what`` names where the value came from (``opponent_think``, an agent's ``think_ms``).
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or not 0 <= value <= MAX_REACTION_MS
    ):
        raise ReactionError(
            f"{what} must be a number of ms between 0 and {MAX_REACTION_MS}, got {value!r}"
        )
    return float(value)


def delayed(profile: ReactionProfile, think_ms: float) -> ReactionProfile:
    """``profile`` moved ``think_ms`` later: thinking time charged before every play lands.

    The whole shape moves, floor too (thinking delays even the fastest reaction); ``0`` gives
    ``profile`` itself.
    """
    if think_ms <= 0:
        return profile
    return replace(
        profile,
        mu=profile.mu + think_ms,
        floor=profile.floor + think_ms,
        name=f"{profile.label()}+{think_ms:g}ms",
    )


def make_profile(spec: ReactionSpec) -> ReactionProfile:
    """A profile from a number of ms, a preset name, a ``"250"``/``"250ms"`` string or a profile."""
    if isinstance(spec, ReactionProfile):
        return spec
    if isinstance(spec, bool):
        raise ReactionError(f"reaction must be ms or a profile name, got {spec!r}")
    if isinstance(spec, (int, float, np.integer, np.floating)):
        return fixed(float(spec))
    if isinstance(spec, str) and spec.strip().startswith(PROFILE_PREFIX):
        return load_profile(spec.strip()[len(PROFILE_PREFIX) :])
    if isinstance(spec, str):
        text = spec.strip().lower()
        if text in PRESETS:
            return PRESETS[text]
        try:
            ms = float(text.removesuffix("ms"))
        except ValueError:
            ms = None
        if ms is not None:
            return fixed(ms)  # a number out of range says so (ReactionError), not "unknown"
    raise ReactionError(
        f"unknown reaction {spec!r}: give milliseconds (e.g. 250), "
        f"a profile name ({', '.join(PRESETS)}) or profile:FILE.json"
    )


def make_pair(reaction: object = None) -> tuple[ReactionProfile, ReactionProfile]:
    """Both seats' profiles from the ``reaction=`` argument of the envs.

    ``None`` → the default jittered profile for both; one number / name /
    profile → both seats; a pair → ``(player_0, player_1)``.
    """
    if reaction is None:
        p = PRESETS[DEFAULT]
        return p, p
    if isinstance(reaction, (tuple, list)):
        if len(reaction) != 2:
            raise ReactionError(
                f"a reaction pair needs exactly 2 entries (player_0, player_1), got {len(reaction)}"
            )
        return make_profile(reaction[0]), make_profile(reaction[1])
    p = make_profile(reaction)  # type: ignore[arg-type]
    return p, p


@njit(
    nb_types.int64(nb_types.float64[::1], nb_types.uint64, nb_types.int64, nb_types.int64),
    cache=True,
)
def latency_ms(params: np.ndarray, seed: np.uint64, seat: int, n: int) -> int:
    """Latency in whole ms of seat ``seat``'s ``n``-th play under ``params``."""
    # Seats 2 and 3 exist only in party games; their streams sit past the four piles'
    # REBUILD streams (8-11), which LATENCY + 3 would share.
    stream = rng.LATENCY + seat if seat < 2 else rng.PARTY_LATENCY + seat - 2
    u1 = rng.uniform(seed, stream, 3 * n)
    u2 = rng.uniform(seed, stream, 3 * n + 1)
    u3 = rng.uniform(seed, stream, 3 * n + 2)
    if params[0] == FIXED:
        value = params[1]
    else:
        normal = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
        expo = -math.log(1.0 - u3)
        value = max(params[4], params[1] + params[2] * normal + params[3] * expo)
    return max(1, round(value))
