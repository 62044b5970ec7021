"""Direct entry of the load-test harness (docs/load-testing.md#invocation).

    python -m platform_studio.benchmarks.load_test --config load.yaml [options]

The harness is the Node program behind ``m benchmark``; this module only replaces the Python process
with it, so options, output and exit codes are exactly those of ``m benchmark`` (docs/load-testing.md).
It runs the built bundle ``dist/benchmarks/load-test.js`` when it is at least as new as the sources under
``src/`` and the lock file (``npm run build:harness``), and otherwise the TypeScript entry through tsx. ``NODE`` names the Node
binary (default: ``node`` on PATH).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "dist" / "benchmarks" / "load-test.js"
SOURCE_DIR = ROOT / "src" / "benchmarks"
SOURCE = SOURCE_DIR / "load-test.ts"
TSX_LOADER = ROOT / "node_modules" / "tsx" / "dist" / "loader.mjs"


def _built_is_fresh() -> bool:
    """The rule of ``m benchmark`` (bin/m.js): no file under ``src/`` nor the lock file is newer."""
    if not BUILT.is_file():
        return False
    built_at = BUILT.stat().st_mtime
    skipped = lambda part: part in ("node_modules", "static") or part.startswith(".")  # noqa: E731
    src = ROOT / "src"
    sources = [p for p in src.rglob("*") if p.is_file() and not any(map(skipped, p.relative_to(src).parts))]
    return all(p.stat().st_mtime <= built_at for p in [*sources, ROOT / "package-lock.json"] if p.exists())


def command(argv: list[str]) -> list[str]:
    """The Node command line that runs the harness with ``argv``."""
    node = os.environ.get("NODE") or shutil.which("node")
    if not node:
        raise SystemExit("load_test: Node.js (20.19 or newer) is required; set NODE or put node on PATH")
    if _built_is_fresh():
        return [node, str(BUILT), *argv]
    return [node, "--import", TSX_LOADER.as_uri(), str(SOURCE), *argv]


def main(argv: list[str] | None = None) -> None:
    """Replaces this process with the harness (same arguments, same exit code)."""
    cmd = command(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
