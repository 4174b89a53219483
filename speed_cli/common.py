"""What several ``speed`` commands share: the usage error, the settings mixins of the shared flags
(rules, job runner, game ...) and :func:`add_command_flags`, which makes a command's flags from its
settings dataclass, a command whose flags are a recipe's (:func:`add_settings_command`), the
chunked run with its progress bar."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NoReturn

# The commands take the bar and its callback type from here.
Progress = Callable[[int, int], None]
"""``progress(done, total)`` (:data:`agents.runtime.progress.Progress`; named here so that importing
the CLI loads no kit layer)."""


@contextmanager
def chunk_progress(label: str) -> Iterator[Progress]:
    """:func:`agents.runtime.progress.chunk_progress`, imported when a run starts."""
    from agents.runtime.progress import chunk_progress as bar

    with bar(label) as progress:
        yield progress


class UsageError(Exception):
    """Bad user input: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """The ``speed`` command's argument parser: a flag is taken only as spelled in full.

    argparse by default reads an unambiguous prefix as the flag (``--timestep`` as
    ``--timesteps``), so a typo could silently set a different flag; ``allow_abbrev=False``
    refuses it by name instead. Subcommand parsers are made of the same class
    (``add_subparsers`` builds them with ``type(self)``), so every level refuses abbreviations.
    A refused command line is one line, not the usage text (:meth:`error`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Refuse the command line in one line naming what was wrong (exit code 2), as every
        other user error of ``speed``; ``--help`` shows the usage."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# Every numeric flag of ``speed`` is parsed by a ``type=`` from train.common.numbers (count, real,
# count_list): a value that cannot be meant is refused there, naming the flag, with exit code 2.
# The factories here import it when a flag is parsed, so that importing speed_cli loads no kit
# layer; the type checker reads the module's own signatures instead of a copy of them.
def _deferred(name: str) -> Callable[..., Callable[[str], Any]]:
    """The factory ``train.common.numbers.<name>``; its parsers import it when a flag is parsed."""

    def factory(*args: Any, **kwargs: Any) -> Callable[[str], Any]:
        def parse(text: str) -> Any:
            from train.common import numbers

            return getattr(numbers, name)(*args, **kwargs)(text)

        parse.__name__ = name  # argparse names the type in its messages
        return parse

    factory.__name__ = name
    factory.__doc__ = f":func:`train.common.numbers.{name}`, imported when the flag is parsed."
    return factory


if TYPE_CHECKING:
    from train.common.numbers import count, count_list, real
else:
    count, count_list, real = map(_deferred, ("count", "count_list", "real"))


DEAL_SEED = count(0, 2**32 - 1)
"""``--seed`` of a tournament or sweep: deal ``d`` is seeded ``(seed << 32) + d``, a 64-bit
seed."""
ENV_SEED = count(0, 2**63 - 1)
"""``--seed`` of one game or a table: the env's seed (a 64-bit generator's), and bots' from it."""


# ---------------------------------------------------------------------- flags from settings
# A command's flags are the fields of its settings dataclass (agents/runtime/flags.py). The
# flags several commands share are the mixins below: a command's settings extend the ones it
# takes, and re-declare a field (with a docstring, or only a default) where it differs. A mixin
# with a ``GROUP`` shows its flags in a section of that title; ``flag_extra`` gives what is known
# only once the kit is loaded (the registered games), so that importing the CLI loads no kit
# layer. Every class is keyword-only, so a positional field (no default) may follow them.


@dataclass(kw_only=True)
class RuleFlags:
    """The rules a game is played by: a preset or file, overrides, the tick."""

    GROUP: ClassVar[str] = "rules (RuleFlags)"
    rules: str = "us"
    """preset (us, pagat, japanese) or a .toml file"""
    option: list[str] = field(default_factory=list, metadata={"metavar": "KEY=VALUE"})
    """override one rule"""
    tick_ms: int = field(default=50, metadata={"type": count(1)})
    """ms of game time per tick"""


@dataclass(kw_only=True)
class BackendFlags:
    """Where a chunked run's chunks run: local processes or a Ray cluster."""

    GROUP: ClassVar[str] = "job runner (BackendFlags)"
    workers: int = field(default=1, metadata={"type": count(1)})
    """local processes (--backend local), or CPUs of the Ray cluster started for the run"""
    backend: Literal["local", "ray"] = "local"
    """where the chunks run: local processes, or tasks on a Ray cluster (the [ray] extra); the
    result files are the same"""
    ray_address: str | None = field(default=None, metadata={"metavar": "ADDRESS"})
    """the Ray cluster to join (HOST:PORT or auto); default: RAY_ADDRESS, else a cluster on
    127.0.0.1 started for the run and stopped after it"""
    max_retries: int = field(default=3, metadata={"type": count(0)})
    """ray: runs of a chunk whose worker or node died, before giving up"""


@dataclass(kw_only=True)
class OverwriteFlag:
    """``--overwrite``: a run already in ``--out`` is moved aside, never replaced in place."""

    overwrite: bool = False
    """--out holds another run: move it aside (to OUT.replaced-TIME, named) and start afresh;
    without it such a folder is refused (agents/runtime/run_identity.py)"""


@dataclass(kw_only=True)
class ActTimeoutFlag:
    """``--act-timeout SECONDS``: an agent taking longer over one decision fails, named."""

    act_timeout: float | None = field(
        default=None, metadata={"type": real(above=0.0, below=1e9), "metavar": "SECONDS"}
    )
    """fail an agent (naming it) that takes longer than this over one decision; it is called on
    a helper thread and abandoned at the deadline (default: no limit)"""


@dataclass(kw_only=True)
class GameFlag:
    """``--game``: one of the registered games (:mod:`agents.games.registry`), the first by
    default."""

    game: str | None = None
    """which game (the registered games are listed when the parser is built)"""

    @staticmethod
    def flag_extra() -> dict[str, dict[str, Any]]:
        """The registered games as the choices, the first the default, each one's ``about``."""
        from agents.games.registry import DEFAULT, GAMES

        about = " or ".join(f"{name} ({game.about})" for name, game in GAMES.items())
        # No metavar: argparse shows the choices, as it does for a Literal field.
        return {
            "game": {"choices": tuple(GAMES), "default": DEFAULT, "help": about, "metavar": None}
        }


@dataclass(kw_only=True)
class PlayersFlag:
    """``--players``: seats at each table; the help names each game that has a choice."""

    players: int | None = field(default=None, metadata={"type": count(2, 10)})
    """players at each table (each game's range is named when the parser is built)"""

    @staticmethod
    def flag_extra() -> dict[str, dict[str, Any]]:
        """The help: each game with a choice of seats, its range and default."""
        from agents.games.registry import GAMES

        text = "; ".join(
            f"{name}: players at each table, {g.seats[0]}-{g.seats[-1]} (default {g.default_seats})"
            for name, g in GAMES.items()
            if len(g.seats) > 1
        )
        return {"players": {"help": text}}


def add_command_flags(p: argparse.ArgumentParser, settings: type) -> None:
    """One flag for each field of the command's settings dataclass ``settings``
    (:func:`agents.runtime.flags.add_flags`).

    Its own fields and the ungrouped mixins' come first, each mixin with a ``GROUP`` then in a
    section of its own (as ``speed train``'s); the help is the field's docstring as written (a
    default worth saying is said there), and a ``bool`` is a switch, ``--flag`` alone.
    """
    from agents.runtime.flags import add_flags

    bases = [k for k in reversed(settings.__mro__) if k is not object]
    groups = {k: vars(k)["GROUP"] for k in bases if "GROUP" in vars(k)}
    extra: dict[str, dict[str, Any]] = {}
    for k in bases:  # bases first: a subclass's flag_extra refines its base's
        if "flag_extra" in vars(k):
            for name, kwargs in k.flag_extra().items():  # type: ignore[attr-defined]
                extra[name] = {**extra.get(name, {}), **kwargs}
    add_flags(p, settings, groups=groups, extra=extra, show_defaults=False, negatable=False)


def add_settings_command(
    sub: Any,
    name: str,
    settings: type,
    run: Callable[[argparse.Namespace], int],
    *,
    summary: str,
    description: str,
) -> argparse.ArgumentParser:
    """Add command ``name`` (``summary`` in the command list) to the subcommands ``sub``, run by
    ``run``, with one flag per field of the dataclass ``settings`` (its docstring as the help)."""
    from train.common.settings import add_run_flags

    p = sub.add_parser(name, help=summary, description=description)
    add_run_flags(p, settings)
    p.set_defaults(func=run)
    return p


def jittered_preset(text: str) -> str:
    """``type=`` of a flag that takes a jittered reaction preset's name (``--jitter``)."""
    from speed_env.reaction import PRESETS

    names = [name for name, profile in PRESETS.items() if not profile.is_fixed]
    name = text.strip().lower()
    if name not in names:
        raise argparse.ArgumentTypeError(
            f"must be a jittered reaction preset ({', '.join(names)}), got {text!r}"
        )
    return name


def reactions(most: int) -> Callable[[str], str]:
    """``type=`` of a ``--reaction`` flag: one reaction profile (ms or a preset name), or up to
    ``most`` separated by commas (one a seat), each checked; the text is kept as given."""

    def parse(text: str) -> str:
        from speed_env.reaction import make_profile

        parts = [part.strip() for part in text.split(",")]
        if len(parts) > most:
            raise argparse.ArgumentTypeError(
                f"takes {'one profile' if most == 1 else f'at most {most} profiles'}, got {text!r}"
            )
        for part in parts:
            if part.startswith("profile:") and part != "profile:":
                continue  # a profile file is read when the run builds its seats, like a model
            try:
                make_profile(part)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parse.__name__ = "reactions"
    return parse


def note_games(requested: int, used: int, unit: str, why: str) -> None:
    """Say in one line (stderr) when ``--games`` cannot be played as asked: ``used`` games per
    ``unit`` are played instead, because ``why``. The result files record both numbers."""
    if used != requested:
        print(f"--games {requested}: playing {used} games per {unit} ({why})", file=sys.stderr)


def need_ray(what: str) -> None:
    """Refuse ``what`` (a flag or a command) when the [ray] extra is not installed."""
    if importlib.util.find_spec("ray") is None:
        raise UsageError(
            f"{what} needs the [ray] extra (pip install 'speed-rl[ray]', "
            "or `make setup-ray`, which makes .venv-ray)"
        )


def backend(args: argparse.Namespace) -> Any:
    """The job backend (agents/runtime/jobs.py) named by ``--backend`` / ``--ray-address`` /
    ``--max-retries``."""
    from agents.runtime.jobs import Backend

    if args.backend == "local" and args.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if args.backend == "ray":
        need_ray("--backend ray")
    return Backend(args.backend, address=args.ray_address, max_retries=args.max_retries)


def run_chunks(
    label: str, run: Callable[[Progress], tuple[list[Any], bool]]
) -> tuple[list[Any], bool, float] | None:
    """``run(progress)`` under a progress bar: (results, complete, wall seconds), or None (said
    on stderr) when it was interrupted before any chunk finished, so nothing is to be written."""
    t0 = time.perf_counter()
    with chunk_progress(label) as progress:
        results, complete = run(progress)
    if not results:
        print("interrupted before any games finished; nothing written", file=sys.stderr)
        return None
    return results, complete, time.perf_counter() - t0


def finish(complete: bool, line: str) -> int:
    """Print the closing ``line`` of a chunked run (after a note if it was interrupted); the exit
    code: 0, or 130 for an interrupted run whose finished chunks were written."""
    if not complete:
        print("interrupted: results cover the chunks that finished", file=sys.stderr)
    print(line)
    return 0 if complete else 130


@contextmanager
def open_run(
    args: argparse.Namespace,
    command: str,
    settings_by_flag: dict[str, Any],
    agents: Iterable[str],
    rules: Any,
    *,
    results: tuple[str, ...],
    files: dict[str, str | None] | None = None,
) -> Iterator[Any]:
    """Open ``--out`` for a run of ``command``, locked: the :class:`RunOutput` to write into.

    The run's identity (:class:`agents.runtime.run_identity.RunIdentity`) is its settings by flag
    and its inputs: every file building each of ``agents`` (built under ``rules``) reads, and
    each of ``files`` (a flag and the file it names; ``None``: not given), with their SHA-256.
    A folder already holding this run, finished, yields ``None`` after saying so in one line (the
    caller has nothing to do); a folder holding another run is refused unless ``--overwrite``
    (``results`` names the files an earlier kit's run left without a ``run.json``).
    """
    from functools import partial

    from agents import make
    from agents.evaluate.agent_files import spec_files
    from agents.runtime import run_identity

    inputs: dict[str, Any] = {
        spec: spec_files(spec, partial(make, spec, rules, seed=0)) for spec in dict.fromkeys(agents)
    }
    for flag, path in (files or {}).items():
        if path is not None:
            inputs[flag] = run_identity.file_digest(path, flag)
    identity = run_identity.RunIdentity(command, settings_by_flag, inputs)
    with run_identity.RunOutput(
        args.out, identity, results=results, overwrite=args.overwrite
    ) as run_folder:
        if run_folder.done is not None:
            print(run_folder.done)
            yield None
        else:
            yield run_folder
