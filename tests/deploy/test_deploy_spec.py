"""LaunchSpec: built from a plan file or a workload file; bad files fail with one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES, by_path, plan_doc, serve_workload

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.spec import DEFAULT_CHECKPOINT_INTERVAL_MIN, kubernetes_option
from gpuplan.errors import DeployError, NotFoundError


def test_plan_file_gives_the_recommended_option(spot_plan: LaunchSpec) -> None:
    s = spot_plan
    assert (s.provider, s.region, s.instance_type, s.gpu) == (
        "aws",
        "us-east-1",
        "p4d.24xlarge",
        "A100-SXM4-40GB",
    )
    assert (s.gpus_per_node, s.nodes, s.total_gpus) == (8, 1, 8)
    assert s.spot and s.checkpoint_interval_min == 12.5
    assert s.name == "bert-large-squad" and s.seq_len == 384 and s.batch_size == 32
    assert s.model_source == "preset bert-large" and s.model_entry_point is None
    # 88000 samples x 2 epochs
    assert s.train_samples == 176000


def test_multinode_plan_splits_gpus_over_nodes_and_slugs_the_name(multinode_plan: LaunchSpec) -> None:
    s = multinode_plan
    assert (s.gpus_per_node, s.nodes) == (8, 2)
    assert s.name == "llama-7b-finetune"  # a DNS-1123 label for Kubernetes and SkyPilot
    assert s.model_entry_point == "mypkg.model:build" and s.parallelism == "fsdp"
    # checkpoint_interval_min is null in the plan: the default applies
    assert s.checkpoint_interval_min == DEFAULT_CHECKPOINT_INTERVAL_MIN


def test_another_schema_version_says_rerun_plan(tmp_path: Path) -> None:
    doc = plan_doc()
    doc["schema_version"] = 99
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(doc))
    message = r"plan file has schema version 99; this gpuplan reads versions 1 to 6: re-run `gpuplan plan`"
    with pytest.raises(DeployError, match=message):
        LaunchSpec.from_plan_json(p)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"recommended": {}}', "not a gpuplan plan file"),
        ('{"schema_version": 1}', "no recommended option"),
    ],
)
def test_malformed_plan_files_fail_with_one_line(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "plan.json"
    p.write_text(text)
    with pytest.raises(DeployError, match=message) as e:
        LaunchSpec.from_plan_json(p)
    assert "\n" not in str(e.value)


def test_option_with_a_bad_field_names_the_field() -> None:
    with pytest.raises(DeployError, match=r"recommended option is malformed: gpu_count"):
        LaunchSpec.from_plan(plan_doc(gpu_count=0))
    with pytest.raises(DeployError, match="not a multiple of nodes"):
        LaunchSpec.from_plan(plan_doc(gpu_count=12, nodes=8))
    with pytest.raises(DeployError, match="unknown GPU 'Z100'"):
        LaunchSpec.from_plan(plan_doc(gpu="Z100"))


def test_a_plan_naming_an_unknown_preset_is_refused_with_the_near_names() -> None:
    # A tampered or hand-edited plan's preset (bert-lage) went into train.py and the README as
    # "preset bert-lage", where a workload file naming it is refused with "did you mean".
    doc = plan_doc()
    doc["workload"]["model"]["preset"] = "bert-lage"
    with pytest.raises(DeployError, match=r"unknown preset 'bert-lage'; did you mean 'bert-large'") as e:
        LaunchSpec.from_plan(doc, source="plan.json")
    assert str(e.value).startswith("plan.json: ") and "\n" not in str(e.value)
    # The preset's own spelling, in any case, is the preset.
    doc["workload"]["model"]["preset"] = "BERT-Large"
    assert LaunchSpec.from_plan(doc).model_source == "preset bert-large"


def test_workload_without_plan_is_one_node_with_the_named_gpu() -> None:
    s = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="A100-SXM4-80GB", count=4, provider="gcp")
    assert (s.gpu, s.gpus_per_node, s.nodes, s.provider, s.pricing) == (
        "A100-SXM4-80GB",
        4,
        1,
        "gcp",
        "on_demand",
    )
    assert s.instance_type is None and s.job_time_h is None


def test_workload_gpu_and_provider_names_get_did_you_mean() -> None:
    with pytest.raises(NotFoundError, match="did you mean 'aws'"):
        LaunchSpec.from_workload(FIXTURES / "train.yaml", provider="awss")


def test_a_misspelled_region_is_refused_and_an_unlisted_one_is_taken_as_written() -> None:
    # us-eats-1 went into SkyPilot's `infra: aws/us-eats-1`; offers and plan caught it, deploy did not.
    with pytest.raises(NotFoundError, match="unknown region 'us-eats-1'; did you mean 'us-east-1'"):
        LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="T4", provider="aws", region="us-eats-1")
    # A region far from every listed one may be newer than the provider module's list.
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="T4", provider="aws", region="xx-new-9")
    assert spec.region == "xx-new-9"


def test_serving_block_reads_sharing_and_threshold() -> None:
    s = LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4")
    assert s.task == "infer" and s.serving is not None
    assert s.serving.share_gpu == 4  # `share_gpu: true` is the articles' quarter card
    assert s.serving.gpu_utilization_target == 75


def test_mig_profile_needs_a_mig_gpu(tmp_path: Path) -> None:
    p = serve_workload(tmp_path, "mig_profile: 1g.10gb")
    assert LaunchSpec.from_workload(p, gpu="A100-SXM4-80GB").serving.mig_profile == "1g.10gb"  # type: ignore[union-attr]
    with pytest.raises(DeployError, match="T4 does not support MIG"):
        LaunchSpec.from_workload(p, gpu="T4")


def test_a_mig_profile_the_gpu_does_not_offer_is_refused_with_its_own(tmp_path: Path) -> None:
    # 1g.5gb is an A100 40GB's slice: on an 80 GB A100 or an H100 its pod never schedules.
    p = serve_workload(tmp_path, "mig_profile: 1g.5gb")
    assert LaunchSpec.from_workload(p, gpu="A100-SXM4-40GB").serving.mig_profile == "1g.5gb"  # type: ignore[union-attr]
    for gpu in ("A100-SXM4-80GB", "H100-SXM"):
        with pytest.raises(DeployError, match=rf"unknown MIG profile '1g.5gb'; did you mean .*\(on {gpu}\)"):
            LaunchSpec.from_workload(p, gpu=gpu)


def test_workload_file_is_checked_by_the_workload_spec(tmp_path: Path) -> None:
    p = tmp_path / "w.yaml"
    p.write_text("name: w\nmodel: {preset: bert-larg}\ninputs: {batch_size: 8, seq_len: 128}\n")
    with pytest.raises(NotFoundError, match="did you mean 'bert-large'"):
        LaunchSpec.from_workload(p)


def test_tokens_give_samples_as_the_workload_spec_defines(tmp_path: Path) -> None:
    p = tmp_path / "w.yaml"
    p.write_text(
        "name: w\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 1000}\ndata: {tokens: 1000000}\n"
    )
    # samples = tokens / seq_len = 1000000 / 1000
    assert LaunchSpec.from_workload(p).dataset_samples == 1000


def test_a_qlora_plan_says_what_train_py_leaves_to_the_user(tmp_path: Path) -> None:
    # was: MODEL_SOURCE "preset bert-large" and OPTIMIZER "paged-adamw-8bit" with no word that the
    # plan priced adapters on a 4-bit base, nor that train.py's stand-in steps torch's AdamW.
    from gpuplan.deploy import generate

    doc = plan_doc()
    doc["workload"]["model"]["lora"] = {
        "rank": 16,
        "targets": ["q", "v"],
        "quantization": "nf4",
        "double_quantization": True,
    }
    doc["workload"]["optimizer"] = "paged-adamw-8bit"
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(doc))
    s = LaunchSpec.from_plan_json(p)
    assert s.model_source == "preset bert-large, LoRA rank 16 on q, v, base stored nf4 (double quantization)"
    readme = by_path(generate(s, "torchrun"))["README.md"]
    assert "LoRA rank 16 on q, v, base stored nf4 (double quantization)" in readme
    assert "paged-adamw-8bit" in readme and "torch.optim.AdamW" in readme


def test_a_lora_plan_names_its_adapters_dtype_and_dropout(tmp_path: Path) -> None:
    # was: "LoRA rank 32 on q, v" alone for a plan priced with bf16 adapters and their input's
    # dropout kept (model.lora.dtype: model, dropout: 0.05).
    doc = plan_doc()
    doc["workload"]["model"]["lora"] = {"rank": 32, "targets": ["q", "v"], "dtype": "model", "dropout": 0.05}
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(doc))
    assert LaunchSpec.from_plan_json(p).model_source == (
        "preset bert-large, LoRA rank 32 on q, v, adapters in the model dtype, adapter dropout 0.05"
    )


def test_an_hf_configs_path_on_this_machine_stays_out_of_the_launch_files() -> None:
    # MODEL_SOURCE and the README had carried the config's absolute path (a home folder, a user name).
    root = Path(__file__).resolve().parents[2]
    spec = LaunchSpec.from_workload(root / "examples" / "hf-config" / "llama32-1b-finetune.yaml", gpu="A10G")
    assert spec.model_source == "hf_config hf-config/config.json"
    files = generate(spec, "torchrun", GenerateOptions())
    assert all(str(root) not in f.content for f in files)


def _option(provider: str, instance_type: str) -> dict[str, object]:
    return plan_doc()["recommended"] | {
        "provider": provider,
        "region": "us-east-1",
        "instance_type": instance_type,
    }


def test_k8s_deploys_the_best_option_on_a_provider_with_managed_kubernetes() -> None:
    # was: the recommended Lambda option, manifests for a cluster Lambda does not offer
    lam, runpod, aws = (
        _option("lambda", "gpu_8x_a100"),
        _option("runpod", "8x_A100"),
        plan_doc()["recommended"],
    )
    doc = plan_doc(**lam) | {"options": [lam, runpod, aws]}
    spec = LaunchSpec.from_plan(doc, managed_kubernetes=True)
    assert (spec.provider, spec.instance_type) == ("aws", "p4d.24xlarge")
    assert spec.chosen_because == (
        "--target k8s: the recommended option lambda us-east-1 gpu_8x_a100 is on lambda, which has no "
        "managed Kubernetes known to gpuplan; deploying the plan's best option on one that has: "
        "aws us-east-1 p4d.24xlarge (EKS); the plan prices it at $18.20 for the run (1.4 h), against "
        "$18.20 for the recommended option, whose cost does not apply to these files"
    )
    # Other targets, and k8s on an option whose provider has one, keep the recommended option.
    assert LaunchSpec.from_plan(doc).provider == "lambda"
    spec = LaunchSpec.from_plan(plan_doc() | {"options": [lam]}, managed_kubernetes=True)
    assert spec.provider == "aws" and spec.chosen_because == ""


def test_k8s_refuses_a_plan_with_no_option_on_managed_kubernetes_in_one_line() -> None:
    lam, runpod = _option("lambda", "gpu_8x_a100"), _option("runpod", "8x_A100")
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(plan_doc(**lam) | {"options": [lam, runpod]}, managed_kubernetes=True)
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(
        "--target k8s: the plan's option lambda us-east-1 gpu_8x_a100 is on lambda, which has no managed "
        "Kubernetes known to gpuplan, nor has any other option of the plan; providers with one: "
    )
    for named in (
        "aws (EKS)",
        "azure (AKS)",
        "gcp (GKE)",
        "alibaba (ACK)",
        "tencent (TKE)",
        "volcengine (VKE)",
    ):
        assert named in message
    assert "runpod" not in message.split("providers with one: ")[1]


def test_k8s_takes_the_plans_kubernetes_persona_when_no_ranked_option_has_managed_kubernetes() -> None:
    # Cheap marketplace offers fill the ranked options of a service plan, however long: the plan's
    # kubernetes persona (its best option on a managed Kubernetes service) had been ignored and
    # the plan refused.
    lam, runpod, aws = (
        _option("lambda", "gpu_8x_a100"),
        _option("runpod", "8x_A100"),
        plan_doc()["recommended"],
    )
    personas = [
        {"persona": "budget", "rule": "lowest cost", "option": lam},
        {"persona": "kubernetes", "rule": "managed Kubernetes", "option": aws},
        {"persona": "compliance", "rule": "a label", "option": None},
    ]
    doc = plan_doc(**lam) | {"options": [lam, runpod], "personas": personas}
    spec = LaunchSpec.from_plan(doc, managed_kubernetes=True)
    assert (spec.provider, spec.instance_type, spec.gpu) == ("aws", "p4d.24xlarge", "A100-SXM4-40GB")
    assert spec.chosen_because == (
        "--target k8s: the recommended option lambda us-east-1 gpu_8x_a100 is on lambda, which has no "
        "managed Kubernetes known to gpuplan, nor has any of the plan's ranked options; deploying the "
        "plan's kubernetes pick (its best option on a managed Kubernetes service): "
        "aws us-east-1 p4d.24xlarge (EKS); the plan prices it at $18.20 for the run (1.4 h), against "
        "$18.20 for the recommended option, whose cost does not apply to these files"
    )
    # A ranked option on one comes first; a persona on a marketplace is no pick.
    assert (
        "deploying the plan's best option on one that has: aws us-east-1 p4d.24xlarge (EKS); "
        in LaunchSpec.from_plan(doc | {"options": [lam, aws]}, managed_kubernetes=True).chosen_because
    )
    no_pick = [{"persona": "kubernetes", "rule": "r", "option": runpod}]
    with pytest.raises(DeployError, match="nor has any other option of the plan"):
        LaunchSpec.from_plan(doc | {"personas": no_pick}, managed_kubernetes=True)


def test_the_substituted_kubernetes_option_is_said_with_the_plans_cost_of_it() -> None:
    # A 70B service's plan recommended cudo at $17,192 a month; --target k8s deployed its kubernetes
    # pick (nebius B200) and stated no cost: the plan's headline figure read as what the files cost.
    service = {"replica_capacity_requests_per_s": 4.0}
    cheap = _option("lambda", "gpu_8x_a100") | {"service": service, "total_cost_usd": 17192.31}
    dear = plan_doc()["recommended"] | {
        "service": service,
        "total_cost_usd": 32468.01,
        "total_cost_usd_low": 30100.0,
        "total_cost_usd_high": 35000.0,
        "as_of": "2024-03/2026-12-02",
        "stale": True,
    }
    personas = [{"persona": "kubernetes", "rule": "managed Kubernetes", "option": dear}]
    option, said = kubernetes_option(cheap, [cheap], personas=personas)
    assert option is dear
    assert said.endswith(
        "aws us-east-1 p4d.24xlarge (EKS); the plan prices it at $32,468 [$30,100–$35,000] for a month of "
        "serving (its price as of 2024-03/2026-12-02, treated as stale), against $17,192 for the "
        "recommended option, whose cost does not apply to these files"
    )
    # in yuan where the plan showed yuan, at its own rate
    _, yuan = kubernetes_option(cheap, [cheap], personas=personas, cny_per_usd=7.0)
    assert "prices it at ¥227,276 [¥210,700–¥245,000] for a month" in yuan and "against ¥120,346" in yuan
    # a cost the plan does not state is said to be unknown, never $0
    unpriced = {k: v for k, v in dear.items() if not k.startswith("total_cost_usd")}
    _, unknown = kubernetes_option(cheap, [cheap], personas=[personas[0] | {"option": unpriced}])
    assert unknown.endswith(
        "(EKS); the plan states no cost for it, and the recommended option's cost does not apply to it"
    )


def test_a_plan_in_yuan_says_the_substitutes_cost_in_yuan() -> None:
    lam = _option("lambda", "gpu_8x_a100") | {"total_cost_usd": 10.0}
    rate = {"currency": "CNY", "units_per_usd": 7.0, "as_of": "2026-01-27"}
    doc = plan_doc(**lam) | {"options": [lam, plan_doc()["recommended"]]}
    doc |= {"display_currency": "CNY", "exchange_rate": rate}
    said = LaunchSpec.from_plan(doc, managed_kubernetes=True).chosen_because
    assert said.endswith(
        "the plan prices it at ¥127.40 for the run (1.4 h), against ¥70.00 for the "
        "recommended option, whose cost does not apply to these files"
    )


def test_a_plan_whose_replica_spans_gpus_cannot_time_share_them() -> None:
    # share_gpu: n replicas to one GPU; a tensor-parallel replica of 2 GPUs has none of its own.
    doc = plan_doc()
    doc["workload"] = doc["workload"] | {
        "task": "infer",
        "tensor_parallel": 2,
        "serving": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 10, "share_gpu": 2},
    }
    with pytest.raises(
        DeployError, match=r"share_gpu: replicas time-share one GPU each, but one replica spans 2"
    ):
        LaunchSpec.from_plan(doc)
    doc["workload"]["serving"]["share_gpu"] = 1
    assert LaunchSpec.from_plan(doc).tensor_parallel == 2


def test_a_service_whose_replica_spans_nodes_is_refused_in_one_line() -> None:
    # was: a replica of 16 GPUs (tensor 8 × pipeline 2) on 8-GPU nodes was written as one pod
    # asking for 16 GPUs (never scheduled), one SkyServe cluster of "A100:16", one container of 16
    doc = plan_doc(nodes=2, gpu_count=16)
    doc["workload"] = doc["workload"] | {
        "task": "infer",
        "tensor_parallel": 8,
        "pipeline_parallel": 2,
        "serving": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 10},
    }
    with pytest.raises(
        DeployError,
        match=r"one replica spans 16 GPUs \(tensor_parallel × pipeline_parallel\) but a node has 8",
    ):
        LaunchSpec.from_plan(doc)
    # A training job of the same split runs across the nodes (pipeline stages on each).
    train = dict(doc["workload"], task="train")
    del train["serving"]
    assert LaunchSpec.from_plan(doc | {"workload": train}).pipeline_parallel == 2
    # A replica within one node is written as before.
    doc["workload"]["pipeline_parallel"] = 1
    assert LaunchSpec.from_plan(doc).tensor_parallel == 8


def test_a_service_planned_at_the_planners_split_starts_its_engine_at_it() -> None:
    # A 70B service that states no tensor_parallel was priced as 2 replicas of 8 GPUs; its plan's
    # workload says tensor_parallel: 1 (the default, as every plan writes it), and deploy had started
    # 16 replicas of one GPU each, none of which holds the model.
    doc = plan_doc(nodes=2, gpu_count=16, gpus_per_node=8)
    service = {"requests_per_s": 8.5, "prompt_tokens": 1155, "output_tokens": 211}
    doc["workload"] = doc["workload"] | {"task": "infer", "tensor_parallel": 1, "serving": service}
    doc["recommended"]["service"] = {
        "requests_per_s": 8.5,
        "replicas": 2,
        "replica_gpus": 8,
        "tensor_parallel": 8,
        "tensor_parallel_chosen": True,
    }
    spec = LaunchSpec.from_plan(doc)
    assert spec.tensor_parallel == 8
    assert spec.serving is not None and spec.serving.min_replicas == 2
    # a stated split is the workload's own, and the plan says so
    doc["workload"]["tensor_parallel"] = 8
    doc["recommended"]["service"]["tensor_parallel_chosen"] = False
    assert LaunchSpec.from_plan(doc).tensor_parallel == 8


def test_a_plan_file_with_several_problems_names_them_as_a_workload_file_does() -> None:
    # was: "recommended option is malformed: gpu_count: … (and 1 more)", the others counted, not named
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text

    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(plan_doc(gpu_count=0, nodes=0), source="plan.json")
    assert str(e.value) == (
        "plan.json: recommended option is malformed: gpu_count: Input should be greater than or equal "
        "to 1 (also nodes: Input should be greater than or equal to 1): re-run `gpuplan plan`"
    )
    # past four named, the rest counted, in the workload file's words
    bad = {
        "region": 5,
        "instance_type": 7,
        "gpu_count": 0,
        "nodes": 0,
        "job_time_h": -1,
        "pricing": "x",
        "zone": 1,
    }
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(plan_doc(**bad), source="plan.json")
    said = str(e.value)
    assert said.startswith("plan.json: recommended option is malformed: region: Input should be a valid "), (
        said
    )
    assert "(also zone: Input should be a valid string; instance_type: " in said, said
    assert said.endswith("; and 2 more problems): re-run `gpuplan plan`"), said
    with use_language("zh"):
        zh = error_text(e.value)
    assert "（另外：zone：应为字符串；" in zh and "；另有 2 处问题）" in zh and "more" not in zh, zh
