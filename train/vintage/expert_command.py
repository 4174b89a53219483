"""``speed train-expert``'s texts: the one game expert iteration is built for, and its help."""

from __future__ import annotations

GAME = "vintage"
"""The one game expert iteration is built for (``speed train-expert --game``'s one choice)."""
SUMMARY = "expert iteration: vintage-search targets distilled into a network, in rounds"
"""``speed train-expert``'s line in ``speed --help``."""
DESCRIPTION = (
    "Expert iteration for Vintage Speed (train/vintage_expert.py): each round "
    "plays games of search targets (chunked jobs: --workers, --backend local|ray, the same "
    "OUT/round_R/targets.safetensors for one --seed), fits the network to them and measures "
    "it against --eval-opponents. Writes OUT/model.json + model.safetensors (the best round; "
    "play it with vintage-ppo:OUT/model.json) and OUT/summary.json."
)
"""``speed train-expert --help``'s description."""
GAME_HELP = "the game (expert iteration is built for Vintage Speed only)"
"""``speed train-expert --game``'s help."""
