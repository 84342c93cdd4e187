"""Build gpuplan's shipped catalog snapshot (src/gpuplan/catalog/data/) from public bulk sources.

    python tools/build_snapshot.py [--sources DIR] [--check]

``--sources DIR`` (default: ``../shared/data`` beside the repository) holds the inputs, each named in
``tools/snapshot_manifest.py`` with the public place a maintainer downloads it from:

- ``skypilot_catalog/*.csv``: SkyPilot's public catalog (github.com/skypilot-org/skypilot-catalog,
  ``catalogs/v8/<cloud>/vms.csv``; Azure, Fluidstack, Paperspace and DigitalOcean from ``catalogs/v6``);
- ``reserved_prices/``, ``aws_spot_advisor/``: dated AWS compilations (``tools/snapshot_aws.py``);
- ``instance_types.csv``, ``egress_storage.csv``: instance specs, Chinese-cloud prices, egress and
  storage prices, each row with its public source;
- ``../seeds/``: the two Chinese guide articles whose price tables are kept as low-confidence claims.

It writes the snapshot files whose columns ``gpuplan.catalog.snapshot`` declares, plus two files for
readers: ``skipped.csv`` (every row or figure not shipped, with the reason: nothing is dropped
silently) and ``sources.csv`` (each bulk source: upstream, commit, read date, the bounds of its dates).
The output is deterministic, so a rebuild of unchanged inputs leaves git clean; ``--check`` fails if
the committed files differ from a fresh build.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from pathlib import Path

from gpuplan.catalog.family_gaps import FAMILY_GAPS
from gpuplan.catalog.gpu_names import SNAPSHOT_GPU_NAMES, SNAPSHOT_GPU_OVERRIDES, UNMAPPED_GPU_NAMES
from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers import alibaba, aws, azure, gcp
from gpuplan.catalog.providers.common import InstanceFacts
from gpuplan.catalog.snapshot import COLUMNS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from listed_prices import NO_PUBLIC_PRICE, ListedPrice, read_listed_prices
from snapshot_aws import SOURCES_TABLE as AWS_SOURCES
from snapshot_facts import (
    build_articles,
    build_egress_storage,
    build_facts,
    build_published_region_prices,
    build_published_storage,
)
from snapshot_manifest import BOUNDS, SKYPILOT, SKYPILOT_FORK
from snapshot_skypilot import ACCELERATOR_COLUMNS, accelerator_names, skypilot_offers
from snapshot_sources import gpuhunt_rows
from snapshot_table import UNSPECIFIED_REGION, Snapshot, add_price, num, render

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "src" / "gpuplan" / "catalog" / "data"
#: SkyPilot's accelerator name of each shipped offer's GPU, which ``--target skypilot`` writes.
ACCELERATORS = REPO / "src" / "gpuplan" / "deploy" / "data" / "skypilot_accelerators.csv"


def _network_gbps(text: str) -> float | None:
    """The peak figure of a network cell: 'up to 25' -> 25, '10/4 (max/assured)' -> 10, '24-25' -> 25."""
    text = text.strip()
    if not text:
        return None
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text.split("(")[0])]
    return max(numbers) if numbers else None


# ------------------------------------------------------------------ offers from instance_types.csv
#: Providers whose SkyPilot-format rows are hourly only (their subscription prices come from elsewhere).
FORK_PROVIDERS = frozenset(f.provider for f in SKYPILOT_FORK)


def build_offers(
    snap: Snapshot,
    sources: Path,
    covered: set[tuple[str, str]],
    hourly_only: set[tuple[str, str]],
    hourly_regions: set[tuple[str, str, str]],
) -> None:
    """The instance table's rows (specs, and prices with their dates) for what SkyPilot's catalog
    does not cover: the Chinese clouds, and hyperscaler sizes SkyPilot's files lack. An instance
    type SkyPilot covers is taken from there only (its rows are per region and zone, dated); one
    whose ``hourly_only`` rows (the Chinese clouds' SkyPilot-format catalog) have no subscription
    price keeps this table's monthly price, and its hourly one where those rows hold none of that
    region (``hourly_regions``: a cn-shanghai price of a type the fork prices only elsewhere is no
    price superseded)."""
    path = sources / "instance_types.csv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for line, r in enumerate(rows, start=2):
        provider, itype, gpu_name = r["provider"].strip(), r["instance_type"].strip(), r["gpu"].strip()
        what = f"instance_types.csv:{line} {provider} {itype}"
        if (provider, itype) in covered - hourly_only or (
            (provider, itype) in hourly_only and not r["price_native"].strip().startswith("CNY")
        ):
            figure = r["price_usd_hour"].strip() or r["price_native"].strip()
            snap.skip(
                what,
                "superseded by SkyPilot-format catalog rows for this instance type"
                + (f" (this table's figure: {figure} in {r['price_region'].strip()})" if figure else ""),
            )
            continue
        gpu = SNAPSHOT_GPU_OVERRIDES.get((provider, itype)) or SNAPSHOT_GPU_NAMES.get(gpu_name)
        if gpu is None:
            snap.skip(
                what, UNMAPPED_GPU_NAMES.get(gpu_name, f"GPU name {gpu_name!r} has no hardware mapping")
            )
            continue
        count = num(r["gpu_count"])
        if count is None:
            snap.skip(what, "no GPU count in the source")
            continue
        notes = r["notes"].strip()
        prices: list[dict[str, object]] = []
        price_reason: str | None = None
        region = r["price_region"].strip() or UNSPECIFIED_REGION
        price_date = r["price_date"].strip()
        price_usd = num(r["price_usd_hour"])
        native = r["price_native"].strip()
        suspect = "SUSPECT" in notes
        if price_usd is not None:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", price_date):
                prices.append(
                    {
                        "pricing": "on_demand",
                        "amount": price_usd,
                        "currency": "USD",
                        "unit": "hour",
                        "as_of": price_date,
                        "source": r["price_source"].strip(),
                        # A price the compilation shares with another provider's SKU is suspect.
                        "confidence": "low" if suspect else "secondary",
                        "term": {"note": notes} if suspect else None,
                    }
                )
            else:
                price_reason = (
                    f"on-demand {price_usd:g} USD/h from {r['price_source'].strip()} is undated "
                    f"({price_date}); not shipped as a current price"
                )
                snap.skip(f"{what} on_demand {price_usd:g} USD/h", price_reason)
        elif native.startswith("CNY"):
            m = re.fullmatch(r"CNY ([\d.]+)/h; CNY ([\d.]+)/month", native)
            if not m:
                raise SystemExit(f"{what}: cannot parse native price {native!r}")
            for pricing, amount, unit in (("on_demand", m[1], "hour"), ("monthly", m[2], "month")):
                prices.append(
                    {
                        "pricing": pricing,
                        "amount": float(amount),
                        "currency": "CNY",
                        "unit": unit,
                        "as_of": price_date,
                        "source": r["price_source"].strip(),
                        "confidence": "secondary",
                        "term": {"billing": "monthly subscription"} if pricing == "monthly" else None,
                    }
                )
        elif native:
            price_reason = f"only an undated third-party price ({native}, {r['price_source'].strip()})"
            snap.skip(f"{what} price {native}", price_reason)
        else:
            price_reason = NO_PUBLIC_PRICE.get(provider, "no dated public price found for this instance type")
        if not prices and price_reason is None:
            price_reason = "no dated public price found for this instance type"
        facts = instance_facts(provider, itype)
        offer = {
            "provider": provider,
            "zone": None,
            "instance_type": itype,
            "gpu": gpu,
            "gpu_count": count,
            "vcpus": num(r["vcpus"]),
            "memory_gib": num(r["memory_gib"]),
            "network_gbps": _network_gbps(r["network_gbps"])
            or (facts.network_gbps if facts is not None else None),
            "interconnect": r["interconnect"].strip() or (facts.interconnect if facts is not None else None),
            "network_kind": facts.network_kind if facts is not None else None,
            "local_nvme_gb": facts.local_nvme_gb if facts is not None else None,
            "source": r["source"].strip() + (f"; network/NVMe: {facts.source}" if facts is not None else ""),
            "notes": "; ".join(
                x
                for x in (
                    f"GPU as listed: {gpu_name}",
                    f"network as listed: {r['network_gbps'].strip()}" if r["network_gbps"].strip() else "",
                    f"memory as listed: {r['memory_gib'].strip()}"
                    if num(r["memory_gib"]) is None and r["memory_gib"].strip()
                    else "",
                    notes,
                )
                if x
            ),
        }
        if (provider, itype, region) in hourly_regions:
            for p in [p for p in prices if p["pricing"] == "on_demand"]:
                prices.remove(p)
                snap.skip(
                    f"{what} on_demand {p['amount']:g} {p['currency']}/hour ({region})",
                    "superseded by SkyPilot-format catalog rows for this instance type (newer hourly "
                    "prices per zone); its monthly price is kept",
                )
        snap.add("offers.csv", region=region, price_reason=None if prices else price_reason, **offer)
        for p in prices:
            add_price(snap, provider, region, itype, p)


def instance_facts(provider: str, itype: str) -> InstanceFacts | None:
    """The provider module's sourced facts of an instance type (network kind, NVMe), if it has them."""
    table: dict[str, InstanceFacts] = {
        "aws": aws.INSTANCES,
        "azure": azure.INSTANCES,
        "alibaba": alibaba.INSTANCES,
        "gcp": {k: m.facts for k, m in gcp.MACHINES.items()},
    }.get(provider, {})
    return table.get(itype)


def build_listed_prices(snap: Snapshot) -> None:
    """The transcribed Chinese-cloud list prices: dated rows priced on their instance type, undated
    rows listed in skipped.csv with their figure (an undated price is never shipped)."""
    for p in read_listed_prices():
        what = f"tools/cn_list_prices.csv:{p.line} {p.provider} {p.instance_type} {p.pricing}"
        if not p.dated:
            snap.skip(
                f"{what} {p.amount:g} {p.currency}/{p.unit} ({p.region})",
                f"official figure, but the page states no date: not shipped as a price; {p.cited_source}",
            )
            _note_undated_figure(snap, p)
            continue
        _price_listed_offer(snap, p)
        add_price(
            snap,
            p.provider,
            p.region,
            p.instance_type,
            {
                "pricing": p.pricing,
                "amount": p.amount,
                "currency": p.currency,
                "unit": p.unit,
                "as_of": p.as_of,
                "source": p.cited_source,
                "confidence": p.confidence,
                "term": {"billing": "monthly subscription"} if p.pricing == "monthly" else None,
            },
        )


def _note_undated_figure(snap: Snapshot, p: ListedPrice) -> None:
    """Say in the unpriced offer's reason which undated official figures exist for it."""
    figure = f"{p.pricing} {p.amount:g} {p.currency}/{p.unit}"
    for o in snap.rows["offers.csv"]:
        if (o["provider"], o["instance_type"]) != (p.provider, p.instance_type) or not o["price_reason"]:
            continue
        lead = "specs only: the provider's own price doc lists "
        if o["price_reason"].startswith(lead):
            head, _, tail = o["price_reason"].partition(" (undated")
            o["price_reason"] = f"{head}, {figure} ({p.region}) (undated{tail}"
        else:
            o["price_reason"] = (
                f"{lead}{figure} ({p.region}) (undated: not shipped as a price; the figures and their "
                "pages are in skipped.csv)"
            )


def _price_listed_offer(snap: Snapshot, p: ListedPrice) -> None:
    """Clear the spec-only reason of the offer a listed price belongs to (adding the offer in the
    price's region when the snapshot has the instance type only elsewhere)."""
    same_type = [
        o
        for o in snap.rows["offers.csv"]
        if (o["provider"], o["instance_type"]) == (p.provider, p.instance_type)
    ]
    if not same_type:
        raise SystemExit(
            f"tools/cn_list_prices.csv:{p.line}: {p.provider} {p.instance_type} is not in the snapshot; "
            "add it with its specs to the sources' instance_types.csv first"
        )
    here = [o for o in same_type if (o["region"], o["zone"]) == (p.region, "")]
    if here:
        here[0]["price_reason"] = ""
        return
    offer = dict(same_type[0], region=p.region, zone="", price_reason="")
    snap.rows["offers.csv"].append(offer)
    snap.offer_keys.add((p.provider, p.region, "", p.instance_type))


def build_family_gaps(snap: Snapshot) -> None:
    """The families whose shipped prices lack a pricing model, with the reason
    (``gpuplan.catalog.family_gaps``: catalog messages, written here in English)."""
    for gap in FAMILY_GAPS:
        snap.skip(gap.what, gap.reason)


# ------------------------------------------------------------------ offer rows (SkyPilot, gpuhunt)
def add_offer_rows(snap: Snapshot, rows: list[OfferRow]) -> int:
    """Offer rows (from a SkyPilot catalog or gpuhunt CSV) into the snapshot; returns prices added.

    A region-wide offer comes once per zone line of an AWS file: its prices are added once (the
    first line's source names it)."""
    n = 0
    seen: set[tuple[object, ...]] = set()
    for row in rows:
        key = (row.provider, row.region, row.zone or "", row.instance_type)
        if key not in snap.offer_keys:
            snap.offer_keys.add(key)
            facts = instance_facts(row.provider, row.instance_type)
            snap.add(
                "offers.csv",
                provider=row.provider,
                region=row.region,
                zone=row.zone,
                instance_type=row.instance_type,
                gpu=row.gpu,
                gpu_count=row.gpu_count,
                vcpus=row.vcpus,
                memory_gib=row.memory_gib,
                network_gbps=row.network_gbps or (facts.network_gbps if facts else None),
                interconnect=row.interconnect or (facts.interconnect if facts else None),
                source=row.source,
                price_reason=row.price_reason,
                notes=row.notes,
                network_kind=facts.network_kind if facts else None,
                local_nvme_gb=facts.local_nvme_gb if facts else None,
            )
        for pr in row.prices:
            if (*key, pr.pricing, pr.amount, pr.as_of) in seen:
                continue
            seen.add((*key, pr.pricing, pr.amount, pr.as_of))
            snap.add(
                "prices.csv",
                provider=row.provider,
                region=row.region,
                zone=row.zone,
                instance_type=row.instance_type,
                pricing=pr.pricing,
                amount=pr.amount,
                currency=pr.currency,
                unit=pr.unit,
                as_of=pr.as_of,
                source=pr.source,
                confidence=pr.confidence,
                interruption_band=pr.interruption_band,
                term_json=json.dumps(pr.term, sort_keys=True) if pr.term else None,
            )
            n += 1
    return n


def build_sources_table(snap: Snapshot) -> None:
    """``sources.csv``: each SkyPilot file with its upstream, commit, read date and date bounds."""
    for f in SKYPILOT:
        snap.sources.append(
            {
                "source": f.source,
                "what": f"{f.provider} offers",
                "upstream": f.url,
                "commit": f.commit,
                "read_by": f.read_by,
                "prices_from": f.as_of,
                "evidence": f.bound.evidence,
                "part": f.partial or "every GPU row",
            }
        )
    assert {f.bound for f in SKYPILOT} <= set(BOUNDS)
    snap.sources.extend(AWS_SOURCES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sources",
        type=Path,
        default=REPO.parent / "shared" / "data",
        help="the folder of bulk sources (tools/snapshot_manifest.py names each and its upstream)",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="fail if the committed files differ")
    parser.add_argument("--gpuhunt-csv", type=Path, action="append", default=[], help="PROVIDER=FILE")
    parser.add_argument("--as-of", help="date of the gpuhunt CSVs (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    sources: Path = args.sources.resolve()
    if not (sources / "instance_types.csv").is_file():
        print(f"error: {sources} has no instance_types.csv; pass --sources DIR", file=sys.stderr)
        return 1
    if args.gpuhunt_csv and not args.as_of:
        print("error: --gpuhunt-csv needs --as-of YYYY-MM-DD", file=sys.stderr)
        return 1
    snap = Snapshot()
    rows = skypilot_offers(sources, snap.skip)
    n = add_offer_rows(snap, rows)
    print(f"skypilot: {len(rows)} offer rows, {n} prices")
    covered = {(r.provider, r.instance_type) for r in rows}
    hourly_only = {(r.provider, r.instance_type) for r in rows if r.provider in FORK_PROVIDERS}
    hourly_regions = {(r.provider, r.instance_type, r.region) for r in rows if r.provider in FORK_PROVIDERS}
    build_offers(snap, sources, covered, hourly_only, hourly_regions)
    build_listed_prices(snap)
    build_articles(snap, sources.parent / "seeds")
    build_family_gaps(snap)
    build_egress_storage(snap, sources)
    build_published_storage(snap)
    build_published_region_prices(snap)
    build_facts(snap, sources)
    build_sources_table(snap)
    for spec in args.gpuhunt_csv:
        provider, _, file = str(spec).partition("=")
        hunted, skipped = gpuhunt_rows(Path(file), provider, args.as_of)
        for what in skipped:
            snap.skip(what, "not imported")
        n = add_offer_rows(snap, hunted)
        print(f"gpuhunt {provider}: {len(hunted)} offer rows, {n} prices")
    files = {args.out / name: text for name, text in render(snap).items()}
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=ACCELERATOR_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(accelerator_names(sources, rows))
    files[ACCELERATORS] = buf.getvalue()
    if args.check:
        stale = [
            p.name for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text
        ]
        if stale:
            print(
                f"error: snapshot out of date: {', '.join(stale)}; run tools/build_snapshot.py",
                file=sys.stderr,
            )
            return 1
        print(f"snapshot up to date ({len(snap.skipped)} rows or figures skipped, each with its reason)")
        return 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    counts = ", ".join(f"{n}: {len(snap.rows[n])}" for n in COLUMNS)
    print(f"wrote {args.out} ({counts}; skipped: {len(snap.skipped)}, each with its reason in skipped.csv)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
