"""Direct entry of the load-test harness (docs/load-testing.md#invocation).

    python -m platform_studio.benchmarks.load_test --config load.yaml [options]

The harness is the Node program behind ``m benchmark``; this module only replaces the Python process
with ``m benchmark`` itself (``bin/m.js``), so options, output and exit codes are exactly its own, and so is
the choice between the built harness and the TypeScript sources. ``NODE`` names the Node binary (default:
``node`` on PATH).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
M = ROOT / "bin" / "m.js"


def command(argv: list[str]) -> list[str]:
    """The Node command line that runs the harness with ``argv``."""
    node = os.environ.get("NODE") or shutil.which("node")
    if not node:
        raise SystemExit("load_test: Node.js (20.19 or newer) is required; set NODE or put node on PATH")
    return [node, str(M), "benchmark", *argv]


def main(argv: list[str] | None = None) -> None:
    """Replaces this process with the harness (same arguments, same exit code)."""
    cmd = command(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
