"""What a saved plan puts against a month that runs it ``runs`` times, by ``gpuplan tco``'s model.

A plan prices one run alone (:mod:`gpuplan.plan`): on a monthly subscription or a reservation that
run is charged a whole month or term, and a dataset that lives in another region is moved in for
it. A month of runs shares both, as the commitment optimiser counts them
(:mod:`gpuplan.commit.model`):

- a committed unit serves every hour of its month, so the month's runs need as many units as
  their GPUs at once: the runs one after another (``runs × the run's hours``) fill
  ``ceil(runs × hours / 730)`` runs' instances at once (``Demand.levels``), each paid a month
  (``PricedOffer.usd_per_unit_month``); what a run pays besides GPU time is paid per run;
- a dataset moved into another region is moved in for every run or once into a copy kept in the
  region's object storage, whichever costs less for the month (:func:`copy_choice`'s rule, over
  one month), where the provider keeps one (``KEPT_COPY_PROVIDERS``) and each run reads the same
  data.

The plan document carries what the month needs besides the run: the recommended option's price,
hours and cost breakdown, and ``data_copy`` (:func:`data_copy_doc`, filled where the service saves
the plan). A plan saved before ``data_copy`` existed moves its dataset in for every run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuplan.commit.model import COMMITMENT_PRICING, RunData, cheaper_way_in
from gpuplan.i18n import _, ngettext
from gpuplan.units import HOURS_PER_MONTH, instances_for

if TYPE_CHECKING:
    from gpuplan.catalog import Store

__all__ = ["PlanMonth", "data_copy_doc", "plan_month"]


@dataclass(frozen=True, kw_only=True)
class PlanMonth:
    """A saved plan's month, USD: ``total_usd`` = ``runs_usd`` + ``commitment_usd`` + ``data_usd``."""

    runs: int
    total_usd: float | None
    """None: the run's cost is not known."""
    runs_usd: float = 0.0
    """What the runs pay one by one: GPU time bought by the hour, and what each pays besides GPU
    time (storage, results back, the dataset in where it is moved in for each run, spot overhead)."""
    commitment_usd: float = 0.0
    """The commitment, once for the month: ``commitment_units`` instances a month each."""
    commitment_units: int = 0
    pricing: str = ""
    data_usd: float = 0.0
    """The dataset copied in once and kept the month in the region's object storage (``data_kept``);
    0 where it is moved in for each run (counted in ``runs_usd``)."""
    data_kept: bool = False
    data_each_run_usd: float | None = None
    """What moving the dataset in for each run would have cost the month, where a copy could be
    kept (the figure the kept copy is compared with); None where none could."""

    @property
    def shared(self) -> bool:
        """Whether the month shares a commitment or a data copy among its runs (else: run × runs)."""
        return self.commitment_usd > 0 or self.data_kept


def _item_usd(option: Mapping[str, Any], component: str) -> tuple[float, int] | None:
    """The option's cost item ``component`` (its USD and multiplier); None where absent or unknown."""
    items = (option.get("cost_breakdown") or {}).get("items") or []
    for item in items:
        if item.get("component") == component and isinstance(item.get("cost_usd"), (int, float)):
            return float(item["cost_usd"]), int(item.get("multiplier") or 1)
    return None


def _run_data(option: Mapping[str, Any]) -> RunData | None:
    """The run's dataset way in as tco's :class:`RunData` (the plan's own figures): None where no
    copy could be kept (no ``data_copy``, or nothing moved in at a price)."""
    copy = option.get("data_copy")
    moved = _item_usd(option, "egress_in")
    if not isinstance(copy, Mapping) or moved is None or moved[0] <= 0:
        return None
    return RunData(
        provider=str(option.get("provider")),
        region=str(option.get("region")),
        transfer_usd=moved[0],
        storage_usd=0.0,
        dataset_in_usd=moved[0],
        copy_in_usd=float(copy["copy_in_usd"]),
        copy_storage_usd_per_month=float(copy["storage_usd_per_month"]),
    )


def _commitment(option: Mapping[str, Any], runs: int) -> tuple[int, float] | None:
    """The committed instances a month of ``runs`` needs and their month, USD; None where the
    option is not committed, is a service (a month of capacity already), or lacks the run's hours
    or price (the month is then counted run by run, the conservative bound)."""
    if option.get("pricing") not in COMMITMENT_PRICING or option.get("service") is not None:
        return None
    hours, per_hour = option.get("job_time_h"), option.get("price_usd_per_hour")
    gpus, per_node = option.get("gpu_count"), option.get("gpus_per_node")
    month = option.get("price_usd_per_month")
    if not (
        isinstance(hours, (int, float)) and hours > 0 and isinstance(gpus, int) and isinstance(per_node, int)
    ):
        return None
    if not isinstance(month, (int, float)):
        if not isinstance(per_hour, (int, float)):
            return None
        month = per_hour * HOURS_PER_MONTH  # a reservation's effective rate, every hour of the month
    # runs one after another; where they do not fit in the month, whole runs at once (Demand.levels)
    at_once = max(1, math.ceil(runs * hours / HOURS_PER_MONTH - 1e-9))
    units = instances_for(at_once * gpus, per_node)
    return units, units * float(month)


def plan_month(option: Mapping[str, Any] | None, total_cost_usd: float | None, runs: int) -> PlanMonth:
    """The month of a plan whose recommended option is ``option`` (the plan document's, as a dict)
    and whose run costs ``total_cost_usd``, run ``runs`` times (module docstring)."""
    if total_cost_usd is None:
        return PlanMonth(runs=runs, total_usd=None)
    option = option or {}
    per_run = float(total_cost_usd)
    commitment = _commitment(option, runs)
    compute = (option.get("cost_breakdown") or {}).get("compute_usd")
    units, committed_usd = 0, 0.0
    if commitment is not None and isinstance(compute, (int, float)):
        # the run's GPU time, its set-up and checkpoint writes included, is the commitment's
        units, committed_usd = commitment
        per_run -= float(compute)
    data = _run_data(option)
    data_usd, kept, each = 0.0, False, None
    if data is not None:
        kept, kept_usd, each = cheaper_way_in(data, months=1, moves=runs)
        if kept:
            per_run -= data.dataset_in_usd
            data_usd = kept_usd
    runs_usd = per_run * runs
    return PlanMonth(
        runs=runs,
        total_usd=runs_usd + committed_usd + data_usd,
        runs_usd=runs_usd,
        commitment_usd=committed_usd,
        commitment_units=units,
        pricing=str(option.get("pricing") or "") if units else "",
        data_usd=data_usd,
        data_kept=kept,
        data_each_run_usd=each,
    )


def month_words(month: PlanMonth, amount: Any) -> str:
    """The month in words, each figure as ``amount(usd)`` writes it (the reader's currency):
    ``30 runs: ¥X run by run + ¥Y commitment once + ¥Z dataset copied in once and kept``; "" where
    it is the run's cost times its runs with nothing shared, or not known."""
    from gpuplan.vocab import pricing_name

    if month.total_usd is None or not month.shared:
        return ""
    parts = [_("{usd} run by run").format(usd=amount(month.runs_usd))]
    if month.commitment_usd > 0:
        parts.append(
            _("{usd} commitment once ({units} × {pricing}, a month)").format(
                usd=amount(month.commitment_usd),
                units=month.commitment_units,
                pricing=pricing_name(month.pricing),
            )
        )
    if month.data_kept and month.data_each_run_usd is not None:
        parts.append(
            _(
                "{usd} dataset copied in once and kept the month in the region's object storage "
                "(rather than {each} moved in for each run)"
            ).format(usd=amount(month.data_usd), each=amount(month.data_each_run_usd))
        )
    said = ngettext("{runs} run: {parts}", "{runs} runs: {parts}", month.runs)
    return said.format(runs=month.runs, parts=" + ".join(parts))


def data_copy_doc(
    document: Mapping[str, Any], store: Store, option: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """``data_copy`` of a plan document's recommended option (or ``option``, another of its
    options: the best on prices known to be current), as tco keeps a copy
    (``adapters._run_data``): where its dataset is moved into the option's region at a price, each
    run reads the same data, and the provider's object storage there keeps a copy: one copy moved
    in (the run's dataset in over its copies) and its storage for a month at the region's
    object-storage price (unknown: the highest the catalog holds, said). None otherwise."""
    from gpuplan.commit.adapters import data_each_run_default, keeps_copy
    from gpuplan.plan.build_inputs import cost_facts_from_store

    option = document.get("recommended") if option is None else option
    workload = document.get("workload")
    if not isinstance(option, Mapping) or not isinstance(workload, Mapping):
        return None
    moved = _item_usd(option, "egress_in")
    size_gb = (workload.get("data") or {}).get("size_gb")
    if moved is None or not isinstance(size_gb, (int, float)) or size_gb <= 0:
        return None
    provider, region = str(option.get("provider")), str(option.get("region"))
    each_run = data_each_run_default(str(workload.get("task")), workload.get("serving") is not None)
    if not keeps_copy(provider, moved[0] > 0, each_run):
        return None
    object_usd, said = cost_facts_from_store(store, [(provider, region)]).object_storage(provider, region)
    return {
        "copy_in_usd": moved[0] / max(1, moved[1]),
        "storage_usd_per_month": float(size_gb) * object_usd,
        "assumptions": [said] if said else [],
    }
