"""The local web server of ``speed play`` and ``speed watch``: a Starlette app over uvicorn.

``GET /`` serves the page (``static/index.html``, ``app.js``, ``style.css``,
no build step); ``/ws`` is the WebSocket a page plays through, one
:class:`speed_table.session.GameSession` per connection. One asyncio task per
connection waits for whichever comes first, a message from the page or the
next tick of the clock, so the game runs on wall time whether or not the page
says anything, and every message is sent in order from that one task.

The server listens on 127.0.0.1 only. It accepts only its own host names
(``127.0.0.1``, ``localhost``: a DNS-rebinding page cannot reach it) and only
WebSockets whose ``Origin`` is the page's own, so another web site open in
the same browser cannot play (or read) your table. A page that closes,
crashes or sends garbage ends its own session only; the server keeps
serving.

All games run in one process, so each one slows the others: the server
holds at most ``max_games`` sessions at once (``--max-games``, default
:data:`DEFAULT_MAX_GAMES`, measured by ``benchmarks/table_load.py``: at the
cap one game's state rate stays within 20% of an idle server's on 2 cores).
A page that connects past the cap gets a ``full`` message and the socket is
closed with code 1013 (try again later); the slot of a page that leaves is
free at once.

Bots are other people's code: a page's ticks (where its bots act) and the
building of its bots run on a helper thread, off the event loop, so a slow bot
delays only its own page, never another page's messages. A bot that fails
(:class:`agents.runtime.failures.AgentFailure`) ends its own game: the page gets a
``fatal`` message naming the bot, the call and the game, and the server keeps
serving every other page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
import webbrowser
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from agents.runtime.failures import AgentFailure
from speed_table import protocol
from speed_table.clock import now
from speed_table.session import GameSession, TableConfig
from speed_table.table_bots import build_bots

STATIC = Path(__file__).with_name("static")
LOCAL_HOSTS = ("127.0.0.1", "localhost")
log = logging.getLogger("speed.web")

DEFAULT_MAX_GAMES = 16
"""Most games (page visits) one server runs at once; see ``benchmarks/table_load.py``."""

FULL_CLOSE_CODE = 1013
"""WebSocket close code sent after ``full``: try again later."""


def full_message(max_games: int) -> dict[str, Any]:
    """The ``full`` reply to a page that connects while ``max_games`` games are running."""
    return {
        "type": "full",
        "max_games": max_games,
        "message": f"the table is full: {max_games} games are running, the most this server "
        "takes (--max-games); try again when one ends",
    }


def _origin_ok(websocket: WebSocket) -> bool:
    """A browser always sends ``Origin`` with a WebSocket: it must be this server's own page."""
    origin = websocket.headers.get("origin")
    if origin is None:  # not a browser (a test client, a script on this machine)
        return True
    host = websocket.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


async def _send_all(websocket: WebSocket, messages: Sequence[dict[str, Any]]) -> None:
    # ASCII JSON: a string from the page echoed in a reply (even a lone surrogate, which UTF-8
    # cannot encode) always goes out, as an escape the page's JSON.parse reads back.
    for message in messages:
        await websocket.send_text(json.dumps(message, separators=(",", ":")))


async def off_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)`` on a daemon thread of its own, and await it.

    The event loop, so every other page, goes on meanwhile. A daemon thread, not an
    executor's: a bot that never returns must not keep the server from exiting at Ctrl-C.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # the page went away meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def target() -> None:
        try:
            value, error = fn(*args), None
        except BaseException as exc:  # handed to the page's task
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed while the bot thought
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=target, name="table bot", daemon=True).start()
    return await future


def agent_failed_message(exc: AgentFailure) -> dict[str, Any]:
    """The ``fatal`` message of a game a bot ended by failing."""
    return {"type": "fatal", "title": "Game ended", "message": f"the game ended: {exc}"}


async def play_connection(websocket: WebSocket, session: GameSession) -> None:
    """Run one page's session until the page goes away: messages in, ticks, messages out."""
    hand_size = session.hand_size
    await _send_all(websocket, [session.welcome()])
    receive: asyncio.Task[Any] = asyncio.ensure_future(websocket.receive())
    try:
        while True:
            # An infinite next tick (no game running, or paused): wait for the page alone.
            wait = max(0.0, session.next_tick_at - now())
            done, _ = await asyncio.wait({receive}, timeout=None if wait == float("inf") else wait)
            if receive in done:
                event = receive.result()
                if event["type"] == "websocket.disconnect":
                    return
                receive = asyncio.ensure_future(websocket.receive())
                raw = event.get("text")
                if raw is None:
                    raw = event.get("bytes") or b""
                try:
                    message = protocol.parse(raw, hand_size=hand_size, piles=session.players)
                    replies = session.handle(message, now())
                except protocol.ProtocolError as exc:
                    replies = [exc.reply()]
                await _send_all(websocket, replies)
            if session.due(now()):
                try:
                    messages = await off_loop(session.tick, now())
                except AgentFailure as exc:
                    log.warning("%s", exc)
                    await _send_all(websocket, [agent_failed_message(exc)])
                    return
                await _send_all(websocket, messages)
    finally:
        receive.cancel()
        # The cancelled receive raises CancelledError, or the error of a socket already gone.
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await receive
        saved = session.close()
        if saved:
            log.info("page closed mid-game; kept its frames in %s", saved)


def create_app(
    cfg: TableConfig,
    *,
    allowed_hosts: Sequence[str] = LOCAL_HOSTS,
    session_factory: Callable[[TableConfig], GameSession] | None = None,
    max_games: int = DEFAULT_MAX_GAMES,
) -> Starlette:
    """The Starlette app of a table: the page, its static files and the ``/ws`` game socket.

    The socket runs at most ``max_games`` games at once; a page past them is told ``full``.
    """
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
        raise ValueError(f"max_games must be a whole number >= 1, got {max_games!r}")
    make_session = session_factory or GameSession
    running = 0  # sessions open now (one event loop: no lock needed between check and count)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def ws(websocket: WebSocket) -> None:
        nonlocal running
        if not _origin_ok(websocket):
            # 1008: policy violation, the close code for a refused origin.
            await websocket.close(code=1008, reason="cross-origin WebSocket refused")
            return
        await websocket.accept()
        if running >= max_games:
            log.warning("table full (%d games): a page was turned away", max_games)
            with contextlib.suppress(Exception):
                await websocket.send_json(full_message(max_games))
                await websocket.close(code=FULL_CLOSE_CODE, reason="table full")
            return
        running += 1
        try:
            await _run_session(websocket)
        finally:
            running -= 1

    async def _run_session(websocket: WebSocket) -> None:
        try:
            session = await off_loop(make_session, cfg)
        except AgentFailure as exc:  # a bot that fails to build: tell the page, keep serving
            log.warning("cannot start a table: %s", exc)
            with contextlib.suppress(Exception):
                await websocket.send_json(
                    {"type": "fatal", "message": f"cannot start the table: {exc}"}
                )
                await websocket.close(code=1011)
            return
        except Exception as exc:  # a bot that cannot be built: tell the page, keep serving
            log.exception("cannot start a table")
            with contextlib.suppress(Exception):
                await websocket.send_json(
                    {"type": "fatal", "message": f"cannot start the table: {exc}"}
                )
                await websocket.close(code=1011)
            return
        try:
            await play_connection(websocket, session)
        except Exception as exc:
            # The page went away while we were sending, or a bug: end this page only. By name:
            # Starlette and the WebSocket library each have their own disconnect error.
            if type(exc).__name__ not in ("WebSocketDisconnect", "ClientDisconnected"):
                log.exception("table session ended by an error")
        with contextlib.suppress(Exception):
            await websocket.close()

    routes = [
        Route("/", index),
        WebSocketRoute("/ws", ws),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]
    return Starlette(routes=routes, middleware=middleware)


def warm_up(cfg: TableConfig) -> None:
    """Build the bots and play a few ticks, so the compiled kernels load before the page opens."""
    session = GameSession(cfg, build_bots(cfg))
    session.handle(protocol.Start(), 0.0)
    t = session.start_at
    for _ in range(3):
        session.tick(t)
        t = session.next_tick_at


def listen(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening TCP socket on ``host`` (port 0: a free one); connections wait in its backlog."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A table restarted right after Ctrl-C must not wait out the old socket's TIME_WAIT.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(
    cfg: TableConfig,
    *,
    sock: socket.socket | None = None,
    port: int = 0,
    open_browser: bool = True,
    announce: Callable[[str], None] = print,
    max_games: int = DEFAULT_MAX_GAMES,
) -> None:
    """Serve a table on 127.0.0.1 until Ctrl-C.

    It announces the URL and opens the browser unless told not.

    - ``sock``: a socket from :func:`listen`; else one is opened on ``port``, 0 for a free one.
    - ``max_games``: the most games at once.
    """
    import uvicorn

    if sock is None:
        sock = listen("127.0.0.1", port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    config = uvicorn.Config(
        create_app(cfg, max_games=max_games),
        log_level="warning",
        ws="websockets-sansio",
        lifespan="off",
        # Above the protocol's own bound: an over-long message reaches protocol.parse, which
        # answers it with an error, rather than uvicorn closing the socket.
        ws_max_size=protocol.MAX_MESSAGE_BYTES * 4,
    )
    server = uvicorn.Server(config)
    announce(url)
    if open_browser:
        # webbrowser.open may wait on the browser it starts; the server must not.
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    server.run(sockets=[sock])


__all__ = [
    "DEFAULT_MAX_GAMES",
    "FULL_CLOSE_CODE",
    "agent_failed_message",
    "create_app",
    "full_message",
    "listen",
    "off_loop",
    "play_connection",
    "serve",
    "warm_up",
]
