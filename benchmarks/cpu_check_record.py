"""The int8 self-check's own measurement on this CPU, for each graph `auto` may use, into a file.

`python -m benchmarks.cpu_check_record --out FILE.json [--variants int8-smooth int8-smooth-u8]
[--repeats 3]`

Runs rag/embed/cpu_check.py's `measure` afresh (not its cache), `--repeats` times per graph, and
applies its rule (`decide`) to each measurement, so the file says what the check decides here and
how stable that is on a shared machine. Run it on a CPU without VNNI to learn what no emulation
can say: whether `int8-smooth-u8` is fast enough there (the rule wants ≥ MIN_SPEEDUP x fp32).
Records the CPU, onnxruntime and the load average (the speed ratio moves with the load).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rag.embed.cpu_check import FLOORS, MIN_SPEEDUP, ROUNDS, cpu_identity, decide, measure
from rag.embed.variant import AUTO_CHAIN


def record(variants: list[str], repeats: int) -> dict[str, Any]:
    import onnxruntime

    cpu = cpu_identity()
    rows = []
    for variant in variants:
        for repeat in range(repeats):
            load = os.getloadavg()
            probe = measure(variant)  # type: ignore[arg-type]
            verdict = decide(variant, probe, cpu)
            rows.append({"variant": variant, "repeat": repeat, **asdict(probe),
                         "speedup": round(probe.speedup, 3), "accepted": verdict.accepted,
                         "reason": verdict.reason,
                         "load_average_before": [round(x, 2) for x in load]})
            print(json.dumps(rows[-1]), file=sys.stderr)
    return {
        "command": " ".join(["python -m benchmarks.cpu_check_record", *sys.argv[1:]]),
        "cpu_model": cpu.model, "cpu_int8_flags": list(cpu.flags), "vnni": cpu.has_vnni,
        "onnxruntime": onnxruntime.__version__, "floors": FLOORS, "min_speedup": MIN_SPEEDUP,
        "rounds_per_measurement": ROUNDS, "cpu_count": os.cpu_count(),
        "note": "each row is one run of the self-check's measurement (12 probe texts, best of "
                "ROUNDS interleaved timings); the machine may be shared: see the load averages",
        "measurements": rows, "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--variants", nargs="+", default=list(AUTO_CHAIN), choices=sorted(FLOORS))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = record(args.variants, args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
