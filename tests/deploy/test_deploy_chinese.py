"""A Chinese deploy: the READMEs and the comments of launch.sh, the Dockerfile and the manifests read
in Chinese; the commands, keys and code are the English deploy's, byte for byte.

Every test here but the YAML dumper's reads the Chinese of the deploy prose from the compiled catalog
(``locale/zh/LC_MESSAGES/gpuplan.mo``): with a message missing there, its English is left and
``english_left`` names it (``python tools/i18n.py check`` says which).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES, k8s_options, plan_doc, serve_workload, stock_model

from gpuplan.cli import main
from gpuplan.deploy import GeneratedFile, GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.i18n import use_language
from i18n.english_left import english_left

OWN_MODEL = Path(__file__).parents[2] / "examples" / "own-model" / "text-classifier.yaml"
OPTIONS = GenerateOptions(out_dir="/tmp/launch")

#: A fenced code block of a README: its lines are commands (and their comments).
_FENCE = re.compile(r"^```[a-z]*\n(.*?)^```\n", re.S | re.M)
#: A shell comment: a whole line, or after a command and a space.
_COMMENT = re.compile(r"(^|\s+)#( .*)?$")


def _spot(tmp_path: Path) -> LaunchSpec:
    return LaunchSpec.from_plan_json(FIXTURES / "plan_spot_aws.json")


def _multinode(tmp_path: Path) -> LaunchSpec:
    # the stock model: the fixture's own code (mypkg) is not beside it to be copied
    return stock_model(LaunchSpec.from_plan_json(FIXTURES / "plan_multinode_gcp.json"))


def _efa(tmp_path: Path) -> LaunchSpec:
    # 2 x p5.48xlarge on spot: EFA between the nodes, and a PyTorchJob sized for the plan's reclaims.
    doc = plan_doc(
        instance_type="p5.48xlarge",
        gpu="H100-SXM",
        gpu_count=16,
        gpus_per_node=8,
        nodes=2,
        expected_interruptions=6.0,
    )
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    return LaunchSpec.from_plan_json(path)


def _g5(tmp_path: Path) -> LaunchSpec:
    # one g5.48xlarge: launch.sh and the README name AWS's NCCL topology file for it
    doc = plan_doc(instance_type="g5.48xlarge", gpu="A10G", gpu_count=8, gpus_per_node=8, nodes=1)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    return LaunchSpec.from_plan_json(path)


def _serve(tmp_path: Path) -> LaunchSpec:
    spec = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="A100-SXM4-80GB", provider="gcp")
    return spec.with_serving(share_gpu=4)


def _serve_whole(tmp_path: Path) -> LaunchSpec:
    # A GPU to each replica: SkyServe gives every replica whole GPUs (time-sharing is refused), and a
    # workload file gives no capacity figure, so its README says why the count is fixed.
    return LaunchSpec.from_workload(serve_workload(tmp_path), gpu="A100-SXM4-80GB", provider="gcp")


def _serve_plan(tmp_path: Path) -> LaunchSpec:
    # A plan of four replicas with its estimate of one replica's capacity: SkyServe autoscales.
    return LaunchSpec.from_plan_json(FIXTURES / "plan_serve_llama_aws.json")


def _serve_py(tmp_path: Path) -> LaunchSpec:
    # GPT-3 1.3B: a decoder without weights on the Hub: serve.py, and the README says why
    return LaunchSpec.from_workload(serve_workload(tmp_path, model="gpt3-1.3b"), gpu="L4", provider="gcp")


def _own_model(tmp_path: Path) -> LaunchSpec:
    return LaunchSpec.from_workload(OWN_MODEL, gpu="T4", provider="azure", pricing="spot")


def _marketplace(tmp_path: Path) -> LaunchSpec:
    # Vast.ai: SkyPilot names its regions otherwise, so the README says the cloud picks the host.
    return LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="RTX-4090", provider="vast", region="US")


def _batch_plan(tmp_path: Path) -> LaunchSpec:
    # The Llama plan without its serving: block: a batch job of 4 shards, its cost the plan's.
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc)


def _batch_spot(tmp_path: Path) -> LaunchSpec:
    # No plan (no cost), spot, two machines of 4 GPUs, a model split over 2 of them.
    path = tmp_path / "batch.yaml"
    path.write_text("name: b\ntask: infer\nmodel: {preset: bert-base}\ninputs: {batch_size: 4, seq_len: 8}\n")
    spec = LaunchSpec.from_workload(path, gpu="L4", count=4, nodes=2, provider="aws", pricing="spot")
    return spec.model_copy(update={"tensor_parallel": 2})


CASES: list[tuple[str, Callable[[Path], LaunchSpec]]] = [
    (target, make)
    for make in (_spot, _multinode, _own_model, _efa, _g5)
    for target in ("torchrun", "docker", "k8s", "skypilot")
] + [
    ("docker", _serve),
    ("k8s", _serve),
    # SkyServe gives each replica whole GPUs: the time-sharing service is refused (its own test).
    ("skypilot", _serve_whole),
    ("skypilot", _serve_plan),
    ("docker", _serve_py),
    ("k8s", _serve_py),
    ("skypilot", _marketplace),
    ("k8s", _batch_plan),
    ("docker", _batch_plan),
    ("skypilot", _batch_plan),
    ("k8s", _batch_spot),
    ("docker", _batch_spot),
    ("skypilot", _batch_spot),
]


def _files(spec: LaunchSpec, target: str, language: str) -> dict[str, str]:
    options = k8s_options(spec, OPTIONS) if target == "k8s" else OPTIONS
    with use_language(language):
        files: list[GeneratedFile] = generate(spec, target, options)
    return {f.path: f.content for f in files}


def _commands(readme: str) -> list[list[str]]:
    """The commands of each code block, their comments taken off (those are prose)."""
    blocks = []
    for block in _FENCE.findall(readme):
        lines = [_COMMENT.sub("", line) for line in block.splitlines()]
        blocks.append([line for line in lines if line])
    return blocks


def _prose(readme: str) -> list[str]:
    """The lines a reader reads as text: outside code blocks, and the comments inside them."""
    comments = [
        m.group(2) or "" for b in _FENCE.findall(readme) for m in map(_COMMENT.search, b.splitlines()) if m
    ]
    return [line for line in _FENCE.sub("", readme).splitlines() if line.strip()] + comments


#: Files a deploy writes the same in every language: code, packaging, the user's own files.
_VERBATIM = (".py", ".toml", ".txt")
#: A comment that is a command to run (``# RUN pip install …``, ``#   helm upgrade …``): kept as written.
_COMMAND = re.compile(r"^\s*(kubectl|helm|COPY|RUN|export|--type|syntax=)\b")


#: A line of launch.sh that prints a message: the message is prose, in the deploy's language.
_MESSAGE = re.compile(r"""^(\s*echo )('[^\n]*'|"[^\n]*")( >&2)$""")


def _code(text: str) -> list[str]:
    """A script's or manifest's lines without their comments, the messages a script prints masked."""
    lines = (_COMMENT.sub("", line) for line in text.splitlines())
    return [_MESSAGE.sub(r"\1MESSAGE\3", line) for line in lines if line]


def _messages(text: str) -> list[str]:
    """What a script prints to stderr, as written in it (quoted)."""
    return [m.group(2) for m in map(_MESSAGE.match, text.splitlines()) if m]


def _comments(text: str) -> list[str]:
    """The comments written for a reader: on lines that start at the margin (a YAML header, launch.sh's
    notes; not train.py inside a ConfigMap, nor the body of a shell function), commands left out."""
    found = []
    for line in text.splitlines():
        m = _COMMENT.search(line)
        if m and not line[:1].isspace() and not _COMMAND.match(m.group(2) or ""):
            found.append(m.group(2) or "")
    return found


def _readmes(files: dict[str, str]) -> list[str]:
    return sorted(p for p in files if p.endswith("README.md"))


@pytest.mark.parametrize(("target", "make"), CASES, ids=[f"{t}-{m.__name__[1:]}" for t, m in CASES])
def test_a_chinese_readme_has_the_english_commands_and_no_english_prose(
    target: str, make: Callable[[Path], LaunchSpec], tmp_path: Path
) -> None:
    spec = make(tmp_path)
    en, zh = _files(spec, target, "en"), _files(spec, target, "zh")
    assert sorted(en) == sorted(zh)
    # Data stays as written: the job's and the package's names, the model's description, paths.
    allow = [spec.name, spec.model_source, str(OWN_MODEL.parent)]
    for path in _readmes(en):
        assert zh[path] != en[path], path
        assert _commands(zh[path]) == _commands(en[path]), path
        for line in _prose(zh[path]):
            assert english_left(line, allow=allow) == [], (path, line)
    for path in set(en) - set(_readmes(en)):
        if path.endswith(_VERBATIM) or path.startswith("project/"):
            # The job's code, and the user's package: the English deploy's, byte for byte.
            assert zh[path] == en[path], path
            continue
        # launch.sh, Dockerfile, manifests: the same commands and keys, comments in Chinese.
        assert _code(zh[path]) == _code(en[path]), path
        # launch.sh's messages too: the rest print English from code a shell runs (a task's `run`)
        said = [m.strip("'\"") for m in _messages(zh[path])] if path == "launch.sh" else []
        for line in _comments(zh[path]) + said:
            assert english_left(line, allow=allow) == [], (path, line)
        if path.endswith(".yaml"):
            assert list(yaml.safe_load_all(zh[path])), path
    if "launch.sh" in zh:
        script = tmp_path / "launch.sh"
        script.write_text(zh["launch.sh"])
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0


def test_a_chinese_launch_sh_refuses_a_bad_start_in_chinese(tmp_path: Path) -> None:
    # was: launch.sh's comments were Chinese but what it printed was English ("launch.sh: set CKPT_DIR …")
    files = _files(_multinode(tmp_path), "torchrun", "zh")
    script = tmp_path / "launch.sh"
    script.write_text(files["launch.sh"])
    assert len(_messages(files["launch.sh"])) == 5  # interrupted, MASTER_ADDR, NODE_RANK ×2, CKPT_DIR
    bare = {"PATH": "/usr/bin:/bin", "PYTHON": "false"}
    for settings, said in (
        ({}, "launch.sh：请把 MASTER_ADDR 设为 0 号节点的内网 IP 地址\n"),
        ({"MASTER_ADDR": "10.0.0.1"}, "launch.sh：请设置 NODE_RANK"),
        (
            {"MASTER_ADDR": "10.0.0.1", "NODE_RANK": "x"},
            "launch.sh：NODE_RANK 必须是 0 到 1 之间的数字，而不是 'x'\n",
        ),
        ({"MASTER_ADDR": "10.0.0.1", "NODE_RANK": "0"}, "launch.sh：请把 CKPT_DIR（或 --ckpt-dir）设为"),
    ):
        r = subprocess.run(["bash", str(script)], env={**bare, **settings}, capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.startswith(said), (settings, r.stderr)
        assert english_left(r.stderr) == [], r.stderr


def test_the_chinese_torchrun_readme_says_spot_and_resume_in_chinese(tmp_path: Path) -> None:
    readme = _files(_spot(tmp_path), "torchrun", "zh")["README.md"]
    assert "抢占式" in readme  # spot capacity
    assert "检查点" in readme  # checkpoint
    assert "./launch.sh --steps 100" in readme


def test_the_chinese_skypilot_readme_keeps_the_bucket_and_the_launch_command(tmp_path: Path) -> None:
    readme = _files(_spot(tmp_path), "skypilot", "zh")["README.md"]
    assert "sky jobs launch task.yaml" in readme and "/checkpoints" in readme
    assert "抢占" in readme


def test_the_chinese_k8s_readme_names_the_pricing_and_joins_its_notes_without_spaces(tmp_path: Path) -> None:
    readme = _files(_serve(tmp_path), "k8s", "zh")["README.md"]
    assert "（gcp，按量付费）" in readme  # the plan's pricing in words, not the code on_demand
    assert "。 " not in readme  # Chinese sentences follow each other without a space


@pytest.mark.parametrize(("target", "make"), CASES, ids=[f"{t}-{m.__name__[1:]}" for t, m in CASES])
def test_a_chinese_readme_joins_its_sentences_without_a_space(
    target: str, make: Callable[[Path], LaunchSpec], tmp_path: Path
) -> None:
    # SkyServe's scaling paragraph, EFA's interfaces, the Dockerfile's install and the engine's notes
    # had joined their sentences with " " ("…两倍）。 它按…"): Chinese puts none after 。
    files = _files(make(tmp_path), target, "zh")
    spaced = [(p, line) for p in _readmes(files) for line in _prose(files[p]) if "。 " in line]
    assert spaced == [], spaced


def test_yaml_writes_text_in_another_language_as_itself_in_a_block() -> None:
    # Needs no catalog: the dumper alone. was: "#!/bin/sh\\n# \\u542F\\u52A8\\n…" on one quoted line.
    script = "#!/usr/bin/env bash\n# 启动 torchrun\necho ok\n"
    text = dump_documents([{"data": {"launch.sh": script}}], "头注释")
    assert (
        text.startswith("# 头注释\n")
        and "  launch.sh: |\n    #!/usr/bin/env bash\n    # 启动 torchrun\n" in text
    )
    assert yaml.safe_load(text) == {"data": {"launch.sh": script}}


def test_the_configmap_carries_the_chinese_launch_sh_as_a_readable_block(tmp_path: Path) -> None:
    # was: PyYAML wrote a launch.sh with Chinese comments as one double-quoted line of \\u escapes.
    configmap = _files(_spot(tmp_path), "k8s", "zh")["k8s/code-configmap.yaml"]
    assert "  launch.sh: |\n" in configmap and "# 用 torchrun 启动 bert-large-squad" in configmap
    (doc,) = yaml.safe_load_all(configmap)
    assert doc["data"]["launch.sh"] == _files(_spot(tmp_path), "k8s", "zh")["launch.sh"]


def test_an_english_deploy_is_unchanged_by_a_chinese_one_before_it(tmp_path: Path) -> None:
    # The language is per call (a context variable): a zh generation leaves no Chinese behind.
    spec = _spot(tmp_path)
    before = _files(spec, "k8s", "en")
    _files(spec, "k8s", "zh")
    assert _files(spec, "k8s", "en") == before
    assert "Needs a cluster with NVIDIA GPUs" in before["README.md"]


def test_gpuplan_lang_zh_deploy_writes_a_chinese_readme(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = str(FIXTURES / "plan_spot_aws.json")
    for lang, out in (("en", tmp_path / "en"), ("zh", tmp_path / "zh")):
        monkeypatch.setattr(
            sys, "argv", ["gpuplan", "--lang", lang, "deploy", plan, "-t", "docker", "-o", str(out)]
        )
        with pytest.raises(SystemExit) as e:
            main()
        assert e.value.code in (0, None), capsys.readouterr().err
    zh, en = (tmp_path / "zh" / "README.md").read_text(), (tmp_path / "en" / "README.md").read_text()
    assert "Docker 默认" in zh and _commands(zh) == _commands(en)
    zh_docker, en_docker = (
        (tmp_path / "zh" / "Dockerfile").read_text(),
        (tmp_path / "en" / "Dockerfile").read_text(),
    )
    assert "基础镜像" in zh_docker and _code(zh_docker) == _code(en_docker)
