"""Each ``gpuplan deploy`` is a new run, with checkpoint storage of its own.

A launch resumes from the newest checkpoint it finds (train.py), which is right for the run it was
written for: a spot reclaim, a failure, a relaunch of the same files. Storage named after the
workload alone would be found again by the next run of the same workload: SkyPilot fetches and
reuses a bucket it made before ("If the bucket already exists and was created by SkyPilot, SkyPilot
will fetch and reuse the bucket, so the same YAML can be reused across runs": SkyPilot docs, "Cloud
Object Storage", https://docs.skypilot.co/en/v0.7.0/reference/storage.html, and the same note in
later versions' "Cloud Buckets" page), and ``kubectl apply`` of
a PersistentVolumeClaim whose name exists keeps the claim and its data. The new run would resume
the finished one's last checkpoint and stop at once on its weights. So a deploy makes a run id
(:func:`new_run_id`), and the storage a run resumes from is named with it, once, in the files
written: relaunching those files resumes that run; deploying again starts another.

A bucket name is also global, across every user of S3 or GCS: the workload's name alone
(``llama7b-lora-checkpoints``) is taken by the first user of an example. :func:`bucket_name` checks
the whole name against the rules of both (and of Azure's containers, which SkyPilot makes for a
bucket there).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets

from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_

__all__ = ["RUN_ID", "bucket_name", "new_run_id"]

#: A run id: the UTC date the deploy made it and 6 random hex digits (``20261206-3fa9c1``): lower
#: case, digits and single dashes, so that it fits a bucket's, a DNS label's and a PVC's names.
RUN_ID = re.compile(r"[0-9]{8}-[0-9a-f]{6}")

#: 3 to 63 characters of lower-case letters, digits and single dashes, a letter or digit at each
#: end: the names all three stores accept. S3 takes 3 to 63 lower-case letters, digits, dots and
#: hyphens, beginning and ending with a letter or digit (AWS, S3 User Guide, "General purpose
#: bucket naming rules"); GCS the same with underscores too (Google Cloud, Cloud Storage docs,
#: "Bucket names"); an Azure container no dash that is not between letters or digits (Microsoft,
#: "Naming and Referencing Containers, Blobs, and Metadata").
_BUCKET = re.compile(r"(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*")
#: Prefixes S3 reserves (xn--, sthree-, amzn-s3-demo-; xn-- cannot occur here: dashes are single)
#: and GCS (goog), in the same pages.
_RESERVED_PREFIXES = ("sthree-", "amzn-s3-demo-", "goog")
#: GCS: no "google" in a name, nor close misspellings of it such as "g00gle" (its "Bucket names").
_RESERVED_WORDS = re.compile(r"go{2}gle|g0{2}gle")


def new_run_id(now: dt.datetime | None = None) -> str:
    """A new run's id: ``now``'s UTC date (the time of the deploy) and 24 random bits, enough that
    two deploys of a workload on one day do not meet (one in 16 million)."""
    when = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    return f"{when:%Y%m%d}-{secrets.token_hex(3)}"


def bucket_name(name: str, run_id: str, suffix: str) -> str:
    """The bucket of run ``run_id`` of the job ``name`` (a DNS label): ``name-run_id-suffix``, the
    name cut to fit 63 characters, a word GCS reserves taken out and a prefix S3 or GCS reserves
    moved behind ``run-``. The whole name is checked; a name that fails is a DeployError."""
    base = _RESERVED_WORDS.sub("", name)
    base = re.sub(r"-+", "-", base).strip("-") or "gpuplan"
    if base.startswith(_RESERVED_PREFIXES):
        base = f"run-{base}"
    tail = f"-{run_id}-{suffix}"
    bucket = base[: 63 - len(tail)].rstrip("-") + tail
    if (
        not _BUCKET.fullmatch(bucket)
        or bucket.startswith(_RESERVED_PREFIXES)
        or _RESERVED_WORDS.search(bucket)
    ):
        raise DeployError.worded(
            N_("bucket name {bucket!r} breaks S3's or GCS's naming rules: rename the job"), bucket=bucket
        )
    return bucket
