"""The notebooks run headless from top to bottom (small settings; no trained model needed),
and with the command the docs give for them (``jupyter execute``, from the venv's PATH)."""

from __future__ import annotations

from pathlib import Path

import nbclient  # the dev extra installs nbformat, nbclient and ipykernel (the "python3" kernel)
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _execute(name: str) -> list[str]:
    """Run a notebook in a fresh kernel; return the text it printed (a failing cell raises)."""
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()
    return [
        out.get("text", "")
        for cell in book.cells
        if cell.cell_type == "code"
        for out in cell.outputs
    ]


def test_quickstart_runs():
    text = "".join(_execute("quickstart.ipynb"))
    assert "winner:" in text and "| rank | agent |" in text


@pytest.mark.slow
def test_reaction_delay_runs():
    text = "".join(_execute("reaction_delay.ipynb"))
    for agent in ("greedy", "chain"):
        assert f"{agent} (human-shaped) vs greedy@human: break-even" in text
    assert (
        "trained (human-shaped) vs greedy@human: break-even" in text
        or "NOTE: skipping 'trained'" in text
    )


def test_the_docs_command_runs_a_notebook(tmp_path):
    """docs/getting-started.md's notebook step in a fresh shell after the page's setup lines:
    the docs once gave no command, and ``jupyter nbconvert`` is not installed by the extras."""
    from test_journey import PAGE, read_steps, scratch_clone, walk

    steps = read_steps(PAGE.read_text(encoding="utf-8"))
    step = next(s for s in steps if s.name == "notebooks")
    assert step.body.split()[:2] == ["jupyter", "execute"]
    assert walk(steps, scratch_clone(tmp_path), only={"notebooks"}) == {}
