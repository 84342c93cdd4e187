"""The listing's shortcuts give what the plain code gives: rows and views built without the
dataclass ``__init__``, the snapshot id hashed from bytes."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import fields
from datetime import date
from importlib import resources
from pathlib import Path

import pytest

from gpuplan.catalog import OfferPrice, Store
from gpuplan.catalog.model import _OFFER_PRICE_DEFAULTS, trusted_offer_price
from gpuplan.catalog.query import OfferQuery, OfferView, list_offers
from gpuplan.catalog.snapshot import SNAPSHOT_FILES, snapshot_id
from gpuplan.catalog.store import _age


def test_every_listed_row_is_the_offer_price_its_fields_make(store: Store) -> None:
    names = {f.name for f in fields(OfferPrice)}
    rows = store.offers(include_unpriced=True)
    assert len(rows) > 8000
    for row in rows:
        assert set(vars(row)) == names
        assert row == OfferPrice(**vars(row))
    assert any(r.term for r in rows) and any(r.pricing is None for r in rows)


def test_a_row_given_some_fields_takes_the_defaults_of_the_others(store: Store) -> None:
    row = next(r for r in store.offers() if r.term)
    given = {k: v for k, v in vars(row).items() if k not in _OFFER_PRICE_DEFAULTS}
    built = trusted_offer_price(dict(given))
    assert built == OfferPrice(**given)
    assert set(vars(built)) == {f.name for f in fields(OfferPrice)}


def test_an_unreadable_date_names_every_age_field_a_readable_one_does() -> None:
    # The store's rows take the dict it builds as theirs: the age fields are named either way.
    today = date(2026, 11, 30)
    unreadable, readable = _age("someday", today, 180), _age("2026-01-05", today, 180)
    assert set(unreadable) == set(readable)
    assert unreadable["as_of_precision"] is None and unreadable["staleness"] == "unknown"
    # the fields it named before, as the row's defaults (None) left them
    missing = {"as_of_precision", "age_days", "age_min_days", "age_bound_launch"}
    assert {k for k, v in unreadable.items() if v is None} == missing
    assert all(_OFFER_PRICE_DEFAULTS[k] is None for k in missing)


@pytest.mark.parametrize("currency", ["USD", "CNY"])
def test_every_listed_view_is_the_offer_view_its_fields_make(store: Store, currency: str) -> None:
    names = {f.name for f in fields(OfferView)}
    listing = list_offers(store, OfferQuery(all_regions=True, currency=currency))
    assert len(listing.views) > 8000
    for view in listing.views:
        assert set(vars(view)) == names
        assert view == OfferView(**vars(view))
    assert any(v.floor for v in listing.views)


def test_the_listing_takes_the_latest_price_of_each_offer_and_pricing(store: Store) -> None:
    # The reference: every price row, the latest as_of and then the latest id per (offer, pricing).
    reader = store._query("SELECT id, offer_id, pricing, amount, as_of FROM prices")
    latest: dict[tuple[int, str], tuple[str, int, float]] = {}
    for r in reader:
        key = (r.offer_id, r.pricing)
        if key not in latest or (r.as_of, r.id) > latest[key][:2]:
            latest[key] = (r.as_of, r.id, r.amount)
    keys = store._query("SELECT id, provider, region, zone, instance_type FROM offers")
    offer_of = {(k.provider, k.region, k.zone, k.instance_type): k.id for k in keys}
    listed = store.offers()
    assert len(listed) == len(latest)
    for o in listed:
        assert o.pricing is not None
        as_of, _id, amount = latest[
            (offer_of[(o.provider, o.region, o.zone or "", o.instance_type)], o.pricing)
        ]
        assert (o.as_of, o.price) == (as_of, amount)


def test_the_snapshot_id_is_the_hash_of_the_files_text() -> None:
    # As it was computed from text mode (universal newlines), so that databases keep their snapshot.
    h = hashlib.sha256()
    for name in SNAPSHOT_FILES:
        h.update(name.encode())
        h.update(resources.files("gpuplan.catalog").joinpath("data", name).read_text("utf-8").encode())
    assert snapshot_id() == h.hexdigest()


def test_the_snapshot_id_reads_line_ends_as_text_mode_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # A checkout with CRLF (or CR) line ends names the snapshot a checkout with LF ones does.
    from gpuplan.catalog import snapshot

    lf = snapshot.snapshot_id()
    shipped = snapshot._read_bytes
    for end in (b"\r\n", b"\r"):
        monkeypatch.setattr(snapshot, "_read_bytes", lambda name, end=end: shipped(name).replace(b"\n", end))
        assert snapshot.snapshot_id() == lf


def test_listing_offers_imports_no_provider_module(seeded_db: Path) -> None:
    # The registry imports its 26 modules when a provider's facts are first asked for; the listing
    # reads the rows' provider codes as stored and asks for none.
    code = (
        "import sys\n"
        "from gpuplan.catalog import open_store\n"
        f"rows = open_store({str(seeded_db)!r}).offers(include_unpriced=True)\n"
        "loaded = [m for m in sys.modules if m.startswith('gpuplan.catalog.providers.')]\n"
        "print(len(rows) > 8000, loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "True ['gpuplan.catalog.providers.base']", proc.stdout + proc.stderr
