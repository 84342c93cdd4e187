"""Batch inference, the part every target that writes one shares: how the inputs are cut into
shards, and what its README says of the inputs, the outputs, the model and the cost.

A batch job (an inference workload without a ``serving:`` block) runs batch.py (the template
``batch_entry.py``) once per shard: each shard goes through its chunks of the inputs, writes each
chunk's outputs whole, and exits; run again, it skips the chunks already written. The input and
output formats are batch.py's (its docstring), said here in the user's language.

A batch job of a decoder LLM with Hub weights (:func:`gpuplan.deploy.engine.batch_engine_launch`)
runs vLLM instead: vllm_batch.py (the template ``vllm_batch_entry.py``) in vLLM's image starts vLLM's
server once a shard and sends it the shard's inputs, OpenAI Batch API requests, writing the answers
in the same chunks, with the same sharding and resuming.
"""

from __future__ import annotations

import shlex

from gpuplan.deploy.engine import EngineLaunch, checkpoint_note
from gpuplan.deploy.preset_model import written_preset
from gpuplan.deploy.spec import LaunchSpec, plan_money
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import sentences
from gpuplan.perf.engines import engine_defaults
from gpuplan.units import BATCH_CHUNK_BATCHES
from gpuplan.vocab import pricing_name

__all__ = [
    "CHUNK_BATCHES",
    "EXIT_NO_GPU",
    "VLLM_RUNNER",
    "chunk_requests",
    "cost_note",
    "engine_batch_note",
    "example_request",
    "in_flight_requests",
    "input_contract",
    "kept_chunks_note",
    "model_note",
    "no_gpu_note",
    "output_contract",
    "prepare_command",
    "sentences",
    "shard_count",
    "shard_gpus",
    "vllm_input_contract",
    "vllm_inputs",
    "vllm_output_contract",
]

#: The file that runs a vLLM batch job: one server a shard, a chunk written at a time (the template
#: ``vllm_batch_entry.py``).
VLLM_RUNNER = "vllm_batch.py"
#: Batches of the workload's batch size in one chunk of a vLLM batch job: batch.py's CHUNK_BATCHES,
#: the chunk the plan takes a reclaim to lose half of (one figure, :data:`gpuplan.units.BATCH_CHUNK_BATCHES`).
CHUNK_BATCHES = BATCH_CHUNK_BATCHES

#: The exit status of train.py, serve.py and batch.py where CUDA sees no GPU (EXIT_NO_GPU of the
#: train.py template, which the scripts run with): not 2, argparse's status for a bad argument and
#: batch.py's for bad inputs, so that a launcher tells the machine's fault from the input's.
EXIT_NO_GPU = 3


def shard_gpus(spec: LaunchSpec) -> int:
    """GPUs of one shard: the GPUs one copy of the model spans in the plan (its tensor x pipeline
    split, within a node), else one. batch.py runs data parallel: a copy of the model per shard."""
    return max(1, min(spec.gpus_per_node, spec.tensor_parallel * spec.pipeline_parallel))


def shard_count(spec: LaunchSpec) -> int:
    """The shards, all running at once: every GPU of the plan's instances in use."""
    return spec.nodes * (spec.gpus_per_node // shard_gpus(spec))


def input_contract(spec: LaunchSpec) -> str:
    """What the inputs are (README sentences; "inputs/" is the folder the target mounts): the
    model's input as numbers, and, for the user's own model, where decoding files goes
    (:func:`preprocess_note`)."""
    said = _(
        "One JSON Lines file, or a folder of them (read in name order), in `inputs/`: one sample a line, "
        "the model's input as a JSON array (token ids, a feature vector, [3][H][W] pixels), or an object "
        "{example} whose id is copied to its output."
    ).format(example='`{"id": …, "input": […]}`')
    return sentences(said, preprocess_note(spec))


def preprocess_note(spec: LaunchSpec) -> str:
    """Where decoding the dataset's files (audio, images) goes, and what JSON arrays of the
    model's input weigh against the dataset the plan priced: a number written as JSON text takes
    about 8 bytes ("-0.123456," is 10), so a 128 × 3000 float array (30 s of log-mel) is about
    3 MB a line, where the FLAC it came from is about 1 MB. The plan copies, stores and re-copies
    ``data.size_gb``; inputs that are many times larger take that many times longer."""
    said = _(
        "The inputs must be the model's input as numbers: decoding files (audio, images) and computing "
        "features is yours, before the job or in it."
    )
    if spec.model_entry_point:
        module = spec.model_entry_point.partition(":")[0]
        said = sentences(
            said,
            _(
                "In it: give `{module}` a function `preprocess(inputs)`, which batch.py calls on each "
                "batch's inputs as read (any JSON value: a file path in an object's `input`, say) and "
                "whose tensor, or dict of tensors passed as keyword arguments, the model runs on."
            ).format(module=module),
        )
    size = ""
    if spec.dataset_gb and spec.dataset_samples:
        size = _(
            "The plan copies and stores {gb:,.0f} GB (`data.size_gb`), {per:,.2f} MB a sample; as JSON text "
            "a number takes about 8 bytes (a 128 × 3000 float array is about 3 MB a line): where the JSON "
            "lines are N times larger than the dataset's files, its copy time, disk and restarts are N "
            "times the plan's."
        ).format(gb=spec.dataset_gb, per=spec.dataset_gb * 1000 / spec.dataset_samples)
    return sentences(said, size)


def output_contract() -> str:
    """What the outputs are (README sentences)."""
    return sentences(
        _(
            "The outputs are `outputs/chunk-00000-00000000.jsonl`, … (chunk-SHARD-N): a line per sample, "
            "{example} (with its id), the file its input line is in and the byte offset the line starts at; "
            "the chunks in name order hold the outputs in input order."
        ).format(example='`{"file": "a.jsonl", "offset": B, "output": …}`'),
        kept_chunks_note(),
    )


def kept_chunks_note() -> str:
    """Which chunks a run keeps (a README sentence): only those of its own inputs."""
    return _(
        "A chunk already in `outputs/` is kept only for the input lines it was made from (their "
        "fingerprint is in `outputs/_inputs/`): new inputs — the next run's, or a file with a line added "
        "or removed — need an empty `outputs/`, and a chunk of other inputs stops the shard (status 2) "
        "instead of being taken as done."
    )


def no_gpu_note(runner: str) -> str:
    """The README's sentence on what ``runner`` (train.py, serve.py, batch.py) does where CUDA sees no
    GPU: it refuses in one line (require_gpu() in the train.py template), as a GPU node whose
    container cannot see its GPUs would otherwise run at CPU speed, billed at the GPU's price;
    ``--device cpu`` is how a dry run asks for the CPU."""
    return _(
        "Where CUDA sees no GPU (a container not given the GPUs, a driver older than the image's CUDA), "
        "{runner} stops at once with one line saying what to check and exit status {status} (2 is for "
        "bad arguments or inputs), rather than run at CPU speed at the GPU's price; `--device cpu` runs "
        "it on the CPU on purpose (a dry run)."
    ).format(runner=runner, status=EXIT_NO_GPU)


def model_note(spec: LaunchSpec, checkpoints: str) -> str:
    """What batch.py runs, and where the user's own model goes; ``checkpoints``: the folder its
    weights are read from, as the target names it."""
    if spec.model_entry_point:
        text = _(
            "batch.py runs your model from `{entry}` (build_model() in train.py) on each batch of inputs "
            "as one tensor."
        ).format(entry=spec.model_entry_point)
    elif written_preset(spec):
        text = _(
            "batch.py runs {source} as train.py builds it from preset_model.py (the preset's own code, "
            "as gpuplan traced it), randomly initialised: put its weights as a checkpoint in "
            "{checkpoints} or load them in build_model()."
        ).format(source=spec.model_source, checkpoints=checkpoints)
    else:
        text = _(
            "batch.py runs the stand-in model from train.py, randomly initialised: the workload's model is "
            "{source}, which train.py cannot rebuild without gpuplan. Put yours in build_model(), its "
            "weights as a checkpoint in {checkpoints} or loaded there."
        ).format(source=spec.model_source, checkpoints=checkpoints)
    text = sentences(
        text,
        _(
            "Each output is what postprocess() in batch.py makes of the model's output: the arg-max of the "
            "logits as written; return the vectors there for embeddings."
        ),
        no_gpu_note("batch.py"),
    )
    if shard_gpus(spec) > 1:
        text = sentences(
            text,
            _(
                "The plan splits the model over {n} GPUs (tensor_parallel {tp}, pipeline_parallel {pp}): "
                "each shard has {n}, but batch.py runs the model on one of them; split it in build_model() "
                "(or run a framework that does) for the memory and the time the plan assumed."
            ).format(n=shard_gpus(spec), tp=spec.tensor_parallel, pp=spec.pipeline_parallel),
        )
    return text


def cost_note(spec: LaunchSpec) -> str:
    """What the plan says the run costs: its all-in cost on its instances, or that none priced it."""
    if spec.run_cost_usd is None:
        return _(
            "No plan priced this run: `gpuplan plan WORKLOAD` estimates its time and cost "
            "(deploy its plan file for the instances it chose)."
        )
    where = _("{nodes} x {instance} ({pricing})").format(
        nodes=spec.nodes,
        instance=spec.instance_type or spec.gpu or "GPU",
        pricing=pricing_name(spec.pricing),
    )
    cost = plan_money(spec, spec.run_cost_usd)
    if spec.cny_per_usd is not None:
        # in yuan as the plan showed it, at the plan's own rate, the dollars beside
        cost = _("{cny} ({usd} at the plan's 1 USD = {rate:g} CNY{as_of})").format(
            cny=cost,
            usd=f"${spec.run_cost_usd:,.2f}",
            rate=spec.cny_per_usd,
            as_of=f", {spec.cny_rate_as_of}" if spec.cny_rate_as_of else "",
        )
    if spec.job_time_h is None:
        return _("The plan prices this run at {cost} all-in, on {where}.").format(cost=cost, where=where)
    return _(
        "The plan prices this run at {cost} all-in: {hours:,.1f} h on {where}, with every shard running "
        "at once. A shard that waits for a GPU, or one run again, adds to it."
    ).format(cost=cost, hours=spec.job_time_h, where=where)


def chunk_requests(spec: LaunchSpec) -> int:
    """Requests in one chunk of a vLLM batch job: :data:`CHUNK_BATCHES` batches of the workload's
    batch size, as batch.py cuts its chunks."""
    return CHUNK_BATCHES * spec.batch_size


#: Requests a vLLM batch job keeps in flight, in batches of the workload's batch size: two, as vLLM's
#: own batch runner keeps twice its largest batch (``max_num_seqs``) in flight (vllm-project/vllm,
#: vllm/entrypoints/openai/run_batch.py, ``run_batch``: ``asyncio.Semaphore(2 * max_num_seqs)``), so
#: the engine always has the next requests waiting when one finishes.
IN_FLIGHT_BATCHES = 2


def in_flight_requests(spec: LaunchSpec) -> int:
    """Requests a vLLM batch job sends its server at once (CONCURRENCY): :data:`IN_FLIGHT_BATCHES`
    batches of the workload's batch size; for a job that generates (``output_tokens``), which the
    plan prices at an always-full engine (as many sequences as its KV cache holds, up to its
    ``max_num_seqs``), :data:`IN_FLIGHT_BATCHES` times that cap where it is more, as the estimate
    takes it on the plan's GPU (``perf.engines.engine_defaults``)."""
    batches = IN_FLIGHT_BATCHES * spec.batch_size
    gpu = spec.gpu_info
    if spec.output_tokens is None or gpu is None:
        return batches
    cap = engine_defaults(gpu, None, None, tensor_parallel=spec.tensor_parallel).max_num_seqs
    return max(batches, IN_FLIGHT_BATCHES * cap)


def vllm_input_contract(launch: EngineLaunch) -> str:
    """What a vLLM batch job's inputs are (a README sentence; the example line follows it)."""
    return _(
        "One JSON Lines file, or a folder of them (read in name order), in `inputs/`: one request a line "
        "in the OpenAI Batch API format, as vLLM's batch runner reads it (url `/v1/chat/completions`, "
        "`/v1/completions` or `/v1/embeddings`, the body a request for the model `{model}`; a body without "
        "a model is sent with it), each with a custom_id of your own, a string given once in all the "
        "inputs (the outputs are matched to the inputs by it). Each shard reads only its own part of the "
        "inputs (a byte range of them), and every line of it is checked before the engine starts: a bad "
        "line, or a custom_id given twice in the shard's part, stops the shard at once (status 2), naming "
        "the file and line. A custom_id given in two shards' parts is not seen: keep them unique yourself:"
    ).format(model=launch.model_id)


#: The answer's length a vLLM batch job's README puts in its requests (max_tokens) where the
#: workload does not say how many tokens a sample generates.
DEFAULT_MAX_TOKENS = 512


def answer_tokens(spec: LaunchSpec) -> int:
    """max_tokens of the README's requests: the workload's ``output_tokens``, the answer the plan
    priced, else :data:`DEFAULT_MAX_TOKENS`."""
    return spec.output_tokens or DEFAULT_MAX_TOKENS


def example_request(launch: EngineLaunch, max_tokens: int) -> str:
    """One input line of a vLLM batch job (JSON, the same in every language)."""
    import json

    ask = "Summarise this chat: ..."
    said: dict[str, object]
    if launch.chat is False:  # no chat template: a plain completion of the prompt
        url, said = "/v1/completions", {"prompt": ask}
    else:
        url, said = "/v1/chat/completions", {"messages": [{"role": "user", "content": ask}]}
    return json.dumps(
        {
            "custom_id": "chat-1",
            "method": "POST",
            "url": url,
            "body": {"model": launch.model_id, **said, "max_tokens": max_tokens},
        }
    )


def prepare_command(launch: EngineLaunch, max_tokens: int) -> str:
    """A shell command that turns prompts.jsonl (a line {"prompt": "..."} each) into inputs.jsonl
    (a request each, custom_id ``p-N`` for the N-th prompt from 0): Python 3, nothing else."""
    if launch.chat is False:  # no chat template: a plain completion of the prompt
        url, said = "/v1/completions", '"prompt": json.loads(line)["prompt"]'
    else:
        url, said = (
            "/v1/chat/completions",
            '"messages": [{"role": "user", "content": json.loads(line)["prompt"]}]',
        )
    script = (
        "import json, sys\n"
        "for i, line in enumerate(l for l in sys.stdin if l.strip()):\n"
        '    body = {"model": sys.argv[1], "max_tokens": int(sys.argv[2]),\n'
        f"            {said}}}\n"
        '    print(json.dumps({"custom_id": f"p-{i}", "method": "POST", '
        f'"url": "{url}", "body": body}}, ensure_ascii=False))\n'
    )
    return (
        f"python3 -c {shlex.quote(script)} {shlex.quote(launch.model_id)} {max_tokens} "
        "< prompts.jsonl > inputs.jsonl"
    )


#: An output line of vLLM's batch runner, shortened (the README's).
_OUTPUT_EXAMPLE = '`{"id": …, "custom_id": …, "response": {"status_code": 200, "body": {…}}, "error": null}`'


def vllm_inputs(spec: LaunchSpec, launch: EngineLaunch) -> str:
    """The README's inputs of a vLLM batch job (Markdown): what a line is, an example line, and the
    command that makes them from a file of prompts."""
    tokens = answer_tokens(spec)
    if spec.output_tokens is None:
        prepare = _(
            "From a JSON Lines file of prompts, a line {example} each, this makes them (custom_id p-0, "
            "p-1, … in prompt order; {tokens}: the longest answer, max_tokens):"
        )
    else:
        prepare = _(
            "From a JSON Lines file of prompts, a line {example} each, this makes them (custom_id p-0, "
            "p-1, … in prompt order; {tokens}: the longest answer, max_tokens, the workload's "
            "inputs.output_tokens the plan priced):"
        )
    prepare = prepare.format(example='`{"prompt": "..."}`', tokens=tokens)
    checkpoint = checkpoint_note(launch)
    return (
        f"{vllm_input_contract(launch)}\n\n```json\n{example_request(launch, tokens)}\n```\n\n"
        + (f"{checkpoint}\n\n" if checkpoint else "")
        + f"{prepare}\n\n```bash\n{prepare_command(launch, tokens)}\n```"
    )


def vllm_output_contract(launch: EngineLaunch) -> str:
    """What a vLLM batch job's outputs are (a README sentence)."""
    return sentences(
        _(
            "The outputs are `outputs/chunk-00000-00000000.jsonl`, … (chunk-SHARD-N): vLLM's output for each "
            "request of a chunk, "
            "a line {example}; the answer is in response.body.{answer}. A request vLLM "
            "could not answer has a status_code other than 200 or an error (each shard's last log line "
            "counts them): match outputs to inputs by custom_id."
        ).format(
            example=_OUTPUT_EXAMPLE,
            answer="choices[0].text" if launch.chat is False else "choices[0].message.content",
        ),
        kept_chunks_note(),
    )


#: Where a vLLM batch job takes its Hugging Face token from, by target (the README's last sentence).
_TOKEN_WORDS = {
    "k8s": N_(
        "Gated models (Llama, Mistral, Gemma) need a Hugging Face token with access: put it in the "
        "Secret `hf-token` (key `token`) or the HF_TOKEN environment variable."
    ),
    "docker": N_(
        "Gated models (Llama, Mistral, Gemma) need a Hugging Face token with access: export HF_TOKEN before "
        "the `docker run` commands, which pass it on (`-e HF_TOKEN`)."
    ),
    "skypilot": N_(
        "Gated models (Llama, Mistral, Gemma) need a Hugging Face token with access: export HF_TOKEN before "
        "`sky jobs launch`, whose `--secret HF_TOKEN` passes it on."
    ),
}


def engine_batch_note(spec: LaunchSpec, launch: EngineLaunch, target: str = "k8s") -> str:
    """What a vLLM batch job runs, with which settings, and how it sends the requests (a README
    paragraph); ``target``: the deploy target whose README it is (where the token comes from)."""
    assert launch.memory_fraction is not None  # vLLM's is known on every GPU (engine._memory_fraction)
    parts = [
        _(
            "The job runs {engine}'s server ({image}) on the Hugging Face model `{model}`: tensor "
            "parallel {tp}, {fraction} of GPU memory, the settings a service of the model gets."
        ).format(
            engine=launch.words,
            image=launch.image,
            model=launch.model_id,
            tp=launch.tensor_parallel,
            fraction=f"{launch.memory_fraction:.3g}",
        )
    ]
    if launch.max_model_len is not None:
        parts.append(
            _(
                "The engine accepts requests of up to {tokens:,} tokens, prompt and answer together: {why}; "
                "the engine refuses to start where one request of that length does not fit its KV cache "
                "(lower --max-model-len in the job's arguments then)."
            ).format(tokens=launch.max_model_len, why=launch.context_why)
        )
    n = in_flight_requests(spec)
    if n > IN_FLIGHT_BATCHES * spec.batch_size:
        why = _(
            "CONCURRENCY: twice the engine's cap on running sequences, as vLLM's own batch runner keeps in "
            "flight, so the engine stays as full as the plan priced it"
        )
    else:
        why = _(
            "CONCURRENCY: two batches of the workload's {batch}, as vLLM's own batch runner keeps in flight"
        ).format(batch=spec.batch_size)
    parts.append(
        _(
            "Each shard starts the engine once, listening on 127.0.0.1 inside its own container, and sends "
            "it {n} requests at a time ({why}); the outputs are written a chunk of {chunk} requests "
            "({batches} batches) at a time, and the next chunk's requests are sent while a chunk's last "
            "ones finish. A shard started again loads the weights again, as the plan's restart time after "
            "a reclaim counts. CHUNK_SIZE sets the requests a chunk: a larger one is written less often "
            "and loses more work to a reclaim."
        ).format(n=n, why=why, chunk=chunk_requests(spec), batches=CHUNK_BATCHES)
    )
    parts.append(_(_TOKEN_WORDS.get(target, _TOKEN_WORDS["k8s"])))
    return sentences(*parts)
