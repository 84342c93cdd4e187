"""The strict grammars that every value reaching a generated file must match.

A plan file may come from someone else; ``gpuplan deploy`` treats it as data. Each field that ends up
in a Dockerfile, a shell script, a manifest or train.py is checked here against a grammar narrow
enough that no quoting mistake in a generator could turn it into code: no newline, no quote, no
``$``, no backtick, no control or line-separator character. The generators still quote for their
language (shlex, the YAML dumper, json for Python literals); these checks are the second wall.

Sources of the grammars:

* Kubernetes label values: at most 63 characters, ``(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?``
  (kubernetes.io/docs/concepts/overview/working-with-objects/labels/, "Syntax and character set";
  the same regex is ``LabelValueFmt`` in k8s.io/apimachinery ``validation.go``).
* DNS-1123 labels (object names): ``[a-z0-9]([-a-z0-9]*[a-z0-9])?``, at most 63 characters.
* DNS-1123 subdomains (the names of most objects, a PersistentVolumeClaim's among them): at most
  253 characters, ``[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*``
  (kubernetes.io/docs/concepts/overview/working-with-objects/names/, "DNS Subdomain Names";
  ``IsDNS1123Subdomain`` in k8s.io/apimachinery ``validation.go``).
* Container image references: the distribution/reference grammar (github.com/distribution/reference
  ``regexp.go``): lower-case path components joined by ``.``, ``_``, ``__`` or ``-``, an optional
  registry host with port, a tag ``[\\w][\\w.-]{0,127}`` and/or a digest ``@sha256:<64 hex>``.
* Python entry points ``pkg.module:function``: ASCII identifiers only (the user-code protocol).
* Hugging Face Hub model ids ``owner/name``: letters, digits, ``-``, ``_`` and ``.``, at most 96
  characters a part, neither starting nor ending with ``-`` or ``.``, and no ``--`` or ``..`` (the
  Hub's rule for repository names, huggingface_hub ``validate_repo_id``).
* Serving engines as a workload pins them (``vllm==0.8.5``): the engine's name, ``==`` and a
  release of digits, letters, ``.``, ``+`` and ``-`` (the workload spec's own shape).
"""

from __future__ import annotations

import re

from gpuplan.errors import DeployError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.workload.hf_config import HF_REPO_ID, hf_repo_id

__all__ = [
    "ENGINE_PIN",
    "ENTRY_POINT",
    "HF_REPO_ID",
    "K8S_LABEL_VALUE",
    "MAX_TEXT_CHARS",
    "check_image",
    "check_object_name",
    "hf_repo_id",
    "k8s_label_value",
    "plain_text",
    "vm_type",
]

K8S_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
K8S_LABEL_VALUE_MAX_CHARS = 63
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS_SUBDOMAIN_MAX_CHARS = 253
ENTRY_POINT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
#: ``vllm``, ``sglang``, or either pinned: ``vllm==0.8.5``, ``sglang==0.4.6.post1``.
ENGINE_PIN = re.compile(r"(?P<name>vllm|sglang)(?:==(?P<version>\d{1,6}\.\d{1,6}[A-Za-z0-9.+-]{0,40}))?")
#: Cloud names as the providers spell them: ``us-east-1``, ``p4d.24xlarge``, ``Standard_ND96asr_v4``,
#: ``ecs.gn7i-c8g1.2xlarge``, and the catalog's descriptive ``A100 40GB (GPU platform guide table)`` or
#: ``n1-standard-4 + 1x nvidia-tesla-t4`` (a GCP host and its GPU).
CLOUD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()/+:-]{0,127}")
#: A lower-case word (precision, optimizer names): ``amp-bf16``, ``adamw``, ``sgd-momentum``.
WORD = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
#: MIG profile names: ``<slices>g.<memory>gb`` with an optional ``+me`` style suffix.
MIG_PROFILE = re.compile(r"[1-7]g\.\d{1,4}gb(\+[a-z]{1,8})?")

_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
_DOMAIN_PART = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*(?::\d{{1,5}})?)"
IMAGE = re.compile(
    rf"(?:{_HOST}/)?{_COMPONENT}(?:/{_COMPONENT})*(?::[\w][\w.-]{{0,127}})?(?:@sha256:[a-f0-9]{{64}})?",
    re.ASCII,
)
#: Longest image reference accepted (Docker's own limit is 255 for the name part).
MAX_IMAGE_CHARS = 255
#: Longest free text (a model description shown in comments and READMEs).
MAX_TEXT_CHARS = 300

# ---- Ranges of the numbers a launch carries. A plan file may come from someone else, so every number
# is finite (no Inf/NaN reaches train.py or a manifest) and within what a real job can have.
#: Largest per-GPU micro-batch, sequence length and image side accepted (far above any real job).
MAX_BATCH = 1_000_000
MAX_SEQ_LEN = 10_000_000
MAX_IMAGE_SIZE = 65_536
#: Nodes in one job: the largest public training runs use a few thousand 8-GPU nodes.
MAX_NODES = 4096
#: Samples in a data set: 10^15 is a thousand times the largest public text corpora in tokens.
MAX_SAMPLES = 10**15
MAX_EPOCHS = 1_000_000.0
#: A year, in hours and minutes: no plan runs longer, no checkpoint waits longer.
MAX_JOB_HOURS = 8766.0
MAX_CHECKPOINT_INTERVAL_MIN = 525_960.0
MAX_GRADIENT_ACCUMULATION = 100_000
MAX_REPLICAS = 10_000
#: Bounds of an instance's host as the catalog lists it (the largest GPU hosts have a few hundred
#: vCPUs and a few TiB): a figure past them is a bad row, not a machine.
MAX_HOST_VCPUS = 4096.0
MAX_HOST_MEMORY_GIB = 65_536.0
#: Requests one engine replica runs at once: SGLang's largest default ``max_running_requests`` is
#: 4096, vLLM's ``max_num_seqs`` 1024; a larger count is a setting no engine starts with.
MAX_ENGINE_SLOTS = 65_536
#: The mean KV context of a running request an engine's slots were counted at: a request's prompt
#: and answer are each at most 10^7 tokens (``simulate.trace.MAX_TOKENS``), so its context at most
#: twice that.
MAX_ENGINE_CONTEXT_TOKENS = 20_000_000
#: Requests per second one engine replica carries (a plan option's
#: ``service.replica_capacity_requests_per_s``): 10^6 would be each of :data:`MAX_ENGINE_SLOTS`
#: slots finishing a request every 65 ms (65,536 / 10^6 s), far past any engine; more is no plan's.
MAX_REPLICA_REQUESTS_PER_S = 1e6
#: Largest all-in cost of one run a plan may state, USD: a year of 10^4 instances at $10^4 an hour
#: is under 10^12; more is no plan's.
MAX_RUN_COST_USD = 1e12
#: The most yuan per US dollar a plan's stated rate may be (a plan file is data from elsewhere: a
#: rate beyond it is not taken; the CNY has traded near 6 to 8 per dollar since 2005).
MAX_CNY_PER_USD = 100.0

#: Characters that end a line somewhere: Python, YAML 1.1 (NEL, LS, PS), shells, Markdown.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


# The ValueErrors below are raised inside pydantic validators: each carries a Phrase, so that the
# DeployError made from pydantic's error (gpuplan.deploy.reasons) reads in the user's language.


def plain_text(value: str, what: str) -> str:
    """``value`` if it is one printable line of at most MAX_TEXT_CHARS characters, else ValueError."""
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(
            Phrase(
                N_("{what} is {length} characters long (at most {limit})"),
                what=what,
                length=len(value),
                limit=MAX_TEXT_CHARS,
            )
        )
    if _CONTROL.search(value):
        raise ValueError(
            Phrase(
                N_("{what} contains a control character or line break: {value!r}"),
                what=what,
                value=value[:60],
            )
        )
    if any(c in value for c in "`$\"'\\"):
        raise ValueError(
            Phrase(
                N_("{what} contains a quote, backslash, '$' or backtick: {value!r}"),
                what=what,
                value=value[:60],
            )
        )
    return value


def matches(pattern: re.Pattern[str], value: str, what: str, example: str | Phrase) -> str:
    """``value`` if it fully matches ``pattern`` (ASCII), else a ValueError naming ``what``.

    ``example`` is data (``"'us-east-1'"``), or a Phrase where it has words in it."""
    if not value.isascii() or not pattern.fullmatch(value):
        raise ValueError(
            Phrase(
                N_("{what} {value!r} is not valid (expected something like {example})"),
                what=what,
                value=value[:60],
                example=example,
            )
        )
    return value


def check_image(image: str | None, option: str) -> str | None:
    """An image reference from ``--image``/``--base-image``, or DeployError in one line."""
    if image is None:
        return None
    if len(image) > MAX_IMAGE_CHARS or not image.isascii() or not IMAGE.fullmatch(image):
        raise DeployError.worded(
            N_(
                "{option} {image!r} is not a container image reference "
                "(expected e.g. registry.example.com/team/train:1.0 or "
                "pytorch/pytorch:2.7.0-cuda12.8-cudnn9-runtime)"
            ),
            option=option,
            image=image[:60],
        )
    return image


def check_object_name(name: str | None, option: str) -> str | None:
    """The name of an existing Kubernetes object (``--model-cache-pvc``): a DNS-1123 subdomain, or
    DeployError in one line with the nearest valid name (``Model_Cache`` → ``model-cache``)."""
    if name is None:
        return None
    if len(name) <= DNS_SUBDOMAIN_MAX_CHARS and name.isascii() and DNS_SUBDOMAIN.fullmatch(name):
        return name
    # lower case, every other character a dash, no dash or dot at the ends or beside a dot
    near = re.sub(r"[^a-z0-9.]+", "-", name.lower())
    near = re.sub(r"-*\.[-.]*", ".", near).strip("-.")[:DNS_SUBDOMAIN_MAX_CHARS].strip("-.")
    fits = bool(near) and near.isascii() and DNS_SUBDOMAIN.fullmatch(near) is not None
    text = (
        N_(
            "{option} {name!r} is not a Kubernetes object name (lower-case letters, digits, '-' and "
            "'.', beginning and ending with a letter or digit, at most {limit} characters); did you "
            "mean {near!r}?"
        )
        if fits
        else N_(
            "{option} {name!r} is not a Kubernetes object name (lower-case letters, digits, '-' and "
            "'.', beginning and ending with a letter or digit, at most {limit} characters)"
        )
    )
    raise DeployError.worded(text, option=option, name=name[:60], limit=DNS_SUBDOMAIN_MAX_CHARS, near=near)


def k8s_label_value(value: str) -> str | None:
    """``value`` if the Kubernetes API server accepts it as a label value, else None."""
    ok = len(value) <= K8S_LABEL_VALUE_MAX_CHARS and value.isascii() and K8S_LABEL_VALUE.fullmatch(value)
    return value if ok else None


def vm_type(instance_type: str) -> str | None:
    """The VM type name in a catalog instance type, or None when there is none: the value a
    ``node.kubernetes.io/instance-type`` label and SkyPilot's ``instance_type`` take. The catalog's
    descriptive ``A100 40GB (GPU platform guide table)`` has none; GCP's ``n1-standard-4 + 1x
    nvidia-tesla-t4`` (a host and its attached GPU) is the host ``n1-standard-4``."""
    return k8s_label_value(instance_type.split(" + ", 1)[0].strip())
