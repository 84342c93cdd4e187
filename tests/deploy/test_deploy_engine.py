"""A decoder LLM's inference service runs the serving engine the plan priced (vLLM or SGLang, the
workload's ``serving.engine``) with the plan's settings; anything else keeps serve.py and says why."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import (
    FIXTURES,
    by_path,
    plan_doc,
    serve_workload,
    validate_k8s,
    validate_skypilot_task,
    yaml_docs,
)

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.engine import NEWEST_KNOWN
from gpuplan.deploy.hub import HF_MODEL_IDS, gated
from gpuplan.errors import DeployError

LLAMA_TP2 = "tensor_parallel: 2\n"  # the workload's split: one replica on two GPUs


def _llm(tmp_path: Path, serving: str = "", *, model: str = "llama-8b", top: str = "") -> LaunchSpec:
    return LaunchSpec.from_workload(
        serve_workload(tmp_path, serving, model=model, top=top), gpu="H100-SXM", count=2, provider="aws"
    )


def _container(spec: LaunchSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """The serving Deployment's container and pod, every manifest checked against Kubernetes' schema."""
    docs = yaml_docs(generate(spec, "k8s"))
    for d in docs:
        validate_k8s(d)
    pod = next(d for d in docs if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    return pod["containers"][0], pod


def test_vllm_with_a_version_runs_its_image_with_the_plans_settings(tmp_path: Path) -> None:
    spec = _sized(_llm(tmp_path, 'engine: "vllm==0.8.5", prefix_caching: false', top=LLAMA_TP2), kv=500_000)
    container, pod = _container(spec)
    assert container["image"] == "vllm/vllm-openai:v0.8.5"
    assert "command" not in container  # the image's own entry point is vLLM's API server
    # the model's own limit, which the KV cache holds, not the serving block's 100 prompt + 20 output
    # tokens (its means: a longer request would be refused); 0.9 of memory: what the estimator's KV
    # cache stands for
    assert container["args"] == [
        "--model", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000",
        "--tensor-parallel-size", "2", "--max-model-len", "131072",
        "--gpu-memory-utilization", "0.9", "--no-enable-prefix-caching",
    ]  # fmt: skip
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 2
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": "http"}
    token = container["env"][0]
    assert token["name"] == "HF_TOKEN" and "value" not in token
    assert token["valueFrom"]["secretKeyRef"]["name"] == "hf-token"
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts["model-cache"] == "/root/.cache/huggingface"
    assert "model-cache" in {v["name"] for v in pod["volumes"]}
    files = by_path(generate(spec, "k8s"))
    assert "serve.py" not in files and "k8s/code-configmap.yaml" not in files
    readme = files["README.md"]
    assert "vLLM 0.8.5" in readme and "figures are for this engine" in readme


@pytest.mark.parametrize(
    ("hub_id", "expected"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", True),
        ("mistralai/Mistral-7B-Instruct-v0.3", True),
        ("google/gemma-2-9b-it", True),
        ("google/embeddinggemma-300m", True),
        ("Google/Gemma-3-1B-IT", True),
        ("google/vit-base-patch16-224", None),
        ("Qwen/Qwen2.5-7B-Instruct", None),
        (None, None),
    ],
)
def test_which_hub_models_are_known_to_be_gated(hub_id: str | None, expected: bool | None) -> None:
    # was: Meta's and Mistral's only, so a Gemma pod started without its token and failed on its
    # first download; Google's other models download without one (not known: None, never False)
    assert gated(hub_id) is expected


@pytest.mark.parametrize(
    ("model", "hub_id", "required"),
    [("llama-8b", "meta-llama/Llama-3.1-8B-Instruct", True), ("qwen3-0.6b", "Qwen/Qwen3-0.6B", False)],
)
def test_a_gated_models_token_secret_is_required_and_said(
    tmp_path: Path, model: str, hub_id: str, required: bool
) -> None:
    # was: optional whatever the model, so a Llama pod without the Secret started, failed to
    # download its weights (HTTP 401) and restarted without end
    spec = _llm(tmp_path, 'engine: "vllm==0.8.5"', model=model)
    assert spec.hf_model_id == hub_id
    container, _pod = _container(spec)
    token = container["env"][0]
    assert token["valueFrom"]["secretKeyRef"] == {
        "name": "hf-token",
        "key": "token",
        "optional": not required,
    }
    readme = " ".join(by_path(generate(spec, "k8s"))["README.md"].split())
    gated = f"`{hub_id}` is gated on the Hugging Face Hub, so the pods do not start without the Secret"
    assert (gated in readme) == required
    assert ("only gated models need a real token" in readme) != required
    # which models need one, said either way
    assert "Gated models (Llama, Mistral, Gemma) need a Hugging Face token with access" in readme


def test_vllm_prefix_caching_follows_the_workload(tmp_path: Path) -> None:
    on, _pod = _container(_llm(tmp_path, 'engine: "vllm==0.8.5", prefix_caching: true'))
    assert "--enable-prefix-caching" in on["args"] and "--no-enable-prefix-caching" not in on["args"]
    # Before V1 (0.8) vLLM caches no prefixes unless told: off needs no flag.
    old, _pod = _container(_llm(tmp_path, 'engine: "vllm==0.6.6", prefix_caching: false'))
    assert not [a for a in old["args"] if "prefix-caching" in a]
    default, _pod = _container(_llm(tmp_path, 'engine: "vllm==0.8.5"'))
    assert not [a for a in default["args"] if "prefix-caching" in a]


def test_sglang_runs_its_launcher_with_its_own_flags(tmp_path: Path) -> None:
    spec = _llm(tmp_path, 'engine: "sglang==0.4.6", prefix_caching: false', model="qwen3-0.6b")
    container, _pod = _container(_sized(spec, kv=500_000))
    assert container["image"] == "lmsysorg/sglang:v0.4.6-cu124"
    assert container["command"] == ["python3", "-m", "sglang.launch_server"]
    assert container["args"] == [
        "--model-path", "Qwen/Qwen3-0.6B", "--host", "0.0.0.0", "--port", "8000",
        "--tp", "1", "--context-length", "40960", "--mem-fraction-static", "0.88",
        "--disable-radix-cache", "--enable-metrics",
    ]  # fmt: skip
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"


@pytest.mark.parametrize(
    ("pin", "image"),
    [
        ("sglang==0.4.8.post1", "lmsysorg/sglang:v0.4.8.post1-cu126"),
        ("sglang==0.5.2", "lmsysorg/sglang:v0.5.2"),
        ("vllm==0.8.5+cu121", "vllm/vllm-openai:v0.8.5"),  # a local build label is no image tag
    ],
)
def test_image_tags_follow_each_engines_scheme(pin: str, image: str, tmp_path: Path) -> None:
    container, _pod = _container(_llm(tmp_path, f'engine: "{pin}"'))
    assert container["image"] == image


@pytest.mark.parametrize("serving", ['engine: "vllm"', ""])
def test_no_version_named_pins_the_newest_the_estimate_knows_and_says_so(
    serving: str, tmp_path: Path
) -> None:
    spec = _llm(tmp_path, serving)
    container, _pod = _container(spec)
    assert container["image"] == f"vllm/vllm-openai:v{NEWEST_KNOWN['vllm']}"
    readme = by_path(generate(spec, "k8s"))["README.md"]
    assert "names no engine version" in readme
    assert ("names no serving engine" in readme) == (serving == "")


@pytest.mark.parametrize(
    ("serving", "image", "version"),
    [
        ('engine: "vllm"', "vllm/vllm-openai:v0.14.0", "vLLM 0.14.0"),
        ('engine: "sglang"', "lmsysorg/sglang:v0.5.2", "SGLang 0.5.2"),
    ],
)
def test_no_version_named_deploys_the_version_the_estimate_modelled(
    serving: str, image: str, version: str, tmp_path: Path
) -> None:
    # was: the estimate said "taken as 0.11" (vLLM) and modelled SGLang 0.5.2 while deploy ran vLLM
    # 0.14.0 and SGLang 0.4.0.post1
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.workload_request import engine_scheduler
    from gpuplan.workload import load_workload

    path = serve_workload(tmp_path, serving, model="qwen3-0.6b")
    spec = LaunchSpec.from_workload(path, gpu="H100-SXM", count=2, provider="aws")
    container, _pod = _container(spec)
    assert container["image"] == image
    settings = engine_scheduler(load_workload(path), get_gpu("H100-SXM"))
    assert settings is not None
    assert settings.source.endswith(f"; version not stated: the one `gpuplan deploy` runs, {version}")


@pytest.mark.parametrize(
    ("pin", "said"), [("vllm==9.9.9", True), ("vllm==0.14.0", False), ("vllm==0.8.5", False)]
)
def test_a_version_newer_than_the_estimate_knows_is_said_in_the_readme(
    pin: str, said: bool, tmp_path: Path
) -> None:
    # vllm==9.9.9 had been written as an image tag without a word (a typo, or a release unseen)
    readme = by_path(generate(_llm(tmp_path, f'engine: "{pin}"'), "k8s"))["README.md"]
    assert ("is newer than any release gpuplan's estimate knows (0.14.0)" in readme) == said


@pytest.mark.parametrize(
    ("pin", "said"), [("sglang==0.5.5", True), ("sglang==0.5.2", False), ("sglang==0.4.6", False)]
)
def test_an_sglang_release_the_estimate_read_is_not_newer(pin: str, said: bool, tmp_path: Path) -> None:
    # was: 0.4.6 and 0.5.2, whose defaults the estimate read, "newer than any release gpuplan's
    # estimate knows (0.4.0.post1)"
    readme = by_path(generate(_llm(tmp_path, f'engine: "{pin}"', model="qwen3-0.6b"), "k8s"))["README.md"]
    assert ("is newer than any release gpuplan's estimate knows (0.5.2)" in readme) == said
    assert "0.4.0.post1" not in readme


def test_replicas_sharing_a_gpu_share_its_memory(tmp_path: Path) -> None:
    container, _pod = _container(_llm(tmp_path, 'engine: "vllm==0.8.5", share_gpu: 2'))
    i = container["args"].index("--gpu-memory-utilization")
    assert container["args"][i + 1] == "0.45"  # 0.9 / 2


def _fraction(args: list[str]) -> str:
    flag = "--gpu-memory-utilization" if "--gpu-memory-utilization" in args else "--mem-fraction-static"
    return args[args.index(flag) + 1]


@pytest.mark.parametrize(
    ("pin", "model", "top", "share"),
    [
        ("sglang==0.4.6", "qwen3-0.6b", "", 1),  # 0.88 at one GPU
        ("sglang==0.4.6", "llama-8b", LLAMA_TP2, 1),  # 0.87 at two
        ("sglang==0.5.2", "qwen3-0.6b", "", 1),  # by the GiB SGLang 0.5 leaves an 80 GB GPU
        ("sglang==0.5.2", "qwen3-0.6b", "", 2),
        ("sglang", "qwen3-0.6b", "", 1),  # no version: 0.5.2, the one deployed
    ],
)
def test_sglang_starts_at_the_memory_fraction_the_estimate_sized_it_in(
    pin: str, model: str, top: str, share: int, tmp_path: Path
) -> None:
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.workload_request import engine_scheduler
    from gpuplan.workload import load_workload

    path = serve_workload(tmp_path, f'engine: "{pin}", share_gpu: {share}', model=model, top=top)
    spec = LaunchSpec.from_workload(path, gpu="H100-SXM", count=2, provider="aws")
    settings = engine_scheduler(load_workload(path), get_gpu("H100-SXM"))
    assert settings is not None and settings.memory_fraction < 0.9  # SGLang's own, not vLLM's 0.9
    container, _pod = _container(spec)
    # the estimate's fraction for this engine, version, GPU and tensor parallelism, ÷ replicas to a GPU
    assert _fraction(container["args"]) == f"{round(settings.memory_fraction / share, 3):.3g}"
    readme = by_path(generate(spec, "k8s"))["README.md"]
    assert f"{_fraction(container['args'])} of GPU memory" in readme


@pytest.mark.parametrize("gpu", ["H100-SXM", "T4", "A100-SXM4-40GB"])
def test_vllm_stays_at_its_090_beside_sglang_at_its_own_on_every_gpu(gpu: str, tmp_path: Path) -> None:
    from gpuplan.perf.engines import ESTIMATOR_MEMORY_FRACTION

    def fraction(pin: str) -> float:
        path = serve_workload(tmp_path, f'engine: "{pin}"', model="qwen3-0.6b")
        container, _pod = _container(LaunchSpec.from_workload(path, gpu=gpu))
        return float(_fraction(container["args"]))

    # vLLM's default on every GPU and version, as the estimate sizes it; SGLang 0.5 leaves its
    # activations and CUDA graphs a few GiB by the GPU's memory, never vLLM's 0.9
    assert {fraction(pin) for pin in ("vllm==0.6.6", "vllm==0.8.5", "vllm")} == {ESTIMATOR_MEMORY_FRACTION}
    assert fraction("sglang==0.5.2") < 0.89


def test_sglang_without_a_gpu_keeps_its_own_default_and_refuses_a_shared_one(tmp_path: Path) -> None:
    # SGLang's fraction depends on the GPU's memory: none named, the engine chooses its own ...
    alone = LaunchSpec.from_workload(serve_workload(tmp_path, 'engine: "sglang==0.5.2"', model="qwen3-0.6b"))
    container, _pod = _container(alone)
    assert "--mem-fraction-static" not in container["args"]
    assert (
        "its default share of GPU memory, which depends on the GPU"
        in by_path(generate(alone, "k8s"))["README.md"]
    )
    # ... but replicas time-sharing a GPU would each take it whole
    shared = LaunchSpec.from_workload(
        serve_workload(tmp_path, 'engine: "sglang==0.5.2", share_gpu: 2', model="qwen3-0.6b")
    )
    with pytest.raises(DeployError, match=r"share_gpu 2: SGLang's share of GPU memory .* name it \(--gpu\)"):
        generate(shared, "k8s")


def test_docker_and_skypilot_run_the_same_engine_command(tmp_path: Path) -> None:
    spec = _llm(tmp_path, 'engine: "sglang==0.5.2"', top=LLAMA_TP2)
    container, _pod = _container(spec)
    argv = container["command"] + container["args"]
    docker = by_path(generate(spec, "docker"))
    assert "serve.py" not in docker and "train.py" not in docker
    lines = docker["Dockerfile"].splitlines()
    assert "FROM lmsysorg/sglang:v0.5.2" in lines
    entry = json.loads(next(x for x in lines if x.startswith("ENTRYPOINT ")).split(" ", 1)[1])
    cmd = json.loads(next(x for x in lines if x.startswith("CMD ")).split(" ", 1)[1])
    assert entry + cmd == argv
    task = yaml.safe_load(by_path(generate(spec, "skypilot", GenerateOptions(out_dir="/srv/x")))["task.yaml"])
    validate_skypilot_task(task)
    assert shlex.split(task["run"]) == argv
    assert task["resources"]["image_id"] == "docker:lmsysorg/sglang:v0.5.2"
    assert task["secrets"] == {"HF_TOKEN": None}


def test_a_resnet_service_keeps_serve_py_and_says_why() -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4", provider="gcp")
    files = by_path(generate(spec, "k8s"))
    assert "serve.py" in files and "serve.py" in files["k8s/code-configmap.yaml"]
    container, _pod = _container(spec)
    assert container["command"][-1].endswith("/serve.py")
    assert "not a decoder LLM" in files["README.md"]
    assert "serve.py" in by_path(generate(spec, "docker"))


def test_a_decoder_without_hub_weights_keeps_serve_py_and_says_why(tmp_path: Path) -> None:
    spec = _llm(tmp_path, 'engine: "vllm==0.8.5"', model="gpt3-1.3b")
    files = by_path(generate(spec, "docker"))
    assert "serve.py" in files and "no Hugging Face model id" in files["README.md"]
    assert "name them with model.hub_id in the workload" in files["README.md"]


def test_every_preset_hub_id_is_the_model_its_source_names() -> None:
    from gpuplan.workload.presets.registry import PRESETS

    for preset, hub_id in HF_MODEL_IDS.items():
        named = PRESETS[preset].source.split()[0]
        assert named in (hub_id, hub_id.split("/")[1]), preset
        assert PRESETS[preset].family == "decoder"


def _hf_workload(tmp_path: Path, name_or_path: str) -> Path:
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "_name_or_path": name_or_path,
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": 256,
                "intermediate_size": 512,
                "num_attention_heads": 4,
                "num_key_value_heads": 4,
                "num_hidden_layers": 2,
                "vocab_size": 1000,
                "max_position_embeddings": 512,
            }
        )
    )
    p = tmp_path / "w.yaml"
    p.write_text(
        "name: s\ntask: infer\nmodel: {hf_config: config.json}\ninputs: {batch_size: 1, seq_len: 128}\n"
        "serving: {requests_per_s: 1, prompt_tokens: 100, output_tokens: 20}\n"
    )
    return p


def test_an_hf_config_serves_the_hub_model_it_names(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(_hf_workload(tmp_path, "meta-llama/Llama-3.2-1B"), gpu="L4")
    container, _pod = _container(spec)
    assert container["args"][:2] == ["--model", "meta-llama/Llama-3.2-1B"]


@pytest.mark.parametrize(
    "evil", ['x/y"; touch /tmp/pwned; "', "x/$(touch /tmp/pwned)", "x/y\n- --trust-remote-code", "../../etc"]
)
def test_a_hostile_hub_id_in_a_config_is_never_run(evil: str, tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(_hf_workload(tmp_path, evil), gpu="L4")
    assert spec.hf_model_id is None
    for target in ("docker", "k8s"):
        files = by_path(generate(spec, target))
        assert "serve.py" in files  # no engine: nothing of the config reaches a command line
        # the hostile id's own words (train.py itself touches a probe file in its checkpoint folder)
        assert not any("pwned" in text or "trust-remote-code" in text for text in files.values())


@pytest.mark.parametrize("evil", ["a/b; rm -rf ~", "a/b$(id)", "a/b\nc", "a--/b", "-a/b"])
def test_a_hostile_hub_id_is_refused(evil: str) -> None:
    with pytest.raises(ValueError, match="hf_model_id"):
        LaunchSpec(name="s", task="infer", hf_model_id=evil, model_family="decoder")


@pytest.mark.parametrize(
    "engine", ["vllm==0.8.5; rm -rf /", "vllm==$(id)", "vllm==0.8.5\nrun: evil", "tgi==1.0", "vllm 0.8.5"]
)
def test_a_hostile_engine_in_a_plan_file_is_refused_in_one_line(engine: str) -> None:
    doc = plan_doc()
    doc["workload"] = {
        "name": "s",
        "task": "infer",
        "model": {"preset": "llama-8b"},
        "inputs": {"batch_size": 1, "seq_len": 128},
        "serving": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 10, "engine": engine},
    }
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(doc)
    said = str(e.value)
    assert "\n" not in said and "engine" in said


def _plan_naming(config: Path, where: Path) -> Path:
    doc = plan_doc()
    doc["workload"] = {
        "name": "s",
        "task": "infer",
        "model": {"hf_config": str(config)},
        "inputs": {"batch_size": 1, "seq_len": 128},
        "serving": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 10},
    }
    path = where / "plan.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_plan_reads_the_hub_id_of_a_config_inside_its_folder_only(tmp_path: Path) -> None:
    inside, outside = tmp_path / "project", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    _hf_workload(inside, "meta-llama/Llama-3.2-1B")
    _hf_workload(outside, "meta-llama/Llama-3.2-1B")
    spec = LaunchSpec.from_plan_json(_plan_naming(inside / "config.json", inside))
    assert spec.hf_model_id == "meta-llama/Llama-3.2-1B" and spec.model_family == "decoder"
    # A plan may come from someone else: a file outside its folder is not read.
    assert LaunchSpec.from_plan_json(_plan_naming(outside / "config.json", inside)).hf_model_id is None


def test_a_plan_records_its_configs_model_and_deploys_it_where_the_config_is_not(tmp_path: Path) -> None:
    # was: a plan moved to another machine (or saved by the planning service) lost its config, and
    # deploy wrote a service of serve.py's random stand-in for the Llama the plan priced
    from gpuplan.report.plan import _with_model_identity

    made = tmp_path / "made"
    made.mkdir()
    _hf_workload(made, "meta-llama/Llama-3.2-1B")
    workload = {"name": "s", "model": {"hf_config": str(made / "config.json")}}
    model = _with_model_identity(workload)["model"]
    assert (model["hub_id"], model["family"], model["max_positions"]) == (
        "meta-llama/Llama-3.2-1B",
        "decoder",
        512,
    )
    moved = tmp_path / "moved"
    moved.mkdir()
    path = _plan_naming(made / "config.json", moved)  # the config lies outside the plan's folder
    doc = json.loads(path.read_text())
    doc["workload"]["model"] = {**doc["workload"]["model"], **model}
    path.write_text(json.dumps(doc))
    spec = LaunchSpec.from_plan_json(path)
    assert (spec.hf_model_id, spec.model_family, spec.model_context_limit) == (
        "meta-llama/Llama-3.2-1B",
        "decoder",
        512,
    )
    files = by_path(generate(spec, "k8s"))
    assert "serve.py" not in files and "meta-llama/Llama-3.2-1B" in files["k8s/deployment.yaml"]


@pytest.mark.parametrize(
    ("recorded", "read"),
    [
        (("x/$(touch /tmp/pwned)", "decoder", 512), (None, "decoder", 512)),
        (("../../etc", "decoder", 512), (None, "decoder", 512)),
        (("a/b", "encoder; rm -rf /", True), ("a/b", None, None)),
        ((["a/b"], {"x": 1}, -5), (None, None, None)),
    ],
)
def test_a_recorded_identity_is_read_as_untrusted_data(
    recorded: tuple[object, object, object], read: tuple[object, object, object]
) -> None:
    from gpuplan.deploy.hub import recorded_identity

    assert tuple(recorded_identity(*recorded))[:3] == read


@pytest.mark.parametrize(
    ("serving", "said"),
    [
        ('engine: "vllm==0.8.5"', "The plan priced 2 replicas on 2 GPU(s): the command below starts one."),
        (
            'engine: "vllm==0.8.5", share_gpu: 2',
            "The plan priced 4 replicas time-sharing 2 GPU(s), 2 to a GPU: the command below starts one.",
        ),
    ],
)
def test_the_docker_readme_says_how_many_containers_the_plan_priced(
    serving: str, said: str, tmp_path: Path
) -> None:
    # One `docker run` for a plan of four time-sharing replicas had been a quarter of the capacity priced.
    readme = by_path(generate(_llm(tmp_path, serving), "docker"))["README.md"]
    assert said in readme and "Kubernetes (--target k8s) starts and scales them" in readme


def test_the_k8s_readme_of_an_engine_service_warns_of_the_gpu_util_autoscalers_cost(tmp_path: Path) -> None:
    # gpuplan's simulator runs the gpu-util HPA at its cap for a decoding engine (~3× the plan's cost
    # in a diurnal day); the README deploy writes had said nothing of it
    readme = by_path(generate(_llm(tmp_path, 'engine: "vllm==0.8.5"'), "k8s"))["README.md"]
    said = " ".join(readme.split())
    assert "Mind the cost of this autoscaler" in said and "near maxReplicas (4)" in said
    assert "--policy queue" in said


def _sized(spec: LaunchSpec, kv: int, longest: int | None = None) -> LaunchSpec:
    from gpuplan.deploy.spec import EngineSlots

    trace = "day" if longest is not None else None
    return spec.with_engine_slots(
        EngineSlots(
            slots=64,
            context_tokens=110.0,
            kv_tokens=kv,
            trace=trace,
            longest_request=longest,
            load_requests_per_s=2.0,
            load_basis="simulation",
            load_share=0.8,
            capacity_requests_per_s=2.5,
            estimate_capacity_requests_per_s=None,
            in_flight=20.0,
            time_in_replica_s=10.0,
            first_token_s=0.2,
            time_per_output_token_s=0.49,
            output_tokens=21.0,
        )
    )


def test_the_engine_takes_requests_as_long_as_the_model_and_its_cache_allow(tmp_path: Path) -> None:
    # The serving block's 100 + 20 tokens are the plan's means: an engine capped at 120 refuses every
    # longer request (vLLM: HTTP 400). The cap is the model's limit, a trace's longest request
    # where one was given, and never more than one replica's KV cache holds. Where that cache was
    # not counted, the model's limit is not written (vLLM refuses to start where its cache cannot
    # hold one request of it): the serving block's request, which the plan priced, stands.
    from gpuplan.deploy.engine import engine_launch, engine_note

    spec = _llm(tmp_path, 'engine: "vllm==0.8.5"')
    cases = {
        "model": (_sized(spec, kv=500_000), 131_072, "the model's own limit"),
        "uncounted": (spec, 120, "KV cache was not counted (no GPU named, or the workload could not"),
        "cache": (_sized(spec, kv=50_007), 50_000, "as many tokens as one replica's KV cache holds"),
        "trace": (_sized(spec, kv=500_000, longest=6_000), 6_000, "the longest request in the trace day"),
        "over": (_sized(spec, kv=500_000, longest=200_000), 131_072, "200000 tokens, is longer"),
    }
    for name, (sized, tokens, why) in cases.items():
        launch = engine_launch(sized)
        assert launch is not None
        assert launch.max_model_len == tokens, name
        assert why in engine_note(launch), name
        assert f"up to {tokens:,} tokens" in engine_note(launch), name


def test_a_model_without_a_stated_limit_keeps_the_serving_blocks_sum_and_says_so(tmp_path: Path) -> None:
    from gpuplan.deploy.engine import engine_launch, engine_note

    spec = _llm(tmp_path, 'engine: "vllm==0.8.5"').model_copy(update={"model_context_limit": None})
    launch = engine_launch(spec)
    assert launch is not None and launch.max_model_len == 120
    assert "give deploy --trace FILE.csv to size it on your traffic" in engine_note(launch)


def test_a_plans_workload_with_what_it_recorded_of_its_model_is_read_back_as_a_workload(
    tmp_path: Path,
) -> None:
    # the recorded keys (hub_id, family, max_positions: null for a preset) are the plan's, not the
    # workload's: read back as a workload they had been refused as unknown keys, and deploy lost
    # its engine's sizing (the autoscaler fell back to GPU utilisation, "NOTE.txt")
    from gpuplan.cli.deploy_checks import plan_workload
    from gpuplan.report.plan import _with_model_identity

    made = tmp_path / "made"
    made.mkdir()
    _hf_workload(made, "meta-llama/Llama-3.2-1B")
    path = _plan_naming(made / "config.json", made)
    doc = json.loads(path.read_text())
    doc["workload"] = _with_model_identity(doc["workload"])
    assert doc["workload"]["model"]["hub_id"] == "meta-llama/Llama-3.2-1B"
    path.write_text(json.dumps(doc))
    read = plan_workload(path, None)
    assert not isinstance(read, str), read
    assert read.model.hf_config is not None
    # the workload's own hub_id (the weights it names) is kept over the config's _name_or_path
    named = {"name": "s", "model": {"hf_config": str(made / "config.json"), "hub_id": "me/tuned-1b"}}
    assert _with_model_identity(named)["model"]["hub_id"] == "me/tuned-1b"


def test_a_llama_preset_serves_its_instruct_checkpoint_and_the_readme_says_so(tmp_path: Path) -> None:
    files = by_path(generate(_llm(tmp_path), "docker"))
    readme = files["README.md"]
    assert "serving the Hugging Face model `meta-llama/Llama-3.1-8B-Instruct`" in readme
    assert "the pretrained `meta-llama/Llama-3.1-8B` is not tuned to follow a prompt" in readme
    assert "name them with model.hub_id in the workload" in readme
    # its first request is a chat message, through the checkpoint's chat template
    assert "/v1/chat/completions -H 'Content-Type: application/json'" in readme
    assert '"messages": [{"role": "user", "content": "Hello"}]' in readme


def test_every_instruct_checkpoint_is_of_a_preset_whose_published_model_is_its_base() -> None:
    from gpuplan.deploy.hub import INSTRUCT_MODEL_IDS, preset_identity

    for preset, instruct in INSTRUCT_MODEL_IDS.items():
        base = HF_MODEL_IDS[preset]
        assert instruct.startswith(base.removesuffix("-hf")), preset  # Llama-2-7b-hf -> Llama-2-7b-chat-hf
        found = preset_identity(preset)
        assert (found.hub_id, found.base_id, found.chat) == (instruct, base, True)
    assert preset_identity("mistral-7b").base_id is None  # already the Instruct checkpoint
    assert preset_identity("gpt2-xl").chat is False


def test_a_workload_names_the_weights_an_engine_serves_with_hub_id(tmp_path: Path) -> None:
    # A config.json downloaded from the Hub has no _name_or_path: the plan priced vLLM and deploy
    # wrote serve.py, a randomly initialised stand-in, for every replica; hub_id names the weights.
    p = _hf_workload(tmp_path, "")
    p.write_text(
        p.read_text().replace(
            "{hf_config: config.json}", "{hf_config: config.json, hub_id: Qwen/Qwen2.5-7B-Instruct}"
        )
    )
    container, _pod = _container(LaunchSpec.from_workload(p, gpu="L4"))
    assert container["args"][:2] == ["--model", "Qwen/Qwen2.5-7B-Instruct"]
    # Over a config's own name, and over a preset's checkpoint (your own fine-tune of its architecture).
    named = _hf_workload(tmp_path, "meta-llama/Llama-3.2-1B")
    named.write_text(
        named.read_text().replace("{hf_config: config.json}", "{hf_config: config.json, hub_id: me/tuned-1b}")
    )
    container, _pod = _container(LaunchSpec.from_workload(named, gpu="L4"))
    assert container["args"][:2] == ["--model", "me/tuned-1b"]
    tuned = serve_workload(tmp_path, model="llama-8b, hub_id: me/llama-tuned")
    spec = LaunchSpec.from_workload(tuned, gpu="H100-SXM")
    assert spec.hf_model_id == "me/llama-tuned" and spec.hf_base_model_id is None
    assert "not tuned to follow a prompt" not in by_path(generate(spec, "docker"))["README.md"]


def test_a_plan_that_lost_its_config_and_recorded_nothing_of_it_is_warned(tmp_path: Path) -> None:
    # A plan made before plans recorded the model (no hub_id, family, max_positions), its config
    # since moved: deploy wrote serve.py's random stand-in for the Llama the plan priced, silently.
    from gpuplan.deploy.engine import unread_config_warning

    project = tmp_path / "project"
    project.mkdir()
    _hf_workload(project, "meta-llama/Llama-3.2-1B")
    config = project / "config.json"
    path = _plan_naming(config, project)
    spec = LaunchSpec.from_plan_json(path)
    assert spec.hf_model_id == "meta-llama/Llama-3.2-1B" and unread_config_warning(spec) is None
    config.rename(project / "config.moved.json")
    spec = LaunchSpec.from_plan_json(path)
    assert spec.hf_model_id is None and spec.unread_hf_config == str(config)
    line = unread_config_warning(spec)
    assert line is not None and "\n" not in line
    assert f"hf_config {config} is not here" in line and "serve.py's randomly initialised stand-in" in line
    assert "plan the workload again (`gpuplan plan WORKLOAD --json`)" in line
    assert "serve.py" in by_path(generate(spec, "k8s"))  # still written: it may be a model of no Hub id

    # A batch job's stand-in is batch.py's.
    doc = json.loads(path.read_text())
    doc["workload"]["serving"] = None
    path.write_text(json.dumps(doc))
    line = unread_config_warning(LaunchSpec.from_plan_json(path))
    assert line is not None and "batch.py's randomly initialised stand-in" in line

    # Recorded in the plan: the files are what is known.
    doc["workload"]["model"] |= {
        "hub_id": "meta-llama/Llama-3.2-1B",
        "family": "decoder",
        "max_positions": 512,
    }
    path.write_text(json.dumps(doc))
    assert unread_config_warning(LaunchSpec.from_plan_json(path)) is None
    # A decoder's config read that names no Hub id (one downloaded from the Hub has none): the plan
    # priced it on vLLM, the files run a stand-in; model.hub_id is what names its weights.
    _hf_workload(project, "./my-model")  # config.json again, naming a local folder, no Hub id
    plain = _plan_naming(config, project)
    spec = LaunchSpec.from_plan_json(plain)
    assert spec.hf_model_id is None and spec.unread_hf_config is None
    line = unread_config_warning(spec)
    assert line is not None and "\n" not in line
    assert line.startswith("hf_config project/config.json names no Hugging Face weights an engine could load")
    assert "name the weights with model.hub_id in the workload" in line
    # A training plan's files are the same either way: nothing to warn of.
    config.unlink()
    doc = json.loads(plain.read_text())
    doc["workload"] |= {"task": "finetune", "serving": None}
    plain.write_text(json.dumps(doc))
    assert unread_config_warning(LaunchSpec.from_plan_json(plain)) is None


def test_an_hourly_service_without_a_floor_is_told_how_to_scale_down(tmp_path: Path) -> None:
    # The HPA's floor was the plan's peak replicas, all night, and nothing said how to lower it.
    readme = " ".join(by_path(generate(_llm(tmp_path), "k8s"))["README.md"].split())
    # a workload file: the GPUs given, which no plan priced
    assert "The autoscaler never goes below the replicas of the GPUs given (--count: 2)" in readme
    assert "set serving.min_replicas in the workload" in readme
    floor = by_path(generate(_llm(tmp_path, "min_replicas: 1"), "k8s"))["README.md"]
    assert "never goes below" not in floor


def test_a_service_on_committed_capacity_holds_its_replicas_and_says_it_plainly(tmp_path: Path) -> None:
    # "between 2 and 2 replicas" (Chinese: 副本数在 2 到 2 之间) for a monthly fleet the plan bought
    spec = LaunchSpec.from_workload(
        serve_workload(tmp_path, model="llama-8b"), gpu="H100-SXM", count=2, provider="aws", pricing="monthly"
    )
    files = generate(_sized(spec, kv=500_000), "k8s")
    readme = " ".join(by_path(files)["README.md"].split())
    assert "per replica, at 2 replicas, no more and no fewer:" in readme, readme
    assert "between 2 and 2" not in readme
    hourly = " ".join(by_path(generate(_sized(_llm(tmp_path), kv=500_000), "k8s"))["README.md"].split())
    assert "per replica, between 2 and 4 replicas" in hourly
