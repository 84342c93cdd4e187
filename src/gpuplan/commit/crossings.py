"""Where a schedule buys a workload demand's hours in another country than its data's or its users':
what ``gpuplan tco`` says of each demand, as ``gpuplan plan`` says it of each option
(:mod:`gpuplan.plan.border`, whose rules and words both use).

Crossing the border of mainland China, either way (the data or the users in it, the work outside,
or the data outside and the work in it) keeps its own words, with the rules that govern it
(:func:`border_notes`); every other crossing, for any country, is said from which country to which
(:func:`country_notes`), and the document lists them all under each demand (:func:`places_abroad`).
"""

from __future__ import annotations

from gpuplan.commit.model import Demand, Schedule, TcoProblem
from gpuplan.i18n import _
from gpuplan.i18n.places import place
from gpuplan.plan.border import abroad_words, border_words, crosses_border, crossing_to, data_origins
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
    its data's or its users' (:func:`gpuplan.plan.border.data_origins`), each with its crossing, in
    the order of the places; none where the demand's data's country, or a place's, is not known, or
    the demand is a direct one."""
    if d.job is None:
        return []
    origins = data_origins(d.job)
    out = []
    for provider, region in sorted(places_bought(schedule, d)):
        crossing = crossing_to(origins, region_country(provider, region))
        if crossing is not None and crossing.leaves:
            out.append((provider, region, crossing))
    return out


def border_notes(problem: TcoProblem, schedule: Schedule) -> list[str]:
    """For each workload demand, the places the schedule runs it in (its hourly offers and the
    commitments of its pool) across the border of mainland China from its data or its users
    (:func:`gpuplan.plan.border.crosses_border`), with what that means, in the plan's words
    (:func:`gpuplan.plan.border.border_words`); none where no place crosses, or the countries are not
    known."""
    notes = []
    for d in problem.demands:
        if d.job is None:
            continue
        places = [
            (p, r, c)
            for p, r in sorted(places_bought(schedule, d))
            if crosses_border(d.job, c := region_country(p, r))
        ]
        if words := border_words(d.job, places):
            # TRANSLATORS: a demand's name, and what its data's move across mainland China's border means
            notes.append(_("{name}: {words}").format(name=d.name, words=words))
    return notes


def country_notes(problem: TcoProblem, schedule: Schedule) -> list[str]:
    """For each workload demand whose hours the schedule buys in another country than its data's or
    its users' (:func:`places_abroad`), those places with from which country to which, mainland
    China's border aside (:func:`border_notes` says it with its rules); none where it buys none
    there, or the countries are not known."""
    notes = []
    for d in problem.demands:
        if d.job is None:
            continue
        job = d.job
        said = [
            (place(p, r), c)
            for p, r, c in places_abroad(schedule, d)
            if not crosses_border(job, c.to_country)
        ]
        if not said:
            continue
        # one country the work could be kept in: the data's (first) or the users' only one
        origins = data_origins(job) or ()
        here = region_country(*job.data_location) if job.data_location is not None else None
        keep = origins[0] if len(origins) == 1 or origins[0] == here else None
        # TRANSLATORS: a demand's name, and the places its hours are bought in another country
        notes.append(_("{name}: {words}").format(name=d.name, words=abroad_words(said, keep)))
    return notes
