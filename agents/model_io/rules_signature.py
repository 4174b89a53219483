"""What a model must match to play a rules set: its observation/action signature, checked.

A model's manifest records the signature it was trained for (``obs_dim``,
``n_actions``, the observation's named layout) and the rules it was trained
under; :func:`check_signature` refuses a model for rules it cannot play,
naming both. Shared by :mod:`agents.model_io.kit_model` (the kit's files) and
:mod:`agents.model_io.sb3_import` (SB3 ``.zip`` files).
"""

from __future__ import annotations

from typing import Any

from agents.model_io.mlp import tags_label, trained_tags
from agents.model_io.tensor_file import ModelFormatError
from speed_env.observation import obs_dim as rules_obs_dim
from speed_env.observation import observation_layout, rules_tag, tag_label
from speed_env.rules import Rules


def signature(rules: Rules) -> dict[str, Any]:
    """The observation/action signature of ``rules``: what a model must match to play them
    (at three or four seats the ego-centric n-seat observation's,
    :func:`speed_env.party_obs.party_layout`)."""
    from speed_env import engine

    if rules.players > 2:
        from speed_env.party_obs import party_layout, party_obs_dim

        return {
            "obs_dim": party_obs_dim(rules),
            "n_actions": engine.n_actions(rules),
            "layout": [[name, s.start, s.stop] for name, s in party_layout(rules).items()],
        }
    return {
        "obs_dim": rules_obs_dim(rules),
        "n_actions": engine.n_actions(rules),
        "layout": [[name, s.start, s.stop] for name, s in observation_layout(rules).items()],
    }


def signature_key(rules: Rules) -> tuple[int, int]:
    """``(obs_dim, n_actions)`` of ``rules``: rules alike in it can share one network."""
    from speed_env import engine

    if rules.players > 2:
        return signature(rules)["obs_dim"], engine.n_actions(rules)
    return rules_obs_dim(rules), engine.n_actions(rules)


def check_signature(manifest: dict[str, Any], rules: Rules, where: str) -> None:
    """Refuse a model that cannot play ``rules``, each cause named.

    - other actions;
    - an observation layout this version does not start with;
    - rules it was not trained under.
    """
    game = manifest.get("game", "speed")
    if game != "speed":  # another game's model: its rules name no real-time preset to check
        raise ModelFormatError(
            f"{where} is a model of the game {game!r}, not one for real-time Speed; play it "
            "with that game's model agent (speed agents lists them)"
        )
    have, want = manifest["observation"], signature(rules)
    trained = manifest.get("rules", {})
    seats = model_players(manifest)
    if seats != rules.players:  # the seat count first: it changes every size below
        raise ModelFormatError(
            f"{where} was trained at tables of {seats} players, not {rules.players} "
            f"(players={rules.players}); play it at a table of {seats} "
            f"(speed tournament --players {seats}), or train one for {rules.players}"
        )
    if have.get("n_actions") != want["n_actions"]:
        raise ModelFormatError(
            f"{where} was trained for n_actions = {have.get('n_actions')} (rules "
            f"{_rules_label(trained)}), but rules {_rules_label(rules.to_dict())} have n_actions = "
            f"{want['n_actions']}; load it with rules of the same observation/action signature"
        )
    # The model's layout must be where this version's starts, field by field (by name).
    now = {name: (start, stop) for name, start, stop in want["layout"]}
    old = have.get("layout")
    dim = have.get("obs_dim")
    try:
        fields = {str(f[0]): (f[1], f[2]) for f in old} if isinstance(old, list) else None
    # A malformed layout in a hand-edited manifest is refused below, with the layouts shown.
    except (TypeError, IndexError, KeyError):
        fields = None
    # Every field of ours that fits in the model's obs_dim must be one it knows: a
    # model may predate fields appended at the end, never miss one in the middle.
    inside = {name for name, (_, stop) in now.items() if isinstance(dim, int) and stop <= dim}
    if (
        fields is None
        or any(now.get(n) != span for n, span in fields.items())
        or inside != set(fields)
    ):
        raise ModelFormatError(
            f"{where} was trained for obs_dim = {dim} (rules {_rules_label(trained)}) with an "
            "observation layout this version of speed_env does not start with, but rules "
            f"{_rules_label(rules.to_dict())} have obs_dim = {want['obs_dim']} (layout {old!r} "
            f"vs {want['layout']!r}); retrain or convert it"
        )
    tags = trained_tags(manifest, where)
    if tags is not None and not (tags == rules_tag(rules)).all(axis=1).any():
        raise ModelFormatError(
            f"{where} was trained on {tags_label(tags)}, not on {tag_label(rules_tag(rules))}; "
            f"load it with the rules it was trained on, or train one for these"
        )


def model_players(manifest: dict[str, Any]) -> int:
    """The seats of the tables a model was trained at: its rules' ``players`` (2 when unsaid,
    as in every model written before three and four seats)."""
    trained = manifest.get("rules")
    seats = trained.get("players", 2) if isinstance(trained, dict) else 2
    return seats if isinstance(seats, int) and not isinstance(seats, bool) else 2


def _rules_label(d: dict[str, Any]) -> str:
    from speed_env.rules import Rules as R

    default = (
        R(preset=d.get("preset", "us")).to_dict()
        # Only a preset that exists has defaults to compare with; "?" (an SB3 .zip) has none.
        if d.get("preset") in ("us", "pagat", "japanese")
        else {}
    )
    extra = [f"{k}={v}" for k, v in d.items() if k != "preset" and default.get(k) != v]
    return str(d.get("preset", "?")) + (f" ({', '.join(extra)})" if extra else "")
