"""A server started by LocalLLMServer does not outlive the process that started it (Linux)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from rag.paths import PROJECT_ROOT

STARTER = """
import subprocess, sys, time
from rag.llm.local_server import _die_with_parent
child = subprocess.Popen(["sleep", "300"], preexec_fn=_die_with_parent)
print(child.pid, flush=True)
time.sleep(300)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead, only not yet reaped
        return stat.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux only")
def test_the_server_process_dies_when_its_starter_is_killed() -> None:
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True,
                               cwd=PROJECT_ROOT, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert starter.stdout is not None
    child = int(starter.stdout.readline())
    assert alive(child)
    starter.send_signal(signal.SIGKILL)  # no cleanup code runs in the starter
    starter.wait()
    deadline = time.monotonic() + 30
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)
