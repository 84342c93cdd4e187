"""A GPU's lowest on-demand price per GPU-hour in a catalog, with where and when it is from.

The estimator's "use a bigger GPU" advice ranks the GPUs that fit by what a step costs at this
price and quotes it; a bare figure read as today's price of any host, where the cheapest offer may be
a marketplace host whose price is of unknown age. So the price travels with its offer's provider,
region, instance type, date and age (as :class:`~gpuplan.catalog.model.OfferPrice` has them), and
an unknown one with the reason (:func:`gpuplan.catalog.query.on_demand_gpu_hours` builds them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuplan.catalog.age_words import price_age_words
from gpuplan.catalog.model import OfferPrice, PricingModel
from gpuplan.i18n import N_, _, current_money
from gpuplan.i18n.places import place

__all__ = [
    "NO_ON_DEMAND_OFFER",
    "ON_DEMAND_LOW_CONFIDENCE",
    "ON_DEMAND_UNPRICED",
    "GpuHourPrice",
]

#: Why a GPU of the catalog has no on-demand price per GPU-hour (English; shown translated).
NO_ON_DEMAND_OFFER = N_("the catalog has no on-demand offer of it")
ON_DEMAND_LOW_CONFIDENCE = N_(
    "its only on-demand prices are low-confidence (the two published Chinese GPU guide articles' "
    "2024 price tables)"
)
ON_DEMAND_UNPRICED = N_("its on-demand offers have no price in USD")


@dataclass(frozen=True, kw_only=True)
class GpuHourPrice:
    """One GPU's lowest on-demand USD per GPU-hour in a catalog and the offer it is read from;
    ``price_usd_per_gpu_hour`` None (with ``price_reason``) where none of its offers gives one."""

    gpu: str
    """Canonical GPU id."""
    price_usd_per_gpu_hour: float | None
    """USD per GPU-hour, the user's negotiated discount applied (as the offer's own figure)."""
    price_reason: str | None = None
    """Why the price is unknown (English; :meth:`said` translates it); None with a price."""
    pricing: str = PricingModel.ON_DEMAND.value
    provider: str | None = None
    region: str | None = None
    zone: str | None = None
    instance_type: str | None = None
    as_of: str | None = None
    """The price's date at its source's precision, or the bounds of an undated one
    (``2025-03/2026-12-02``; :mod:`gpuplan.catalog.dates`)."""
    age_days: int | None = None
    """The oldest the price can be on the day the catalog was opened, days; None when undated."""
    age_bound_launch: str | None = None
    """``YYYY-MM``: the GPU's launch month where it, not ``as_of``, bounds the age."""
    staleness: str | None = None
    """``fresh``, ``stale`` or ``unknown`` against ``stale_after_days`` (None without a price)."""
    stale: bool | None = None
    """Not known to be within the staleness limit: older, or of unknown age (None without a price)."""
    stale_after_days: int | None = None
    source: str | None = None
    gpus_per_instance: float | None = None
    """GPUs the offer's instance rents as one (a marketplace box of 8 rents only as 8); None where
    the price was not read as an instance's (:meth:`of_offer`)."""
    price_usd_per_instance_hour: float | None = None
    """What the instance costs an hour, ``price_usd_per_gpu_hour × gpus_per_instance``: what a job
    on fewer of its GPUs still pays (None as ``gpus_per_instance``)."""
    job_gpus: int | None = None
    """The GPUs the job uses, that the instance was picked to hold (None as ``gpus_per_instance``)."""

    @classmethod
    def of_instance(cls, offer: OfferPrice, usd_per_instance_hour: float, job_gpus: int) -> GpuHourPrice:
        """The price of renting one instance of ``offer`` for a job of ``job_gpus`` GPUs: an 8-GPU
        box costs its 8 GPUs' price an hour whatever the job uses of it."""
        return replace(
            cls.of_offer(offer),
            gpus_per_instance=offer.gpu_count,
            price_usd_per_instance_hour=usd_per_instance_hour,
            job_gpus=job_gpus,
        )

    def job_usd_per_hour(self, gpus: int) -> float | None:
        """What ``gpus`` GPUs of this offer cost an hour: the instance's price where it was read as
        one holding them, else ``gpus`` × the price per GPU-hour; None without a price."""
        if self.price_usd_per_instance_hour is not None and (self.job_gpus or 0) >= gpus:
            return self.price_usd_per_instance_hour
        if self.price_usd_per_gpu_hour is None:
            return None
        return self.price_usd_per_gpu_hour * gpus

    @classmethod
    def of_offer(cls, offer: OfferPrice) -> GpuHourPrice:
        """The price of ``offer`` per GPU-hour, where and when it is from."""
        return cls(
            gpu=offer.gpu,
            price_usd_per_gpu_hour=offer.conservative_usd_per_gpu_hour(),
            pricing=offer.pricing or PricingModel.ON_DEMAND.value,
            provider=offer.provider,
            region=offer.region,
            zone=offer.zone,
            instance_type=offer.instance_type,
            as_of=offer.as_of,
            age_days=offer.age_days,
            age_bound_launch=offer.age_bound_launch,
            staleness=offer.staleness,
            stale=offer.stale,
            stale_after_days=offer.stale_after_days,
            source=offer.source,
        )

    @classmethod
    def unknown(cls, gpu: str, reason: str) -> GpuHourPrice:
        """No on-demand price per GPU-hour of ``gpu``, for ``reason`` (an ``N_`` message)."""
        return cls(gpu=gpu, price_usd_per_gpu_hour=None, price_reason=reason)

    def where(self) -> str:
        """``lium/UA``, ``vast/HR (Croatia)``: the offer's provider and region (and zone), as
        ``gpuplan offers`` shows them; '' without a price."""
        if self.provider is None or self.region is None:
            return ""
        return place(self.provider, self.region) + (f" ({self.zone})" if self.zone else "")

    def age_said(self) -> str:
        """The price's age in the words of ``plan`` and ``offers``: ``5 mo old``, ``stale (1.8 y)``,
        ``age unknown (up to 21 mo)``, ``date unknown``."""
        return price_age_words(self.age_days, self.staleness, self.gpu, self.age_bound_launch)

    def said(self) -> str:
        """``$0.28/GPU-h on demand at lium/UA, as of 2025-03–2026-12-02: age unknown (up to 21
        mo)``; an unknown price with its reason."""
        if self.price_usd_per_gpu_hour is None:
            return _("on-demand price unknown: {reason}").format(
                reason=_(self.price_reason or ON_DEMAND_UNPRICED)
            )
        # In the currency the output is shown in (``--currency``), at its dated rate.
        price = current_money().format(self.price_usd_per_gpu_hour)
        if self.where() and self.whole_instance_said():
            # The whole instance is what is paid: its per-GPU figure alone had read as the price
            # of one GPU (an 8-GPU B200 box's $4.40 for a one-GPU job that pays $35.20 an hour).
            instance = current_money().format(self.price_usd_per_instance_hour or 0.0)
            fields = {
                "instance_price": instance,
                "instance_type": self.instance_type or "?",
                "n": self.gpus_per_instance,
                "price": price,
                "where": self.where(),
                "age": self.age_said(),
            }
            if self.as_of is None:
                return _(
                    "{instance_price}/h on demand for one {instance_type} ({n:g} GPUs, {price}/GPU-h) "
                    "at {where}: {age}"
                ).format(**fields)
            return _(
                "{instance_price}/h on demand for one {instance_type} ({n:g} GPUs, {price}/GPU-h) "
                "at {where}, as of {as_of}: {age}"
            ).format(as_of=self.as_of.replace("/", "–"), **fields)
        if not self.where():  # a figure given without its offer (``gpuplan.api.estimate``)
            return _("{price}/GPU-h on demand ({source}; place and date not stated)").format(
                price=price, source=_(self.source or "given")
            )
        if self.as_of is None:
            return _("{price}/GPU-h on demand at {where}: {age}").format(
                price=price, where=self.where(), age=self.age_said()
            )
        return _("{price}/GPU-h on demand at {where}, as of {as_of}: {age}").format(
            price=price, where=self.where(), as_of=self.as_of.replace("/", "–"), age=self.age_said()
        )

    def whole_instance_said(self) -> bool:
        """Whether the offer's instance holds more GPUs than the job uses, so that what is paid is
        the instance's price, not the GPUs' the job uses."""
        return (
            self.price_usd_per_instance_hour is not None
            and self.gpus_per_instance is not None
            and self.job_gpus is not None
            and self.gpus_per_instance > self.job_gpus
        )
