"""Text rendering of a Vintage Speed table (``render_mode="ansi"``).

It shows everything, every hand included: it is a view for people watching
or debugging, not an observation.
"""

from __future__ import annotations

from speed_env.vintage.engine import LOCKED, OUT, TRUNCATED, Game, penalties


def hand_tokens(game: Game, seat: int) -> list[str]:
    """Tokens of ``seat``'s hand in kind order (duplicates repeated)."""
    tokens = game.rules.pack.tokens
    return [tokens[k] for k, c in enumerate(game.hands[seat]) for _ in range(c)]


def render_text(game: Game, scores: list[int], game_number: int) -> str:
    """A few lines describing the table: the pile, the call, each hand and score."""
    pack = game.rules.pack
    rules = game.rules
    lines = [
        f"Vintage Speed, game {game_number} of {rules.games}, "
        f"dealer player_{game.dealer}, turn {game.turns}"
    ]
    top = pack.tokens[game.top] if game.discard else "(empty: lead)"
    call = f"   call: {pack.set_letters[game.called]}" if game.called >= 0 else ""
    lines.append(f"discard: {top} ({len(game.discard)} cards)   pack: {len(game.pack)}{call}")
    points = penalties(game)
    for seat in range(game.n_players):
        marker = ">" if seat == game.current and not game.over else " "
        extra = "  (may add X)" if marker == ">" and game.extra_pending else ""
        cards = " ".join(hand_tokens(game, seat)) or "-"
        lines.append(
            f"{marker} player_{seat}: {cards}   "
            f"[{points[seat]} in hand, match {scores[seat]}]{extra}"
        )
    if game.status == OUT:
        lines.append(f"player_{game.winner} went out")
    elif game.status == LOCKED:
        result = f"player_{game.winner} wins" if game.winner is not None else "a draw"
        lines.append(f"locked: every player passed; {result}")
    elif game.status == TRUNCATED:
        lines.append(f"truncated after {game.turns} turns")
    return "\n".join(lines)
