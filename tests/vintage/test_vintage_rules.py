"""Each rule of Vintage Speed (speed_env/vintage/aec.py), played from an explicit deal.

Every test draws its table as text (see ``vintage_helpers.parse_table``);
cards not shown lie at the bottom of the pack.
"""

from __future__ import annotations

import pytest
from vintage_helpers import legal_names, parse_table, play, table

from speed_env.vintage import raw_env
from speed_env.vintage.pack import pack_from_dict

LIGHTNING_CALLS = {f"play L call {s}" for s in "ATSMH"}


# -- the lead ----------------------------------------------------------------


def test_leader_is_left_of_dealer_and_leads_anything_but_x() -> None:
    env = table(
        """
        dealer: 2
        player_0: M8
        player_1: T1
        player_2: S2
        player_3: A3 H2/5 L X
        """
    )
    assert env.agent_selection == "player_3"
    assert legal_names(env) == {"play A3", "play H2/5", *LIGHTNING_CALLS}


def test_leader_holding_only_x_must_draw() -> None:
    env = table(
        """
        player_0: X
        player_1: T1
        """
    )
    assert legal_names(env) == {"draw"}


# -- following ---------------------------------------------------------------


def test_follow_by_set_or_by_number() -> None:
    env = table(
        """
        discard: T5
        player_0: T2 A5 S3 H1/4 M7
        player_1: A1
        """
    )
    # T2 by set, A5 by number; S3, H1/4 and M7 share neither.
    assert legal_names(env) == {"play T2", "play A5"}


def test_a_horse_follows_on_either_of_its_numbers() -> None:
    env = table(
        """
        discard: A4
        player_0: H1/4 H4/7 H2/5 T3
        player_1: A1
        """
    )
    assert legal_names(env) == {"play H1/4", "play H4/7"}


def test_on_a_horse_any_horse_or_either_number_follows() -> None:
    env = table(
        """
        discard: H2/5
        player_0: H6/9 T2 S5 A3 M4
        player_1: A1
        """
    )
    assert legal_names(env) == {"play H6/9", "play T2", "play S5"}


def test_placing_a_card_passes_the_turn_left() -> None:
    env = table(
        """
        discard: T5
        player_0: T2 A1
        player_1: T9 A8
        player_2: S1
        """
    )
    play(env, "play T2")
    assert env.agent_selection == "player_1"
    assert env.snapshot()["discard_top"] == "T2"
    assert legal_names(env) == {"play T9"}


# -- drawing -----------------------------------------------------------------


def test_a_player_who_cannot_follow_draws_one_card_and_that_ends_the_turn() -> None:
    env = table(
        """
        discard: T5
        pack: T6 A1
        player_0: S1 M2
        player_1: A9
        """
    )
    assert legal_names(env) == {"draw"}
    play(env, "draw")
    # T6 would follow T5, but the draw ended player_0's turn.
    snap = env.snapshot()
    assert snap["players"][0]["hand"] == ["T6", "S1", "M2"]  # hands list in kind order
    assert snap["current"] == "player_1"
    assert snap["discard_top"] == "T5"


def test_a_player_who_can_follow_may_not_draw_by_default() -> None:
    text = """
        discard: T5
        player_0: T2 M2
        player_1: A9
        """
    assert legal_names(table(text)) == {"play T2"}
    assert legal_names(table(text, may_draw_when_able=True)) == {"play T2", "draw"}


def test_an_empty_pack_is_rebuilt_from_the_discard_pile_except_its_top() -> None:
    env = table(
        """
        discard: T5
        pack: empty
        player_0: S1
        player_1: A9
        """
    )
    before = env.snapshot()
    assert before["pack"] == 0 and before["discard"] > 1
    play(env, "draw")
    after = env.snapshot()
    assert after["discard"] == 1 and after["discard_top"] == "T5"
    assert after["pack"] == before["discard"] - 2  # all but the top, less the card drawn
    assert len(after["players"][0]["hand"]) == 2


def test_without_rebuild_an_empty_pack_means_pass() -> None:
    env = table(
        """
        discard: T5
        pack: empty
        player_0: S1
        player_1: A9
        """,
        rebuild_pack=False,
    )
    assert legal_names(env) == {"pass"}


# A pack small enough to leave nothing to draw: three one-card sets.
TINY = pack_from_dict(
    {
        "name": "tiny",
        "sets": [
            {"letter": "A", "name": "Aeroplane", "cards": [1]},
            {"letter": "T", "name": "Train", "cards": [2]},
            {"letter": "S", "name": "Ship", "cards": [3]},
            {"letter": "M", "name": "Motor", "cards": [5, 6]},
        ],
        "lightning": {"count": 0, "penalty": 15},
        "extra_turn": {"count": 0, "penalty": 20},
    },
    source="tiny",
)


def test_with_nothing_to_draw_a_player_passes_and_all_passing_locks_the_game() -> None:
    env = table(
        """
        discard: A1
        player_0: T2 S3 M6
        player_1: M5
        """,
        pack=TINY,
    )
    assert legal_names(env) == {"pass"}
    play(env, "pass")
    assert env.snapshot()["current"] == "player_1"
    play(env, "pass")
    snap = env.snapshot()
    assert snap["status"] == "locked"
    # Lowest penalty wins a locked game: player_1 holds 5, player_0 holds 11.
    assert snap["winner"] == "player_1"
    assert env.rewards == {"player_0": pytest.approx(-0.11), "player_1": 1.0}
    assert all(env.terminations.values())


def test_a_locked_game_with_equal_lowest_penalties_is_a_draw() -> None:
    env = table(
        """
        discard: A1
        player_0: T2 S3
        player_1: M5
        """,
        pack=pack_from_dict(
            {
                "sets": [
                    {"letter": "A", "name": "Aeroplane", "cards": [1]},
                    {"letter": "T", "name": "Train", "cards": [2]},
                    {"letter": "S", "name": "Ship", "cards": [3]},
                    {"letter": "M", "name": "Motor", "cards": [5]},
                ],
                "lightning": {"count": 0, "penalty": 15},
                "extra_turn": {"count": 0, "penalty": 20},
            }
        ),
    )
    play(env, "pass", "pass")
    assert env.snapshot()["winner"] == "draw"
    assert env.rewards == {"player_0": pytest.approx(-0.05), "player_1": pytest.approx(-0.05)}


def test_a_draw_is_not_a_pass_and_the_lock_needs_the_whole_table() -> None:
    env = table(
        """
        discard: A1 T2
        player_0: S3
        player_1: M5
        player_2: M6
        """,
        pack=TINY,
    )
    play(env, "draw")  # player_0 rebuilds the pack from T2 and draws it
    play(env, "pass", "pass")  # player_1 and player_2: nothing left to draw
    assert env.snapshot()["status"] == "play" and env.game.passes == 2
    play(env, "pass")  # player_0 (T2 S3 on A1): the third pass in a row at a table of three
    assert env.snapshot()["status"] == "locked"


def test_placing_a_card_breaks_a_run_of_passes() -> None:
    env = table(
        """
        discard: A1
        player_0: S3
        player_1: T2
        player_2: A4 M5 M6
        """,
        pack=pack_from_dict(
            {
                "sets": [
                    {"letter": "A", "name": "Aeroplane", "cards": [1, 4]},
                    {"letter": "T", "name": "Train", "cards": [2]},
                    {"letter": "S", "name": "Ship", "cards": [3]},
                    {"letter": "M", "name": "Motor", "cards": [5, 6]},
                ],
                "lightning": {"count": 0, "penalty": 15},
                "extra_turn": {"count": 0, "penalty": 20},
            }
        ),
    )
    play(env, "pass", "pass")
    assert env.game.passes == 2
    play(env, "play A4")
    assert env.game.passes == 0
    assert legal_names(env) == {"draw"}  # player_0 again: A1 below the top can be rebuilt


# -- Lightning ---------------------------------------------------------------


def test_lightning_plays_on_anything_on_your_turn() -> None:
    env = table(
        """
        discard: T5
        player_0: L M1
        player_1: A9
        """
    )
    assert legal_names(env) == LIGHTNING_CALLS


def test_a_lightning_call_binds_every_player_until_someone_places_the_set() -> None:
    env = table(
        """
        discard: T5
        pack: A1 M2
        player_0: L T1
        player_1: T6 A7
        player_2: S4 H3/6
        player_3: H1/4 S8
        """
    )
    play(env, "play L call S")
    snap = env.snapshot()
    assert snap["called"] == "S" and snap["discard_top"] == "L"
    # player_1 holds no Ship: T6 and A7 would have followed T5, not the call.
    assert legal_names(env) == {"draw"}
    play(env, "draw")
    assert env.snapshot()["called"] == "S"
    # player_2 holds S4: only the called set may be placed (H3/6 may not).
    assert legal_names(env) == {"play S4"}
    play(env, "play S4")
    snap = env.snapshot()
    assert snap["called"] is None and snap["discard_top"] == "S4"
    assert legal_names(env) == {"play H1/4", "play S8"}


def test_lightning_plays_even_under_a_call_and_its_call_replaces_the_old() -> None:
    env = table(
        """
        discard: L
        called: S
        player_0: L A3
        player_1: M2 S5
        """
    )
    assert legal_names(env) == LIGHTNING_CALLS
    play(env, "play L call M")
    assert env.snapshot()["called"] == "M"
    assert legal_names(env) == {"play M2"}


# -- the Extra Turn ----------------------------------------------------------


def test_extra_turn_only_straight_after_placing_a_card() -> None:
    env = table(
        """
        discard: A5
        player_0: A3 X M1
        player_1: T9 S1
        """
    )
    # X is never a turn's first card.
    assert legal_names(env) == {"play A3"}
    play(env, "play A3")
    assert env.agent_selection == "player_0"
    assert env.snapshot()["extra_pending"] is True
    assert legal_names(env) == {"play X", "pass"}
    play(env, "play X")
    # After X the next player may place any card, and any call is over.
    snap = env.snapshot()
    assert snap["discard_top"] == "X" and snap["current"] == "player_1"
    assert legal_names(env) == {"play T9", "play S1"}


def test_declining_the_extra_turn_keeps_x_and_ends_the_turn() -> None:
    env = table(
        """
        discard: A5
        player_0: A3 X
        player_1: T9 A1
        """
    )
    play(env, "play A3", "pass")
    snap = env.snapshot()
    assert snap["players"][0]["hand"] == ["X"] and snap["current"] == "player_1"
    assert legal_names(env) == {"play A1"}


def test_extra_turn_after_lightning_ends_the_call() -> None:
    env = table(
        """
        discard: T5
        player_0: L X M1
        player_1: S8 A1
        """
    )
    play(env, "play L call H", "play X")
    snap = env.snapshot()
    assert snap["called"] is None
    assert legal_names(env) == {"play S8", "play A1"}


def test_a_player_not_holding_x_is_not_offered_it() -> None:
    env = table(
        """
        discard: A5
        player_0: A3 M1
        player_1: T9 X
        """
    )
    play(env, "play A3")
    assert env.agent_selection == "player_1"
    assert env.snapshot()["extra_pending"] is False


# -- the end and the score ---------------------------------------------------


def test_going_out_ends_the_game_and_others_count_what_they_hold() -> None:
    env = table(
        """
        discard: A5
        player_0: A3
        player_1: H2/5 X L T4
        player_2: M8 S1
        """
    )
    play(env, "play A3")
    snap = env.snapshot()
    assert snap["winner"] == "player_0" and snap["status"] == "out" and snap["current"] is None
    # Horse both numbers (2 + 5), Extra Turn 20, Lightning 15, T4 4.
    assert [p["score"] for p in snap["players"]] == [0, 46, 9]
    assert env.rewards == {
        "player_0": 1.0,
        "player_1": pytest.approx(-0.46),
        "player_2": pytest.approx(-0.09),
    }
    assert all(env.terminations.values()) and not any(env.truncations.values())


def test_going_out_with_a_card_and_the_extra_turn() -> None:
    env = table(
        """
        discard: A5
        player_0: A3 X
        player_1: T4
        """
    )
    play(env, "play A3", "play X")
    assert env.snapshot()["winner"] == "player_0"


def test_truncation_pays_nothing_and_scores_nothing() -> None:
    env = table(
        """
        discard: T5
        player_0: S1 M2
        player_1: A9 S3
        """,
        max_turns=2,
    )
    play(env, "draw", "draw")
    snap = env.snapshot()
    assert snap["status"] == "truncated" and snap["winner"] is None
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert [p["score"] for p in snap["players"]] == [0, 0]


def test_two_packs_for_six_players_in_the_explicit_deal() -> None:
    deal = parse_table(
        """
        discard: T5
        player_0: T5 A1
        player_1: L
        player_2: L
        player_3: X
        player_4: X
        player_5: M1
        """
    )
    env = raw_env(num_players=6)
    env.reset(options={"deal": deal})
    assert sum(len(p["hand"]) for p in env.snapshot()["players"]) + env.snapshot()["pack"] + 1 == 90
    assert legal_names(env) == {"play T5"}
