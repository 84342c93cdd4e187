"""Where a launch may run for the data it reads: never into a region the plan left out for its
countries, and not into one outside mainland China for data in it without a word.

A plan made under ``constraints.countries`` (``--countries CN``: the data stays in mainland China)
recommends only regions in those countries, and a workload file's ``constraints.countries`` are the
plan's: a plan edited by hand to another region, or ``deploy --region`` outside them, is refused
before anything is written, and so is ``deploy --provider`` without ``--region`` where they hold a
constraint (the launch files then name no region, and the cloud may start it in any of its own).
Without a countries constraint, a launch outside mainland China for data in it (``data.location``)
is written with a warning, as the plan's note says it (its rules, their official texts and how to
keep the data in are the plan's note).

So with ``constraints.hosts: provider`` (``--hosts provider``: only machines a provider runs): a
plan edited by hand to a community host, or to a host whose kind its provider does not state, is
refused, and so is ``deploy --provider`` onto one for a workload that asks it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.providers import provider_runs
from gpuplan.catalog.region_countries import country_codes_of, region_country
from gpuplan.errors import DeployError, Phrase
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.i18n.places import place
from gpuplan.vocab import HostRule

if TYPE_CHECKING:
    from gpuplan.workload.spec import ConstraintsSpec

__all__ = [
    "MAINLAND_CHINA",
    "allowed_regions",
    "border_warning",
    "refuse_outside_countries",
    "refuse_unrun_host",
]

#: ISO 3166 alpha-2 code of mainland China (Hong Kong, Macao and Taiwan have codes of their own).
MAINLAND_CHINA = "CN"

#: Regions a refusal for ``--provider`` without ``--region`` names before "and N more".
_REGIONS_SHOWN = 8


def refuse_outside_countries(
    provider: str | None, region: str | None, doc: Mapping[str, Any], *, source: str, plan: bool
) -> None:
    """DeployError where ``provider/region`` is outside the ``constraints.countries`` of ``doc`` (a
    plan document's ISO codes, or a workload file's names), which the plan leaves out; a region whose
    country is not known is left out too, as the plan leaves it. Nothing where no countries are asked
    for or no provider named.

    A workload's provider without a region (``plan=False``): the launch names no region, so the
    cloud may start it in any of the provider's; refused where none of them is in the countries, and
    otherwise told to name one of those that are."""
    constraints = doc.get("constraints")
    countries = constraints.get("countries") if isinstance(constraints, Mapping) else None
    if not isinstance(countries, list) or not countries or not provider:
        return
    codes = list(dict.fromkeys(code for c in countries for code in country_codes_of(str(c))))
    if not region:
        if not plan:
            _refuse_unnamed_region(provider, codes, source)
        return
    country = region_country(provider, region)
    if country in codes:
        return
    fields = {
        "source": source,
        "where": place(provider, region),
        "country": country or "?",
        **_asked(codes),
    }
    if plan:
        raise DeployError.worded(
            N_(
                "{source}: the recommended option runs in {where} (country {country}), outside the "
                "plan's countries ({countries}), which leave that region out: re-run `gpuplan plan`"
            ),
            **fields,
        )
    raise DeployError.worded(
        N_(
            "--region: {where} (country {country}) is outside the workload's constraints.countries "
            "({countries}), which the plan leaves out; choose a region in them (`gpuplan offers "
            "--countries {first}` lists them) or change constraints.countries"
        ),
        **fields,
    )


def allowed_regions(provider: str, regions: Iterable[str], rules: ConstraintsSpec) -> list[str]:
    """The regions of ``regions`` (``provider``'s) that a workload's place rules allow, as the plan
    reads them: in ``constraints.regions`` where it names any, and in ``constraints.countries``
    where it names any (a group such as ``EU`` or ``Asia`` is its members; a region whose country is
    not known is left out, as the plan leaves it; ``cn-hongkong`` is in HK, not CN)."""
    named = set(rules.regions)
    codes = {code for c in rules.countries for code in country_codes_of(c)}
    return [
        r
        for r in regions
        if (not named or r.lower() in named) and (not codes or region_country(provider, r) in codes)
    ]


def refuse_unrun_host(
    provider: str | None,
    region: str | None,
    instance_type: str | None,
    doc: Mapping[str, Any],
    *,
    source: str,
    plan: bool,
) -> None:
    """DeployError where ``doc`` (a plan document or a workload file) asks for ``constraints.hosts:
    provider`` and the offer is not on a machine its provider runs (a community host, or a kind its
    provider's terms do not state: the plan leaves both out). Nothing where it does not ask, or no
    provider is named."""
    constraints = doc.get("constraints")
    hosts = constraints.get("hosts") if isinstance(constraints, Mapping) else None
    if not provider or not isinstance(hosts, str) or hosts.strip().lower() != HostRule.PROVIDER:
        return
    if provider_runs(provider, instance_type or "", region or ""):
        return
    fields = {
        "source": source,
        "where": " ".join(filter(None, [place(provider, region) if region else provider, instance_type])),
    }
    if plan:
        raise DeployError.worded(
            N_(
                "{source}: the recommended option, {where}, is not on a machine its provider runs (a "
                "community host, or a host of unknown kind), which the plan's hosts: provider leaves "
                "out: re-run `gpuplan plan`"
            ),
            **fields,
        )
    raise DeployError.worded(
        N_(
            "{where} is not known to be a machine its provider runs (a community host, or a host of "
            "unknown kind), which the workload's constraints.hosts: provider leaves out; choose an "
            "option `gpuplan plan` recommends, or change constraints.hosts"
        ),
        **fields,
    )


def _asked(codes: list[str]) -> dict[str, object]:
    """The countries ``codes`` as a refusal names them (``countries``: the EU's 27 members as EU, not
    27 codes) and the first of those, for ``gpuplan offers --countries {first}``."""
    named = grouped_codes(tuple(codes))
    return {"countries": listed(named), "first": named[0]}


def _refuse_unnamed_region(provider: str, codes: list[str], source: str) -> None:
    """DeployError for ``--provider`` without ``--region`` under the countries ``codes``: none of the
    provider's regions is in them, or the ones that are, to name one with ``--region``."""
    from gpuplan.catalog.providers import REGISTRY

    module = REGISTRY.get(provider)
    regions = [r.code for r in module.FACTS.regions] if module is not None else []
    inside = [r for r in regions if region_country(provider, r) in codes]
    fields = {"source": source, "provider": provider, **_asked(codes)}
    if not inside:
        raise DeployError.worded(
            N_(
                "--provider {provider}: none of its regions is in the workload's constraints.countries "
                "({countries}), so the plan leaves all of them out; choose a provider with a region in "
                "them (`gpuplan offers --countries {first}` lists them) or change constraints.countries"
            ),
            **fields,
        )
    shown = listed(inside[:_REGIONS_SHOWN])
    more = len(inside) - _REGIONS_SHOWN
    raise DeployError.worded(
        N_(
            "--provider {provider} without --region: the launch files would name no region, so it may "
            "start in any of {provider}'s regions, which the workload's constraints.countries "
            "({countries}) narrow to {regions}: name one with --region"
        ),
        regions=shown if more <= 0 else Phrase(N_("{names} and {n} more"), names=shown, n=more),
        **fields,
    )


def border_warning(provider: str | None, region: str | None, data_location: str | None) -> str:
    """Words for a launch that takes data in mainland China (``data.location``) out of it: the
    region's country is known and is not ``CN``; "" otherwise (an unknown country is not "outside")."""
    if not provider or not region or not data_location or "/" not in data_location:
        return ""
    if region_country(*data_location.split("/", 1)) != MAINLAND_CHINA:
        return ""
    country = region_country(provider, region)
    if not country or country == MAINLAND_CHINA:
        return ""
    return _(
        "the data in {data} leaves mainland China for {where} (country {country}): exporting it is "
        "governed by China's rules on outbound data (the Personal Information Protection Law, the Data "
        "Security Law and the CAC's rules on outbound transfers), which `gpuplan plan` notes with their "
        "official texts; to keep it in, plan with constraints.countries: [CN] (--countries CN)"
    ).format(data=data_location, where=place(provider, region), country=country)
