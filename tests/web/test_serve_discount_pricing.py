"""The service's discounts name the pricing models they are taken off, as ``catalog discount set
--pricing`` does: on demand by default, spot and reservations only where named."""

from __future__ import annotations

from serve_helpers import Service


def test_a_discount_request_names_its_pricing_models_and_the_list_says_them(service: Service) -> None:
    c, admin = service.client, service.auth("admin")
    r = c.put("/api/v1/catalog/discounts", json={"provider": "azure", "percent": 12}, headers=admin)
    assert r.status_code == 200, r.text
    assert [(d["provider"], d["percent"], d["pricing"]) for d in r.json()["discounts"]] == [
        ("azure", 12, ["on_demand"])  # not spot, not reservations: they were not named
    ]
    r = c.put(
        "/api/v1/catalog/discounts",
        json={"provider": "azure", "percent": 5, "pricing": ["spot", "reserved_1y"]},
        headers=admin,
    )
    assert r.status_code == 200, r.text
    listed = c.get("/api/v1/catalog/discounts", headers=service.auth("read")).json()["discounts"]
    assert sorted((d["percent"], d["pricing"]) for d in listed) == [
        (5, ["spot", "reserved_1y"]),
        (12, ["on_demand"]),
    ]
    # spot prices are discounted by the spot discount only
    offers = c.get("/api/v1/offers?provider=azure&pricing=spot", headers=service.auth("read")).json()[
        "offers"
    ]
    assert offers and {o["discount_percent"] for o in offers if o["price_usd_per_hour"]} == {5}
    gone = c.delete("/api/v1/catalog/discounts?provider=azure&pricing=spot", headers=admin)
    assert gone.status_code == 200, gone.text
    assert sorted((d["percent"], d["pricing"]) for d in gone.json()["discounts"]) == [
        (5, ["reserved_1y"]),
        (12, ["on_demand"]),
    ]


def test_a_misspelt_pricing_model_of_a_discount_is_named(service: Service) -> None:
    admin = service.auth("admin")
    r = service.client.put(
        "/api/v1/catalog/discounts",
        json={"provider": "aws", "percent": 10, "pricing": ["spto"]},
        headers=admin,
    )
    assert (r.status_code, r.json()["field"]) == (400, "pricing"), r.text
    assert "unknown pricing model 'spto'; did you mean 'spot'" in r.json()["message"], r.text
    assert service.client.get("/api/v1/catalog/discounts", headers=admin).json()["discounts"] == []
