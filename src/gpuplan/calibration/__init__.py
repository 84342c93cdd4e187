"""calibration: the offline fit of the estimator's few parameters on published measurements.

This room runs when a maintainer refits (``benchmarks/calibrate.py``), never when a user estimates.
It reads published rows, maps each to the workload that reproduces it, predicts each with the
run-time estimator (``gpuplan.perf``), fits, judges the fit held out and hands back a
:class:`~gpuplan.perf.calibration.Calibration`, which the benchmark writes to
``perf/calibration.json``. The run-time path reads only that file: ``perf`` never imports this
package (``lint-imports`` enforces it).

- :mod:`~gpuplan.calibration.published` — the published rows of ``data/*.csv``, typed and checked.
- :mod:`~gpuplan.calibration.case` — :class:`CalibrationCase`: one published figure and the
  workload that reproduces it.
- :mod:`~gpuplan.calibration.cases` — :func:`load_cases`: every training case (the first data
  files, NVIDIA DeepLearningExamples and torchtune, are mapped there;
  :mod:`~gpuplan.calibration.publisher_cases` maps ``calibration_v2.csv`` publisher by publisher,
  with :mod:`~gpuplan.calibration.flagperf_cases` and :mod:`~gpuplan.calibration.mlperf_cases`);
  a case's figure from the run-time estimator (:func:`predict`) and each row's residual
  (:func:`with_band`).
- :mod:`~gpuplan.calibration.recorded_cases` — steps this project measured on a real GPU with
  ``gpuplan measure`` (``data/recorded_steps.json``), one publisher group of their own.
- :mod:`~gpuplan.calibration.crossval` — the robust least-squares fit, its held-out errors and the
  split-conformal band.
- :mod:`~gpuplan.calibration.inference_cases` — decode and prefill rows, compared with the
  inference model, never fitted.
- :mod:`~gpuplan.calibration.gemm_fit` — the GEMM shape parameters of ``perf/gemm.py`` fitted on
  measured matmuls (``data/gemm_shapes.csv``), which ``benchmarks/calibrate.py --gemm-fit`` holds.
"""
