"""Play Speed against bots in a browser, or watch two to four bots, and measure your reaction time.

``speed play`` and ``speed watch`` (``speed_cli``) start :func:`speed_table.app.serve`: a
local server (Starlette + uvicorn, the ``[web]`` extra) on 127.0.0.1 whose
page (``static/``: one HTML, one JS, one CSS file, no build step) shows the
table as a player sees it. The modules:

- :mod:`~speed_table.protocol`: the messages between page and server, and the
  checks every message from the page passes.
- :mod:`~speed_table.session`: the game a page plays, stepped on a clock; your
  play lands after 1 ms, the bot's after its reaction profile and its thinking
  (``measured`` by default at ``speed play``/``speed watch``: docs/table.md).
- :mod:`~speed_table.party_view`: a table of three or four (you and two or three bots): its
  seats checked.
- :mod:`~speed_table.thinking`: a bot waits its thinking before its card flies: each decision
  timed (``measured``) or a constant, and what each play was charged.
- :mod:`~speed_table.table_bots`: a table's bots, and the files each was built from
  (a play record's provenance).
- :mod:`~speed_table.clock`: the session clock, and when each of your plays
  became legal (your reaction times; :mod:`speed_env.latency_fit` fits a
  profile to them).
- :mod:`~speed_table.replays`: the replay files, the folder kept bounded.
- :mod:`~speed_table.app`: the app, the WebSocket loop and the server.
- :mod:`~speed_table.headless`: a simulated person plays the page in headless Chromium
  (``python -m speed_table.headless``).

Only ``protocol``, ``clock``, ``replays``, ``thinking``, ``party_view`` and ``session`` import
without the ``[web]`` extra. The table sits beside the library (it imports ``speed_env`` and
``agents``; nothing in them imports it).
"""

from __future__ import annotations

from speed_table.session import GameSession, TableConfig

__all__ = ["GameSession", "TableConfig"]
