"""``catalog import --skypilot DIR`` / ``--gpuhunt DIR``: refresh offline from a folder of catalogs.

A team with a newer checkout of SkyPilot's public catalog (github.com/skypilot-org/skypilot-catalog,
``catalogs/v8/<cloud>/vms.csv``) or of dstack's gpuhunt catalogs (``<provider>.csv``, unzipped from
gpuhunt's ``catalog.zip``) refreshes its catalog from it as ``catalog refresh --from`` does: each
provider's file is read by the catalog's one reader of that layout
(:func:`~gpuplan.catalog.importers.parse_skypilot`, :func:`~gpuplan.catalog.importers.gpuhunt.parse_gpuhunt`),
prepared as the shipped snapshot was (:func:`~gpuplan.catalog.importers.prepare.prepare`: the same
offers, the same traps taken out), and appended in one transaction with its run
(:func:`~gpuplan.catalog.refresh.store_rows`): all of a provider's rows or none, history kept, and
one line per provider. A file that cannot be read changes nothing for its provider; a cloud gpuplan
has no provider for is named in one line and skipped.

Which SkyPilot folder is which provider: the hyperscalers' folders are their codes, the
marketplaces' are :data:`~gpuplan.catalog.importers.skypilot_markets.MARKET_LAYOUTS` (``do`` is
``digitalocean``). A checkout keeps several schema versions (``catalogs/v5`` … ``v8``); each cloud is
read from the newest version that has it (Azure, Fluidstack, Paperspace and DigitalOcean are in
``v6`` only). gpuhunt's files are named by gpuhunt's provider names, which the registry's aliases
spell (``lambdalabs``, ``vastai``, ``datacrunch``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import GpuplanError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import listed

if TYPE_CHECKING:
    from gpuplan.catalog.refresh import RefreshOutcome
    from gpuplan.catalog.store import Store

__all__ = ["CatalogFile", "FileImport", "gpuhunt_files", "import_files", "skypilot_files"]

#: A catalog schema version folder (``v8``: SkyPilot 0.14's CATALOG_SCHEMA_VERSION, sky/skylet/constants.py).
_VERSION = re.compile(r"v(\d+)")


@dataclass(frozen=True)
class CatalogFile:
    """One provider's file in a folder of catalogs."""

    name: str
    """The upstream's name for the cloud: SkyPilot's folder (``do``), gpuhunt's provider (``vastai``)."""
    provider: str | None
    """The registry's code; None when gpuplan has no provider for it."""
    path: Path
    label: str
    """Where it is, relative to the folder given (``catalogs/v8/aws/vms.csv``): named in the source."""
    layout: str
    """``skypilot`` or ``gpuhunt``."""
    outside: bool = False
    """A link that resolves out of the folder given: named, never read."""


def _folder(root: Path, what: Phrase) -> Path:
    if not root.exists():
        raise InputError.worded(N_("{what} folder {path} does not exist"), what=what, path=root)
    if not root.is_dir():
        raise InputError.worded(N_("{what} folder {path} is not a folder"), what=what, path=root)
    return root.resolve()


def _inside(root: Path, path: Path) -> bool:
    """The file lies inside ``root`` once links are resolved (the folder the user named is the
    authority: a link out of it is named and not read, as a replay folder's are)."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop
        return False


def skypilot_provider(folder: str) -> str | None:
    """The registry's provider for SkyPilot's catalog folder ``folder``; None when there is none."""
    from gpuplan.catalog.importers.skypilot import HEADERS
    from gpuplan.catalog.importers.skypilot_markets import MARKET_LAYOUTS

    by_folder = {p: p for p in HEADERS} | {layout.folder: p for p, layout in MARKET_LAYOUTS.items()}
    return by_folder.get(folder)


def skypilot_files(root: Path) -> list[CatalogFile]:
    """The ``vms.csv`` of every cloud in a SkyPilot catalog checkout: ``root`` is the repository
    (``catalogs/v8/aws/vms.csv``), its ``catalogs`` folder, or one version folder (``v8/aws/vms.csv``)."""
    base = _folder(root, Phrase(N_("SkyPilot catalog")))
    versions_in = base / "catalogs" if (base / "catalogs").is_dir() else base
    versions = sorted(
        (p for p in versions_in.iterdir() if p.is_dir() and _VERSION.fullmatch(p.name)),
        key=lambda p: int(p.name[1:]),
        reverse=True,
    )
    folders = versions or [base]  # a version folder given itself
    found: dict[str, CatalogFile] = {}
    for version in folders:
        for cloud in sorted(p for p in version.iterdir() if p.is_dir()):
            vms = cloud / "vms.csv"
            if cloud.name in found or not (vms.is_file() or vms.is_symlink()):
                continue
            found[cloud.name] = CatalogFile(
                name=cloud.name,
                provider=skypilot_provider(cloud.name),
                path=vms,
                label=vms.relative_to(base).as_posix(),
                layout="skypilot",
                outside=not _inside(base, vms),
            )
    if not found:
        raise InputError.worded(
            N_(
                "no SkyPilot catalog in {path}: expected catalogs/v8/<cloud>/vms.csv "
                "(a checkout of github.com/skypilot-org/skypilot-catalog)"
            ),
            path=root,
        )
    return _ordered(found.values())


def gpuhunt_files(root: Path) -> list[CatalogFile]:
    """Every ``<provider>.csv`` in ``root`` (gpuhunt's catalog files, unzipped)."""
    base = _folder(root, Phrase(N_("gpuhunt catalog")))
    found = []
    for csv in sorted(base.glob("*.csv")):
        try:
            provider: str | None = PROVIDERS.cast(csv.stem)
        except NotFoundError:
            provider = None
        found.append(
            CatalogFile(
                name=csv.stem,
                provider=provider,
                path=csv,
                label=csv.name,
                layout="gpuhunt",
                outside=not _inside(base, csv),
            )
        )
    if not found:
        raise InputError.worded(
            N_(
                "no gpuhunt catalog in {path}: expected <provider>.csv files (gpuhunt's catalog.zip unzipped)"
            ),
            path=root,
        )
    return found


def _ordered(files: Sequence[CatalogFile] | object) -> list[CatalogFile]:
    """The registry's order; clouds gpuplan has no provider for last, by name."""
    order = {p: i for i, p in enumerate(PROVIDERS)}
    return sorted(files, key=lambda f: (order.get(f.provider or "", len(order)), f.name))  # type: ignore[arg-type]


@dataclass(frozen=True)
class FileImport:
    """What the import of one file of a folder did: its line, and the rows it lost."""

    outcome: RefreshOutcome
    lost: int = 0
    """Rows a reader would expect taken that were not: refused by a check (a price out of line, a
    mistyped region, the gates) or not readable; rows of what gpuplan does not price (no GPU, an
    accelerator it has no datasheet of: ``RejectedRow.skipped``) are not lost."""


def import_files(
    store: Store, files: Sequence[CatalogFile], *, as_of: str, providers: Sequence[str] = (), now: str
) -> list[FileImport]:
    """Import each file (only ``providers``' when given); one outcome per file, in order."""
    from gpuplan.catalog.refresh import RefreshOutcome, kept_words

    chosen = {PROVIDERS.cast(p) for p in providers}
    missing = chosen - {f.provider for f in files}
    if missing:  # before anything is written
        raise InputError.worded(
            N_("the folder has no catalog file for {providers}"), providers=listed(sorted(missing))
        )
    outcomes = []
    for f in files:
        if chosen and f.provider not in chosen:
            continue
        if f.provider is None:
            upstream = "SkyPilot" if f.layout == "skypilot" else "gpuhunt"
            why = Phrase(
                N_("gpuplan has no provider for {upstream}'s {name} catalog ({label})"),
                upstream=upstream,
                name=f.name,
                label=f.label,
            )
            skipped = Phrase(N_("skipped: {why}"), why=why)
            outcomes.append(
                FileImport(RefreshOutcome.said(skipped, provider=f.name, status="skipped", started_at=now))
            )
            continue
        if f.outside:
            why = Phrase(N_("{label} links out of the folder; not read"), label=f.label)
            failed = Phrase(N_("failed ({what}); {kept}"), what=why, kept=kept_words(store, f.provider))
            outcomes.append(
                FileImport(RefreshOutcome.said(failed, provider=f.provider, status="failed", started_at=now))
            )
            continue
        outcomes.append(_import_one(store, f, f.provider, as_of=as_of, now=now))
    return outcomes


def _import_one(store: Store, f: CatalogFile, provider: str, *, as_of: str, now: str) -> FileImport:
    from gpuplan.catalog.importers import parse_skypilot
    from gpuplan.catalog.importers.gpuhunt import parse_gpuhunt
    from gpuplan.catalog.importers.own import rows_out_of_line
    from gpuplan.catalog.importers.prepare import prepare
    from gpuplan.catalog.importers.price_file import CLI_NAMES, yuan_typed_as_usd
    from gpuplan.catalog.importers.regions import checked_regions
    from gpuplan.catalog.importing import imported_file
    from gpuplan.catalog.refresh import RefreshOutcome, kept_words, store_rows
    from gpuplan.catalog.stored_words import Plural

    upstream = "SkyPilot" if f.layout == "skypilot" else "gpuhunt"
    source = f"{upstream} catalog {f.label} (local copy), as of {as_of}"
    reader = parse_skypilot if f.layout == "skypilot" else parse_gpuhunt
    try:
        parsed = reader(f.path, provider, as_of=as_of, source=source, known_instances=store.known_instances())
        # The checks a one-file import makes (``catalog import FILE``): a yuan provider's file whose
        # figures are yuan typed as dollars is refused whole.
        yuan_typed_as_usd(store, f.path, provider, parsed.rows, CLI_NAMES)
    except GpuplanError as e:
        return FileImport(
            RefreshOutcome.said(
                Phrase(N_("failed ({what}); {kept}"), what=e, kept=kept_words(store, provider)),
                provider=provider,
                status="failed",
                sources=(f.label,),
                started_at=now,
            )
        )
    prepared = prepare(parsed.rows)
    # As in a file import: a region that is a slip of a known one is refused with did-you-mean, one
    # gpuplan does not know is kept and named; a price more than ten times off what the catalog holds
    # for its GPU is refused.
    placed, misplaced, new_regions = checked_regions(prepared.rows, provider)
    kept, out_of_line = rows_out_of_line(placed, store)
    # Kept as words, not text: the run is stored in no language (gpuplan.catalog.stored_words).
    notes: list[object] = []
    if parsed.rejected:
        n = len(parsed.rejected)
        notes.append(Plural("{n} source line not read (no GPU, unknown GPU …)",
                            "{n} source lines not read (no GPU, unknown GPU …)",
                            n, n=n))  # fmt: skip
    if prepared.taken_out:
        n = len(prepared.taken_out)
        notes.append(Plural("{n} price taken out, as the shipped snapshot takes it out (spot not "
                               "below on-demand, SKUs far apart, sources that are not prices)",
                            "{n} prices taken out, as the shipped snapshot takes them out (spot not "
                               "below on-demand, SKUs far apart, sources that are not prices)",
                            n, n=n))  # fmt: skip
    if misplaced:
        n = len({(r.line, r.instance_type) for r in misplaced})  # a line may hold two rows (AWS)
        notes.append(Plural("{n} line refused for a mistyped region ({first})",
                            "{n} lines refused for a mistyped region (first: {first})",
                            n, n=n, first=misplaced[0].worded_reason()))  # fmt: skip
    notes += [Phrase(N_("warning: {what}"), what=w) for w in new_regions]
    if out_of_line:
        n = len(out_of_line)
        first = out_of_line[0]
        notes.append(Plural("{n} price refused, out of line with the catalog's ({first})",
                            "{n} prices refused, out of line with the catalog's (first: {first})",
                            n, n=n, first=first.worded_reason()))  # fmt: skip
    kind = "skypilot" if f.layout == "skypilot" else "gpuhunt"
    outcome = store_rows(
        store,
        provider,
        kept,
        sources=(f.label,),
        notes=notes,
        now=now,
        kind=kind,
        file=imported_file(f.path, f.label),
        as_of=as_of,
    )
    if outcome.status != "ok":
        from gpuplan.catalog.refresh import record
        from gpuplan.catalog.transactions import writing

        with writing(store.engine) as conn:
            record(conn, outcome, import_id=None)
    unread = sum(not r.skipped for r in parsed.rejected)
    refused = len({(r.line, r.instance_type) for r in misplaced}) + len(out_of_line) + outcome.rejected
    return FileImport(outcome, lost=unread + refused)
