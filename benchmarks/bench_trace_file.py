"""Memory of reading a load trace file (``simulate --trace``): a good file, and the same file whose
last line is bad (refused after Arrow's fast parse fails and the file is read again line by line to
name that line).

    .venv/bin/python benchmarks/bench_trace_file.py [ROWS]      # default 2,000,000

Each read runs in its own process, so that its peak RSS (``resource.getrusage``) is its own; the
report gives bytes per row above a process that only imports the reader, and the bad file's peak as
a ratio of the good one's (the reference, same run). The line-by-line read keeps its columns in
typed arrays (8 bytes a value): in Python lists a row took about 76 bytes of objects more.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

READ = """
import resource, sys
from gpuplan.errors import InputError
from gpuplan.simulate.trace import read_trace_csv
if sys.argv[1] != "-":
    try:
        read_trace_csv(sys.argv[1])
    except InputError:
        pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(path: str) -> int:
    out = subprocess.run([sys.executable, "-c", READ, path], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    with tempfile.TemporaryDirectory() as d:
        good, bad = Path(d) / "good.csv", Path(d) / "bad.csv"
        with good.open("w") as out:
            out.write("timestamp,prompt_tokens,output_tokens\n")
            out.writelines(f"{i * 0.25:.3f},512,128\n" for i in range(rows))
        bad.write_bytes(good.read_bytes() + b"oops,1,1\n")
        base, g, b = _peak_kib("-"), _peak_kib(str(good)), _peak_kib(str(bad))
    result = {
        "rows": rows,
        "import_only_peak_mib": round(base / 1024, 1),
        "good_file_peak_mib": round(g / 1024, 1),
        "bad_last_line_peak_mib": round(b / 1024, 1),
        "good_bytes_per_row": round((g - base) * 1024 / rows, 1),
        "bad_bytes_per_row": round((b - base) * 1024 / rows, 1),
        "bad_over_good": round((b - base) / max(g - base, 1), 2),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
