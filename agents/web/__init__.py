"""Play Speed against the bots in a browser, or watch two bots play, and measure your reaction time.

``speed play`` and ``speed watch`` (``speed_cli``) start :func:`serve`: a
local server (Starlette + uvicorn, the ``[web]`` extra) on 127.0.0.1 whose
page (``static/``: one HTML, one JS, one CSS file, no build step) shows the
table as a player sees it. The modules:

- :mod:`agents.web.protocol`: the messages between page and server, and the
  checks every message from the page passes.
- :mod:`agents.web.session`: the game a page plays, stepped on a clock; your
  play lands after 1 ms, the bot's after its reaction profile.
- :mod:`agents.web.latency`: your reaction times and the profile fitted to them.
- :mod:`agents.web.replays`: the replay files, the folder kept bounded.
- :mod:`agents.web.server`: the app, the WebSocket loop and the server.

Only ``protocol``, ``latency``, ``replays`` and ``session`` import without the ``[web]``
extra.
"""

from __future__ import annotations

from agents.web.session import GameSession, TableConfig

__all__ = ["GameSession", "TableConfig"]
