"""Extract the openAPIV3Schema of a published CustomResourceDefinition into a JSON schema file.

Used once to write the CRD schemas next to this file (not run by the tests):

    git -C kubeflow/training-operator show 374e88af2:manifests/base/crds/kubeflow.org_pytorchjobs.yaml \
        | python extract_crd_schema.py v1 pytorchjob-kubeflow-v1.schema.json
    git -C kedacore/keda show 8b4f083c:config/crd/bases/keda.sh_scaledobjects.yaml \
        | python extract_crd_schema.py v1alpha1 scaledobject-keda-v1alpha1.schema.json
    git -C prometheus-operator/prometheus-operator show \
        6adcebc50:example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml \
        | python extract_crd_schema.py v1 podmonitor-monitoring-coreos-v1.schema.json

Two changes to the published schema, both to make the check stricter, never looser:
* every object with ``properties`` and no ``x-kubernetes-preserve-unknown-fields`` gets
  ``additionalProperties: false``: kubectl's default ``--validate=strict`` rejects unknown fields,
  where JSON Schema would let them through;
* a pod ``template`` (a full PodTemplateSpec, hundreds of KB) is cut to ``{"type": "object"}``; the
  tests validate it with kubernetes_validate against the core Kubernetes schema instead.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import yaml


def tighten(node: Any, path: tuple[str, ...] = ()) -> Any:
    if isinstance(node, dict):
        if path and path[-1] == "template" and "spec" in node.get("properties", {}):
            return {"type": "object", "description": "PodTemplateSpec: validated with kubernetes_validate"}
        out = {k: tighten(v, (*path, k)) for k, v in node.items()}
        if "properties" in out and not out.get("x-kubernetes-preserve-unknown-fields"):
            out.setdefault("additionalProperties", False)
        if "properties" in out:
            out["properties"] = {k: tighten(v, (*path, k)) for k, v in node["properties"].items()}
        return out
    if isinstance(node, list):
        return [tighten(v, path) for v in node]
    return node


def main() -> None:
    version, out = sys.argv[1], sys.argv[2]
    crd = next(d for d in yaml.safe_load_all(sys.stdin) if d and d.get("kind") == "CustomResourceDefinition")
    schema = next(v["schema"]["openAPIV3Schema"] for v in crd["spec"]["versions"] if v["name"] == version)
    schema = tighten(schema)
    schema["$comment"] = (
        f"{crd['metadata']['name']} {version}, from its published CRD; see extract_crd_schema.py"
    )
    with open(out, "w", encoding="utf-8") as f:
        json.dump(schema, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
