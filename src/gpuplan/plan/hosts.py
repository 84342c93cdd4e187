"""What kind of machine an option's price rents (the provider module's ``OfferTerms.host``: a cloud VM,
a whole server, a marketplace's vetted data centre, a community host, another cloud's machine resold)
and what the plan says of it beside the recommendation.

The ranking prices none of it: a community host's uptime, and how long it keeps its machine listed,
are the host's, and a provider whose terms say nothing is not known to be better. So where the
recommended option is on a community host or a host of unknown kind, the plan names the best option
on a provider-run machine (a cloud VM, bare metal, a vetted data centre, a resold cloud machine) and
what it costs more: unknown is never taken for the best case.

Where a community host is recommended for a workload that brings data to it (``data.location``
given, or a dataset), the recommendation's own lines open with a caution: the machine is an
independent host's, who can read what is on it, and ``--hosts provider`` keeps to machines a
provider runs. The ranking is the user's to choose; where the data is, it is said where the
recommendation is, not only in the host line below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.providers import PROVIDER_RUN, host_kind, host_kind_short, is_provider_run, provider_runs
from gpuplan.i18n import N_, _, format_number, ngettext
from gpuplan.i18n.countries import country_name
from gpuplan.plan.constraints import Reason
from gpuplan.plan.result import Option

if TYPE_CHECKING:
    from gpuplan.plan.candidates import Candidates
    from gpuplan.plan.input_types import BoolArray, IntArray, JobFacts, OfferTable

__all__ = [
    "PROVIDER_RUN",
    "community_data_caution",
    "host_cell",
    "host_kind",
    "host_words",
    "hosts_left_out",
    "hosts_left_out_note",
    "is_provider_run",
    "provider_run_rows",
]

_LONG = {
    "cloud_vm": N_("a cloud VM in the provider's own data centre"),
    "bare_metal": N_("a whole server of the provider's"),
    "secure_cloud": N_("a marketplace's own or vetted data centre"),
    "community_host": N_("a community host (a machine an independent host lists; its uptime is the host's)"),
    "resold": N_("another cloud's machine, resold through an aggregator"),
}


def provider_run_rows(offers: OfferTable, rows: IntArray) -> BoolArray:
    """Which of the offer table's ``rows`` are on a provider-run machine (each distinct row looked
    up once: a plan's candidates repeat their offer once per node count)."""
    t = offers
    distinct, back = np.unique(rows, return_inverse=True)
    run = np.array(
        [provider_runs(str(t.provider[i]), str(t.instance_type[i]), str(t.region[i])) for i in distinct],
        dtype=bool,
    )
    out: BoolArray = run[back].reshape(rows.shape) if distinct.size else np.zeros(rows.shape, dtype=bool)
    return out


def hosts_left_out(cands: Candidates, offers: OfferTable) -> tuple[int, int]:
    """How many hosts (a provider's instance type in a region) ``hosts: provider`` left out, as
    community hosts or hosts of unknown kind, and how many candidates they were: (0, 0) for none."""
    out = cands.reason == tuple(Reason).index(Reason.HOSTS)  # candidates.REASONS' order
    if not out.any():
        return 0, 0
    t = offers
    rows = np.unique(cands.offer[out])
    hosts = {(str(t.provider[i]), str(t.region[i]), str(t.instance_type[i])) for i in rows}
    return len(hosts), int(np.count_nonzero(out))


def hosts_left_out_note(cands: Candidates, offers: OfferTable) -> str:
    """The plan's note on what ``--hosts provider`` left out, so that a cheaper community host it
    kept out is not unsaid ("" where it left out none)."""
    hosts, n = hosts_left_out(cands, offers)
    if hosts == 0:
        return ""
    return ngettext(
        "hosts: {hosts} community or unknown-kind host left out by --hosts provider ({n} candidates): "
        "only machines a provider runs are planned, and a cheaper option may be among them (plan "
        "with --hosts any to see them priced)",
        "hosts: {hosts} community or unknown-kind hosts left out by --hosts provider ({n} candidates): "
        "only machines a provider runs are planned, and cheaper options may be among them (plan "
        "with --hosts any to see them priced)",
        hosts,
    ).format(hosts=format_number(hosts), n=format_number(n))


def host_cell(o: Option) -> str:
    """The option's host kind, short, for a table's cell under a marketplace offer; "" for a cloud VM
    (the common case, left unsaid to keep the table short)."""
    return host_kind_short(o.host_kind)


def host_words(o: Option) -> str:
    """What the option rents and where: ``a community host (…) in Russia (RU)``."""
    kind = (
        _(_LONG[o.host_kind])
        if o.host_kind in _LONG
        else _(
            "a host of unknown kind (its provider's terms do not say whether it is a cloud VM, a data "
            "centre or a community host)"
        )
    )
    if not o.country:
        return _("{kind}, in a country not known").format(kind=kind)
    return _("{kind} in {country} ({code})").format(
        kind=kind, country=country_name(o.country), code=o.country
    )


def community_data_caution(job: JobFacts, o: Option) -> str:
    """Under the recommendation's headline where ``o`` is a community host and the workload brings
    data to it (``data.location`` given, or a dataset): that the machine is an independent host's,
    who can read the data on it, and that ``--hosts provider`` keeps to machines a provider runs;
    "" otherwise (the ranking is not changed: it is the user's to choose)."""
    if o.host_kind != "community_host" or (job.data_location is None and job.dataset_gb <= 0):
        return ""
    return _(
        "caution: a community host, a machine an independent host lists on {provider}: the host can "
        "read the data you put on it; --hosts provider (constraints.hosts: provider) keeps to machines "
        "a provider runs"
    ).format(provider=o.provider)
