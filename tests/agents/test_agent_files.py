"""Which files building an agent reads (``agents.evaluate.agent_files``): an agent's own data is
recorded wherever it lies; the kernel's, the system's and Python's files never are."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agents.evaluate import agent_files

MEMINFO = Path("/proc/meminfo")


@pytest.mark.skipif(not MEMINFO.is_file(), reason="needs Linux's /proc")
def test_a_build_records_its_data_file_but_not_kernel_files_or_package_metadata(
    tmp_path: Path,
) -> None:
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"agent weights")
    metadata = tmp_path / "some_lib-1.0.dist-info" / "entry_points.txt"
    metadata.parent.mkdir()
    metadata.write_text("[console_scripts]\n")

    def build() -> str:
        # /proc/meminfo's bytes change every read: building a real-time game reads it.
        for path in (weights, MEMINFO, Path("/proc/self/stat"), metadata):
            path.read_bytes()
        return "agent"

    agent, files = agent_files.files_read(build)
    assert agent == "agent"
    assert files == {str(weights): hashlib.sha256(b"agent weights").hexdigest()}


def test_pseudo_filesystems_are_found_wherever_they_are_mounted() -> None:
    table = """\
/dev/sda1 / ext4 rw,relatime 0 0
proc /proc proc rw,nosuid 0 0
sysfs /mnt/kernel\\040view sysfs ro 0 0
tmpfs /scratch tmpfs rw 0 0
cgroup2 /sys/fs/cgroup cgroup2 rw 0 0
"""
    assert agent_files.pseudo_mounts(table) == (
        Path("/proc"),
        Path("/mnt/kernel view"),
        Path("/sys/fs/cgroup"),
    )


def test_system_and_python_files_are_not_an_agents_but_the_working_tree_and_models_are(
    tmp_path: Path,
) -> None:
    import json

    assert agent_files.system_file(Path("/etc/hostname"))
    assert agent_files.system_file(Path("/sys/kernel/mm/transparent_hugepage/enabled"))
    assert agent_files.system_file(Path(json.__file__).with_name("tool.txt"))  # the stdlib
    assert not agent_files.system_file(tmp_path / "weights.bin")
    assert not agent_files.system_file(agent_files.MODELS / "trained.safetensors")


def test_openspiel_random_records_no_file_so_its_run_identity_is_stable() -> None:
    """Building ``openspiel:random`` reads ``/proc/meminfo`` (the game's memory check); it was
    recorded as an agent file whose hash changed every run."""
    pytest.importorskip("pyspiel")
    import agents

    def build() -> object:
        return agents.make("openspiel:random", "us", seed=0)

    assert agent_files.spec_files("openspiel:random", build) == {}
