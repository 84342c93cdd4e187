"""Run ``gpuplan bench`` in-process at full size and print its figures, plus how long doctor takes.

    .venv/bin/python benchmarks/bench_machine.py            # full sizes on the default device
    .venv/bin/python benchmarks/bench_machine.py --quick --device cpu

Prints figures; asserts nothing (benchmarks are never timed unit tests) and stores nothing.
"""

from __future__ import annotations

import argparse
import os
import time

from gpuplan.machine import diagnose, efficiency, probe_machine, run_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--device", choices=("cpu", "cuda"), default=None)
    args = parser.parse_args()

    t0 = time.perf_counter()
    findings = diagnose(probe_machine(os.environ))
    print(f"doctor: {len(findings)} findings in {time.perf_counter() - t0:.2f} s")

    t0 = time.perf_counter()
    report = run_bench(device=args.device, quick=args.quick)
    elapsed = time.perf_counter() - t0
    print(f"bench on {report.device_name} ({report.device}, torch {report.torch_version}) in {elapsed:.1f} s")
    for r in report.results:
        eff = efficiency(r)
        sheet = f"  datasheet {r.datasheet_value:g} ({eff:.0%})" if eff is not None else ""
        print(f"  {r.metric:<22} {r.dtype or '':<9} {r.value:>12.4g} {r.unit}{sheet}")
    for s in report.skipped:
        dtype = f" {s.dtype}" if s.dtype else ""
        print(f"  skipped {s.metric}{dtype}: {s.reason}")


if __name__ == "__main__":
    main()
