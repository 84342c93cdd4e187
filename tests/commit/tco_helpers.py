"""What the tco tests build their offers from."""

from __future__ import annotations

from gpuplan.commit import PricedOffer


def priced_offer(
    region: str = "far", usd_per_hour: float = 1.0, pricing: str = "on_demand", **kw: object
) -> PricedOffer:
    """One GPU of provider ``p``'s instance ``i1`` (GPU ``G``) in ``region`` at ``usd_per_hour``."""
    return PricedOffer(
        provider="p",
        region=region,
        instance_type="i1",
        gpu="G",
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd_per_hour,
        **kw,  # type: ignore[arg-type]
    )
