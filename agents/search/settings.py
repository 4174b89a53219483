"""``search``'s settings: its budget and the model of the worlds it searches, from its spec."""

from __future__ import annotations

from dataclasses import dataclass, fields

from speed_env.reaction import make_profile


@dataclass(frozen=True)
class SearchSettings:
    """The search budget and the model of the worlds it searches."""

    worlds: int = 16
    """Worlds sampled per decision; every legal action is continued on each."""
    depth: int = 40
    """Ticks each continuation runs before the card lead scores it; 0 runs to the game's end."""
    scale: float = 4.0
    """Card lead worth tanh(1) of the way from a draw to a win, at the depth cut."""
    z: float = 0.0
    """Leave ``chain``'s choice only for an action ahead of it by ``z`` standard errors.

    The lead is the mean over the worlds, paired world by world; 0: the best mean wins.
    """
    wait: int = 1
    """Whether waiting is searched: 1 like every other legal action, 0 only where ``chain`` waits.

    With 0 the agent never waits in place of a play ``chain`` makes, measured stronger on the
    ``japanese`` options: docs/research/japanese-options.md.
    """
    ms_per_world: float = 0.0
    """Thinking charged as latency: ``worlds * ms_per_world`` ms added to each play of this seat."""
    reaction: str = "human"
    """Reaction profile both seats get inside the sampled worlds."""
    tick_ms: int = 50
    """Tick of the worlds (the env's tick; the observation does not carry it)."""

    def __post_init__(self) -> None:
        if (
            self.worlds < 1
            or self.depth < 0
            or self.scale <= 0
            or self.z < 0
            or self.ms_per_world < 0
            or self.tick_ms < 1
            or self.wait not in (0, 1)
        ):
            raise ValueError(
                f"search settings out of range: {self}; worlds >= 1, depth >= 0, scale > 0, "
                f"z >= 0, ms_per_world >= 0, tick_ms >= 1, wait 0 or 1"
            )
        make_profile(self.reaction)

    @property
    def think_ms(self) -> float:
        """Milliseconds charged to each play for the thinking."""
        return self.worlds * self.ms_per_world


def parse_settings(arg: str) -> SearchSettings:
    """``worlds=16,depth=40,…`` or a bare number of worlds, as in ``search:ARG``."""
    types = {f.name: f.type for f in fields(SearchSettings)}
    kw: dict[str, object] = {}
    for item in filter(None, (x.strip() for x in arg.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            key, value = "worlds", item
        # Field types are strings here (from __future__ import annotations): "int", not int.
        conv = {"int": int, "float": float, "str": str}.get(str(types.get(key)))
        if conv is None:
            raise ValueError(f"unknown search setting {key!r}; use {', '.join(types)}")
        try:
            kw[key] = conv(value)
        except ValueError:
            raise ValueError(
                f"search setting {key}={value!r} is not a valid {types[key]}"
            ) from None
    return SearchSettings(**kw)  # type: ignore[arg-type]
