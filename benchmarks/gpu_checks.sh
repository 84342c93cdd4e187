#!/bin/bash
# The checks that need a real GPU, in one run, each bounded in time, all output under one folder:
#
#   OUT=results/<gpu>-<date> BUDGET=420 bash benchmarks/gpu_checks.sh
#
# from the repository root, with gpuplan importable (installed, or PYTHONPATH=src) and a CUDA build
# of PyTorch. Writes, as it goes (a run cut short keeps what finished):
#   log.txt                 what ran, each part's exit status and when it ended
#   doctor.json             gpuplan doctor --json (the driver through NVML)
#   bench.json              gpuplan bench --json (matmul, memory and PCIe bandwidth, a training step)
#   measure-cli.json        gpuplan measure examples/bert-large-squad.yaml --out (the command's own path)
#   recordings.jsonl        benchmarks/device_recordings.py until BUDGET seconds have passed
#   gemm.csv                its BF16 matmuls: GPT-2's output layer misaligned and padded, then a shape grid
#   pytest-gpu.txt          the tests marked gpu
# Eight files at most (six here and the log), so that a machine that returns only a few can carry
# them. Then, on any machine: python benchmarks/recorded_check.py OUT/recordings.jsonl
set -u
OUT=${OUT:?set OUT to the folder the results go to}
BUDGET=${BUDGET:-420}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export GPUPLAN_DB=${GPUPLAN_DB:-${TMPDIR:-/tmp}/gpuplan-gpu-checks.sqlite} GPUPLAN_LANG=${GPUPLAN_LANG:-en}
PY=${PYTHON:-python3}
L=$OUT/log.txt
T0=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - T0))); }
done_() { echo "$1 rc=$2 at $(($(date +%s) - T0)) s" >>"$L"; }
{
    date -u
    nvidia-smi
    $PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
} >"$L" 2>&1
timeout 60 $PY -m gpuplan doctor --json >"$OUT/doctor.json" 2>>"$L"
done_ doctor $?
timeout 120 $PY -m gpuplan bench --json >"$OUT/bench.json" 2>>"$L"
done_ bench $?
timeout 120 $PY -m gpuplan measure examples/bert-large-squad.yaml --out "$OUT/measure-cli.json" --no-store \
    >>"$L" 2>&1
done_ measure-cli $?
timeout 90 $PY -m pytest -q -p no:cacheprovider -m gpu tests/machine tests/cli/test_measure_cli.py \
    >"$OUT/pytest-gpu.txt" 2>&1
done_ pytest-gpu $?
# The recordings take what is left, less a minute for their last workload to finish.
budget=$(($(left) - 60))
if [ "$budget" -gt 60 ]; then
    timeout $((budget + 60)) $PY benchmarks/device_recordings.py --out "$OUT" --deadline-s "$budget" >>"$L" 2>&1
    done_ recordings $?
else
    echo "no time left for the recordings" >>"$L"
fi
