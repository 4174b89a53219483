"""How often does a second search repeat the first one's override of its prior?

Reads a target file of vintage expert iteration (``OUT/round_R/targets.safetensors``,
``speed train-expert --game vintage``), takes the decisions where the search left its
prior (the tactician) and searches each again with fresh worlds (a new seed; ``--worlds``
each), counting how often the second search makes the same override, goes back to the
prior, or picks a third action. An override that a second search does not repeat is noise
of the first search's test, and a network cannot learn it.

With ``--by-kind`` it also splits the overrides by decision kind (what the prior
played and what the search played instead: a numbered card, a cheaper or costlier one,
a Lightning call, the Extra Turn card, a pass or a draw) and says, per kind, how many
of them a second search repeats: where the search's repeatable edge lies.

Run: python benchmarks/vintage_override_noise.py runs/x/round_0/targets.safetensors
--worlds 32,128 --limit 300 [--by-kind]
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.vintage.search import SearchSettings, VintageSearch
from speed_env.vintage import default_pack
from speed_env.vintage.actions import Actions
from train.vintage.expert_targets import read_targets


def kind(prior: int, choice: int) -> str:
    """The decision kind of an override: what the prior played and what the search played
    instead (``card`` a numbered card, ``L`` a Lightning call, ``X``, ``pass``, ``draw``)."""
    pack = default_pack()
    acts = Actions(pack)

    def what(a: int) -> str:
        if a < pack.n_numbered:
            return "card"
        if acts.is_call(a):
            return "L"
        return {acts.play_x: "X", acts.draw: "draw", acts.pass_: "pass"}[a]

    p, c = what(prior), what(choice)
    if p == c == "card":
        cheaper = pack.penalties[choice] < pack.penalties[prior]
        return "card -> cheaper card" if cheaper else "card -> costlier or equal card"
    if p == c == "L":
        return "L -> L with another call"
    return f"{p} -> {c}"


def main() -> None:
    """Print, per worlds budget, how the overrides fare when searched again."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("targets", help="a vintage search-target file")
    parser.add_argument("--worlds", default="32,128", help="comma-separated budgets to re-search")
    parser.add_argument("--limit", type=int, default=300, help="overrides re-searched at most")
    parser.add_argument("--z", type=float, default=1.5, help="the search's z (as the targets')")
    parser.add_argument("--seed", type=int, default=123, help="the second search's seed")
    parser.add_argument("--by-kind", action="store_true", help="split the counts by kind")
    args = parser.parse_args()
    targets, settings = read_targets(args.targets)
    left = np.flatnonzero(targets.choice != targets.prior)[: args.limit]
    print(
        f"{len(targets)} decisions, {int((targets.choice != targets.prior).sum())} overrides "
        f"by the search at {settings['worlds']} worlds; {len(left)} searched again"
    )
    for worlds in (int(w) for w in args.worlds.split(",")):
        search = VintageSearch(SearchSettings(worlds=worlds, z=args.z), seed=args.seed)
        again = np.array([search.evaluate(targets.obs[i], targets.mask[i]).choice for i in left])
        same = int((again == targets.choice[left]).sum())
        back = int((again == targets.prior[left]).sum())
        print(
            f"{worlds} worlds: same override {same}, back to the prior {back}, "
            f"another action {len(left) - same - back}"
        )
        if args.by_kind:
            kinds = np.array([kind(int(targets.prior[i]), int(targets.choice[i])) for i in left])
            repeated = again == targets.choice[left]
            for k in sorted(set(kinds), key=lambda k: -(kinds == k).sum()):
                rows = kinds == k
                print(f"  {k}: {int(rows.sum())} overrides, {int(repeated[rows].sum())} repeated")


if __name__ == "__main__":
    main()
