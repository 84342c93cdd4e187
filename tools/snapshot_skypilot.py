"""The snapshot's SkyPilot part: every GPU offer of SkyPilot's catalog files, dated, gated, traps out.

For each file of ``snapshot_manifest.SKYPILOT`` (checked against its recorded SHA-256) the catalog's
own reader (:func:`gpuplan.catalog.importers.parse_skypilot`) yields offer rows, refusals and caveats.
Then, before anything is written:

- AWS rows get the dated compilations' facts (``snapshot_aws``);
- prices of a source whose figures say nothing reliable (``UNRELIABLE``) are taken out;
- GCP zone rows become regional offers and the cross-row traps take out single prices, the steps
  ``catalog import --skypilot DIR`` runs too (:func:`gpuplan.catalog.importers.prepare.prepare`);
- the store's own gates judge every row (a shipped row that would fail them is skipped here).

Every refusal, caveat and trap becomes a row of ``skipped.csv``; refusals that only say a row is not
a GPU offer (CPU machines, N1 hosts no GPU fits) are counted in one row per file and reason.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from snapshot_aws import aws_extras, read_aws_sources
from snapshot_manifest import SKYPILOT, SkyPilotFile, check_copy

from gpuplan.catalog.gates import offer_problems
from gpuplan.catalog.importers import parse_skypilot
from gpuplan.catalog.importers.prepare import UNRELIABLE, prepare
from gpuplan.catalog.model import OfferRow, RejectedRow
from gpuplan.catalog.providers import REGISTRY, alibaba, aws, azure, gcp, tencent

__all__ = ["ACCELERATOR_COLUMNS", "UNRELIABLE", "accelerator_names", "skypilot_offers"]

#: Reasons that only say a row is no GPU offer: counted per file, not listed one by one.
_BULK = (
    "no accelerator (not a GPU instance)",
    "has no attachable GPU row in zone",
    "is not in gpuplan's hardware catalog",
    "unknown GPU",
    "GPU row with no host row",
    "no region in the source",
    "form factor not stated",
    "memory not stated",
)
Skip = Callable[[str, str], None]
_REPO = Path(__file__).resolve().parent.parent
#: The reason a shipped offer whose every price was taken out carries (the prices are in skipped.csv).
_ALL_TAKEN_OUT = "every price of this row in the source is taken out (skipped.csv)"


def _known_instances() -> dict[tuple[str, str], tuple[str, float]]:
    """The provider modules' sourced instance facts decide the GPU where SkyPilot's name is ambiguous."""
    known: dict[tuple[str, str], tuple[str, float]] = {}
    for provider, table in (("aws", aws.INSTANCES), ("azure", azure.INSTANCES)):
        for itype, f in table.items():
            known[(provider, itype)] = (f.gpu, f.gpu_count)
    for itype, m in gcp.MACHINES.items():
        known[("gcp", itype)] = (m.facts.gpu, m.facts.gpu_count)
    return known


def _provider_facts(row: OfferRow) -> OfferRow:
    """A SkyPilot-format row of Alibaba Cloud or Tencent Cloud with the network and GPU link the
    provider module's sourced tables give its instance type (the files carry neither)."""
    if row.provider == "alibaba" and row.instance_type in alibaba.INSTANCES:
        f = alibaba.INSTANCES[row.instance_type]
        return replace(
            row,
            network_gbps=f.network_gbps,
            network_kind=f.network_kind,
            interconnect=f.interconnect,
            source=f"{row.source}; network and GPU link: {f.source}",
        )
    family = row.instance_type.split(".")[0]
    if row.provider == "tencent" and family in tencent.FAMILIES and row.gpu_count > 1:
        return replace(
            row,
            interconnect=tencent.FAMILIES[family][1],
            source=f"{row.source}; GPU link: {tencent.INSTANCE_DOC}",
        )
    return row


def _bulk_key(reason: str) -> str | None:
    for marker in _BULK:
        if marker in reason:
            return re.sub(
                r"zone \S+|N1 host \S+|GPU '[^']+'|GPU \S+ is", lambda m: m[0].split()[0] + " …", reason
            )
    return None


def _report(f: SkyPilotFile, what: str, rows: tuple[RejectedRow, ...], skip: Skip) -> None:
    counted: Counter[str] = Counter()
    for r in rows:
        key = _bulk_key(r.reason)
        if key is not None:
            counted[key] += 1
        else:
            skip(f"{f.name}:{r.line} {f.provider} {r.instance_type} {r.region}".rstrip(), f"{what}{r.reason}")
    for key, n in sorted(counted.items()):
        skip(f"{f.name}: {n} rows", f"{what}{key}")


def skypilot_offers(sources: Path, skip: Skip) -> list[OfferRow]:
    """Every offer row of the SkyPilot files in ``sources/skypilot_catalog``, ready to ship."""
    folder = sources / "skypilot_catalog"
    known = _known_instances()
    aws_src = read_aws_sources(sources)
    rows: list[OfferRow] = []
    listed: dict[str, set[str]] = {}  # every region a file names, offer or not
    for f in SKYPILOT:
        path = (_REPO / f.kept_in if f.kept_in else folder) / f.name
        problem = check_copy(path, f.sha256)
        if problem:
            raise SystemExit(f"error: {problem}")
        parsed = parse_skypilot(path, f.provider, as_of=f.as_of, source=f.source, known_instances=known)
        _report(f, "", parsed.rejected, skip)
        _report(f, "taken with a caveat: ", parsed.caveats, skip)
        got = list(parsed.rows)
        if f.provider != "vast":  # a refused Vast row names its place as written, not as a region
            listed.setdefault(f.provider, set()).update(
                {r.region for r in got} | {r.region for r in parsed.rejected if r.region}
            )
        if f.provider == "aws":
            regions = {r.code for r in aws.FACTS.regions}
            got, notes = aws_extras(got, aws_src, regions)
            for note in notes:
                skip(f"{f.name} (AWS compilations)", note)
        if f.kept_in:
            got = [_provider_facts(r) for r in got]
        if f.provider in UNRELIABLE:
            for r in got:
                for p in r.prices:
                    skip(
                        f"{f.name}:{r.line} {f.provider} {r.instance_type} {r.region} "
                        f"{p.pricing} {p.amount:g}",
                        UNRELIABLE[f.provider],
                    )
            got = [replace(r, prices=(), price_reason=UNRELIABLE[f.provider]) for r in got]
        rows.extend(got)
    # GCP zone rows per region and the cross-row traps: the library's steps, which `catalog import
    # --skypilot DIR` runs on a newer checkout too (the UNRELIABLE prices above are already out).
    prepared = prepare(rows, all_taken_out=_ALL_TAKEN_OUT)
    for what, why in prepared.taken_out:
        skip(what, why)
    shipped = _gated(list(prepared.rows), skip)
    have = {(r.provider, r.region) for r in shipped}
    for provider, regions in listed.items():
        for region in sorted(regions):
            if (provider, region) not in have:
                skip(
                    f"{provider} region {region}",
                    "listed in the source, but no row there makes a GPU offer (each row's reason above)",
                )
    return shipped


def _gated(rows: list[OfferRow], skip: Skip) -> list[OfferRow]:
    """The rows the store's gates take (a region without a country in the provider's module is
    reported too), each price-less row with the reason it has none."""
    batch_known: dict[tuple[str, str], tuple[str, float]] = {}
    od: dict[tuple[str, str, str], float] = {}
    for r in rows:
        for p in r.prices:
            if p.pricing == "on_demand":
                od[(r.provider, r.region, r.instance_type)] = p.amount
    out: list[OfferRow] = []
    unplaced: Counter[tuple[str, str]] = Counter()
    for r in rows:
        problems = offer_problems(
            r,
            provider=r.provider,
            known_instances=batch_known,
            on_demand_hourly=lambda row: od.get((row.provider, row.region, row.instance_type)),
        )
        if problems:
            skip(f"{r.provider} {r.instance_type} {r.region}", "; ".join(str(p) for p in problems))
            continue
        batch_known.setdefault((r.provider, r.instance_type), (r.gpu, r.gpu_count))
        region = REGISTRY[r.provider].FACTS.region(r.region)
        if region is None:
            unplaced[(r.provider, r.region)] += 1
        out.append(r)
    for (provider, region), n in sorted(unplaced.items()):
        skip(
            f"{provider} region {region}",
            f"{n} offers in a region the {provider} module does not list (no country or city known)",
        )
    return out


#: The shipped table of SkyPilot's accelerator names (gpuplan.deploy.skypilot reads it).
ACCELERATOR_COLUMNS = ("provider", "instance_type", "gpu", "accelerator", "source")
_LINE = re.compile(r"(?:GPU line|, line) (\d+)")


def accelerator_names(sources: Path, rows: list[OfferRow]) -> list[dict[str, str]]:
    """SkyPilot's own name of the GPU of every shipped offer on a cloud SkyPilot launches on, read
    from the ``AcceleratorName`` of the catalog line the offer was priced from (its GCP GPU line):
    one row per (provider, instance type, GPU, name), its source the first such line. SkyPilot
    matches ``resources.accelerators`` against these names, which differ between clouds (Lambda's
    RTX A6000 is ``A6000``, Cudo's ``RTXA6000``)."""
    folder = sources / "skypilot_catalog"
    names: dict[str, dict[int, str]] = {}  # file source -> line -> AcceleratorName
    files = {f.source: f for f in SKYPILOT if REGISTRY[f.provider].FACTS.skypilot_cloud}
    found: dict[tuple[str, str, str, str], tuple[int, str]] = {}
    for r in rows:
        f = next((f for s, f in files.items() if r.source.startswith(s)), None)
        m = _LINE.search(r.source)
        if f is None or m is None:
            continue
        if f.source not in names:
            with ((_REPO / f.kept_in if f.kept_in else folder) / f.name).open(
                newline="", encoding="utf-8"
            ) as fh:
                reader = csv.DictReader(fh)
                by_line = names[f.source] = {}
                for row in reader:  # line_num: the line the row ends on (no row spans lines here)
                    by_line[reader.line_num] = row["AcceleratorName"]
        accelerator = names[f.source].get(int(m[1]), "").strip()
        if not accelerator:
            continue
        key = (r.provider, r.instance_type, r.gpu, accelerator)
        line = int(m[1])
        if key not in found or line < found[key][0]:
            found[key] = (line, f"{f.source}, line {line}")
    return [
        dict(zip(ACCELERATOR_COLUMNS, (*key, source), strict=True))
        for key, (_, source) in sorted(found.items())
    ]
