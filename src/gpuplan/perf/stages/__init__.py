"""The stages of one estimate, in the order :func:`gpuplan.perf.run_estimate` runs them.

Each stage is one module and owns what every parallelism case (data, tensor, pipeline, sharding)
does to its part of the step:

1. :mod:`~gpuplan.perf.stages.layout` — the request checked and laid out: the links, the
   data-parallel degree and group link, one GPU's tensor × pipeline share of the traced step
   (:class:`Layout`, the value every later stage reads);
2. :mod:`~gpuplan.perf.stages.compute` — that share on the roofline, the host's issue time, the
   optimizer shard, the 1F1B schedule, torch.compile (:class:`ComputeTime`);
3. :mod:`~gpuplan.perf.stages.communication` — the data-parallel collectives and their overlap,
   the tensor-parallel all-reduces, the stage-to-stage sends, the pipeline bubble
   (:class:`Communication`);
4. :mod:`~gpuplan.perf.stages.memory` — what one GPU holds: ZeRO/FSDP sharding, DDP's buckets,
   the terms nvidia-smi shows (:class:`GpuMemory`);
5. :mod:`~gpuplan.perf.stages.spread` — the step's point, its 80 % range, the input-pipeline
   floor (:class:`StepSpread`).

``perf/estimate.py`` composes the five results into an :class:`~gpuplan.perf.estimate.Estimate`.
"""
