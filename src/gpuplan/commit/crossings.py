"""Where a schedule buys a workload demand's hours in another country than its data's or its users':
what ``gpuplan tco`` says of each demand, as ``gpuplan plan`` says it of each option
(:mod:`gpuplan.plan.border`, whose rule both keep).

Data in mainland China moved out of it keeps its own words, with the rules that govern it
(:func:`border_notes`); every other crossing, for any country, is said from which country to which
(:func:`country_notes`), and the document lists them all under each demand (:func:`places_abroad`).
"""

from __future__ import annotations

from gpuplan.commit.model import Demand, Schedule, TcoProblem
from gpuplan.i18n import _
from gpuplan.i18n.places import place
from gpuplan.plan.border import MAINLAND_CHINA, abroad_words, crossing_to, outbound_words
from gpuplan.plan.region_countries import region_country
from gpuplan.plan.result import CountryCrossing

__all__ = ["border_notes", "country_notes", "places_abroad", "places_bought"]


def places_bought(schedule: Schedule, d: Demand) -> set[tuple[str, str]]:
    """The (provider, region) pairs where the schedule buys demand ``d``'s hours: its hourly offers
    and the commitments of its pool."""
    used = {
        (o.provider, o.region)
        for key, o in schedule.hourly_used.items()
        if key.startswith(f"{d.gpu}/") and key.endswith(f"/{d.name}")
    }
    return used | {(c.offer.provider, c.offer.region) for c in schedule.commitments if c.pool == d.pool}


def places_abroad(schedule: Schedule, d: Demand) -> list[tuple[str, str, CountryCrossing]]:
    """The places (provider, region) where the schedule buys ``d``'s hours in another country than
    its data's or its users' (:attr:`Demand.data_from`), each with its crossing, in the order of the
    places; none where the demand's data's country, or a place's, is not known."""
    out = []
    for provider, region in sorted(places_bought(schedule, d)):
        crossing = crossing_to(d.data_from, region_country(provider, region))
        if crossing is not None and crossing.leaves:
            out.append((provider, region, crossing))
    return out


def _outbound(d: Demand, country: str) -> bool:
    """Whether :func:`border_notes` says of ``d`` that its data leaves mainland China for a place in
    ``country``: its data is in mainland China, the work takes it from there (:attr:`Demand.data_from`,
    as the plan reads it: a run that moves no dataset or results takes none; not known, it may) and
    the place is outside it."""
    return (
        d.data_location is not None
        and region_country(*d.data_location) == MAINLAND_CHINA
        and (d.data_from is None or MAINLAND_CHINA in d.data_from)
        and country not in ("", MAINLAND_CHINA)
    )


def border_notes(problem: TcoProblem, schedule: Schedule) -> list[str]:
    """For each workload demand whose data is in mainland China, the places outside it where the
    schedule runs it (its hourly offers and the commitments of its pool): its data leaves mainland
    China for them, as the plan says of its options (:mod:`gpuplan.plan.border`); none where every
    place is inside, or its country is not known."""
    notes = []
    for d in problem.demands:
        outside = sorted(
            {place(p, r) for p, r in places_bought(schedule, d) if _outbound(d, region_country(p, r))}
        )
        if outside and d.data_location is not None:
            # TRANSLATORS: a demand's name, and what its data's move out of mainland China means
            notes.append(
                _("{name}: {words}").format(name=d.name, words=outbound_words(d.data_location, outside))
            )
    return notes


def country_notes(problem: TcoProblem, schedule: Schedule) -> list[str]:
    """For each workload demand whose hours the schedule buys in another country than its data's or
    its users' (:func:`places_abroad`), those places with from which country to which, mainland
    China's outbound move aside (:func:`border_notes` says it with its rules); none where it buys
    none there, or the countries are not known."""
    notes = []
    for d in problem.demands:
        said = [(place(p, r), c) for p, r, c in places_abroad(schedule, d) if not _outbound(d, c.to_country)]
        if not said or d.data_from is None:
            continue
        # one country the work could be kept in: the data's (first) or the users' only one
        here = region_country(*d.data_location) if d.data_location is not None else None
        keep = d.data_from[0] if len(d.data_from) == 1 or d.data_from[0] == here else None
        # TRANSLATORS: a demand's name, and the places its hours are bought in another country
        notes.append(_("{name}: {words}").format(name=d.name, words=abroad_words(said, keep)))
    return notes
