"""Data that an option moves across the border of mainland China (ISO code ``CN``; Hong Kong, ``HK``,
is outside it): the flag each option carries and the plan's one note about it.

The planner prices such a move as any other transfer; what it does not price is said here. A
service whose users are in mainland China (``serving.users_in``) served from outside it moves their
requests out and the answers back in, whatever the data's place: that crosses too. Moving data out
of mainland China is governed by the Personal Information Protection Law (adopted 2021-08-20, in
force 2021-11-01; chapter III, articles 38–40: separate consent, and a security assessment, a
standard contract or a certification), the Data Security Law (adopted 2021-06-10, in force
2021-09-01; articles 21 and 31 on important data), the CAC's Measures for the Security Assessment of
Outbound Data Transfers (Order No. 11, in force 2022-09-01) and its Provisions on Promoting and
Regulating Cross-Border Data Flows (Order No. 16, in force 2024-03-22), which narrowed the Measures'
scope. Sector rules (the automotive data provisions, for one) add to them; the workload says nothing
of its sector, so the notes name the general rules only. Whether a transfer is lawful is not for
gpuplan to judge: the note says that the data crosses, which rules govern it and how to keep it on
one side.

The link: the plan times the dataset's copy at the disk's assumed rate wherever it comes from, and the
results' return not at all. A measurement of mainland China's transnational links found more than
70% of the pairs measured below 1 Mbit/s for more than 5 hours every day, in the direction into
China (packet loss and delay were found in that direction only; Zhu, Man, Wang, Qian, Ensafi,
Halderman, Duan, "Characterizing Transnational Internet Performance and the Great Bottleneck of
China", Proc. ACM Meas. Anal. Comput. Syst., SIGMETRICS 2020, https://doi.org/10.1145/3379479).
Those are public-internet connections in their slow hours, not the dedicated cross-border links
clouds sell, so no figure is changed: the note gives what the data that enters mainland China (the
dataset brought in, or the results sent back in) would take at that rate beside the time the plan
assumes.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuplan.i18n import _, format_hours, format_number, ngettext
from gpuplan.i18n.countries import country_name
from gpuplan.i18n.places import place
from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.region_countries import region_country
from gpuplan.plan.result import CountryCrossing, Option

__all__ = [
    "CROSS_BORDER_PROVISIONS_URL",
    "DATA_SECURITY_LAW_URL",
    "MAINLAND_CHINA",
    "OUTBOUND_MEASURES_URL",
    "PIPL_URL",
    "SLOW_CROSS_BORDER_MBITS",
    "abroad_words",
    "border_cell",
    "border_note",
    "border_words",
    "country_cell",
    "country_note",
    "crosses_border",
    "crossing_to",
    "crossing_words",
    "data_country",
    "data_origins",
    "leaves_country",
    "residency_note",
    "rules_words",
    "users_cross",
]

#: ISO 3166 alpha-2 code of mainland China (Hong Kong, Macao and Taiwan have codes of their own).
MAINLAND_CHINA = "CN"

#: The rate more than 70% of the pairs measured into mainland China from abroad fell below for more
#: than 5 hours a day, Mbit/s (Zhu et al., SIGMETRICS 2020, https://doi.org/10.1145/3379479): the note's
#: illustration of a slow cross-border link; it changes no figure.
SLOW_CROSS_BORDER_MBITS = 1.0

#: The official texts the notes cite. The two laws as the National People's Congress publishes them
#: (npc.gov.cn, the addresses public references to them give, recorded 2026-12-07): the Personal
#: Information Protection Law (President's Order No. 91, 2021-08-20);
PIPL_URL = "http://www.npc.gov.cn/npc/c30834/202108/a8c4e3672c74491a80b53a172bb753fe.shtml"
#: the Data Security Law (President's Order No. 84, 2021-06-10).
DATA_SECURITY_LAW_URL = "http://www.npc.gov.cn/npc/c30834/202106/7c9af12f51334a73b56d7938f99a788a.shtml"
#: The Cyberspace Administration of China's (CAC) rules: the Measures for the Security Assessment of
#: Outbound Data Transfers, Order No. 11 (2022-07-07);
OUTBOUND_MEASURES_URL = "https://www.cac.gov.cn/2022-07/07/c_1658811536396503.htm"
#: the Provisions on Promoting and Regulating Cross-Border Data Flows, Order No. 16 (2024-03-22).
CROSS_BORDER_PROVISIONS_URL = "https://www.cac.gov.cn/2024-03/22/c_1712776611775634.htm"


def data_country(job: JobFacts) -> str | None:
    """The country of ``data.location``; None where it is not given (the data is at the user's site,
    which could be anywhere) or its region's country is not known."""
    if job.data_location is None:
        return None
    return region_country(*job.data_location) or None


def _moves_data(job: JobFacts) -> bool:
    """Whether the job moves any data between ``data.location`` and the GPUs' region."""
    return job.dataset_gb > 0 or job.result_size_gb > 0 or job.results_unpriced


def _data_crosses(job: JobFacts, country: str) -> bool | None:
    """Whether an option in ``country`` moves the job's dataset or results across the border of
    mainland China: True where exactly one of the data and the option is in it and data moves; None
    where either's country is not known (unknown is not taken as "inside")."""
    if not _moves_data(job):
        return False
    here = data_country(job)
    if here is None or not country:
        return None
    return (here == MAINLAND_CHINA) != (country == MAINLAND_CHINA)


def users_cross(job: JobFacts, country: str) -> bool:
    """Whether an option in ``country`` serves users in mainland China (``serving.users_in``) from
    outside it (Hong Kong, Macao and Taiwan included): their requests leave mainland China and the
    answers come back in. False where the option's country is not known."""
    return job.is_service and MAINLAND_CHINA in job.users_in and bool(country) and country != MAINLAND_CHINA


def crosses_border(job: JobFacts, country: str) -> bool | None:
    """Whether an option in ``country`` moves the job's data across the border of mainland China:
    its dataset or results (:func:`_data_crosses`) or its users' requests (:func:`users_cross`);
    None where the data's or the option's country is not known and the users' do not cross."""
    return True if users_cross(job, country) else _data_crosses(job, country)


def data_origins(job: JobFacts) -> tuple[str, ...] | None:
    """The countries the work takes the job's data from, wherever it runs: ``data.location``'s
    country where data moves (dataset in, results back), then a service's users' countries
    (``serving.users_in``, their requests and the answers); empty where nothing moves. None where
    data moves and its country is not known (``data.location`` not given: unknown is not "inside")."""
    origins: list[str] = []
    if _moves_data(job):
        here = data_country(job)
        if here is None:
            return None
        origins.append(here)
    if job.is_service:
        origins += [c for c in job.users_in if c not in origins]
    return tuple(origins)


def leaves_country(job: JobFacts, country: str) -> CountryCrossing | None:
    """Where an option in ``country`` takes the job's data from, for any country
    (:func:`data_origins`). None where ``country`` is not known, or the data's is not."""
    return crossing_to(data_origins(job), country)


def crossing_to(origins: tuple[str, ...] | None, country: str) -> CountryCrossing | None:
    """Work run in ``country`` on data from ``origins`` (:func:`data_origins`): the one rule by which
    ``gpuplan plan`` (each option) and ``gpuplan tco`` (each place a demand's hours are bought in)
    say whether data leaves its country. None where either is not known."""
    if not country or origins is None:
        return None
    return CountryCrossing(from_countries=origins, to_country=country)


def crossing_words(crossing: CountryCrossing) -> str:
    """``data leaves SG for US``: from which countries the data leaves, for which."""
    return _("data leaves {countries} for {country}").format(
        countries=_(", ").join(crossing.left), country=crossing.to_country
    )


def _abroad(o: Option) -> CountryCrossing | None:
    """``o``'s crossing where it takes data out of its country and the mainland-China note
    (:func:`border_note`) does not already say so; None otherwise."""
    crossing = o.data_leaves_country
    if crossing is None or not crossing.leaves or o.crosses_border:
        return None
    return crossing


def country_cell(o: Option) -> str:
    """Under an option that runs the work in another country than its data's or its users' (mainland
    China's border aside, which :func:`gpuplan.report.plan_view.border_cell` says): from which
    country to which; "" for one that does not."""
    crossing = _abroad(o)
    return "" if crossing is None else crossing_words(crossing)


def border_cell(o: Option) -> str:
    """Under an option that moves the data across the border of mainland China, which way: out of it
    (the option is outside, the data in it) or into it; under one that runs the work in another
    country than the data's or the users', from which country to which (:func:`country_cell`); ""
    for one that does neither. The table's words under an option, and beside any option the plan
    names in a line of its own (the best among fresh prices), so that none is named without them."""
    if not o.crosses_border:
        return country_cell(o)
    if o.country == MAINLAND_CHINA:
        return _("data enters mainland China")
    return _("data leaves mainland China")


def country_note(job: JobFacts, options: Sequence[Option]) -> str:
    """One note naming the places among ``options`` that run the work in another country than the
    data's (``data.location``) or the users' (``serving.users_in``), mainland China's border aside
    (:func:`border_note` says it with its rules): from which country to which, that the rules of the
    countries involved may apply, which gpuplan does not judge, and the ``--countries`` that keeps
    the work in the data's country; "" where none does."""
    here = data_country(job) if _moves_data(job) else None
    data_places: list[str] = []
    user_places: list[str] = []
    for o in options:
        crossing = _abroad(o)
        if crossing is None:
            continue
        where = f"{place(o.provider, o.region)} ({crossing.to_country})"
        if here is not None and here != crossing.to_country and where not in data_places:
            data_places.append(where)
        if set(crossing.left) - {here} and where not in user_places:
            user_places.append(where)
    words: list[str] = []
    if data_places and job.data_location is not None and here is not None:
        words.append(
            _(
                "data across a border: the data is in {where} ({country}) and {places} run the work in "
                "another country: the dataset leaves {country} for them and the results come back"
            ).format(where=place(*job.data_location), country=here, places=_(", ").join(data_places))
        )
    if user_places:
        words.append(
            _(
                "data across a border: your users are in {countries} (serving.users_in) and {places} "
                "serve them from another country: their requests leave their country and the answers "
                "come back"
            ).format(countries=_(", ").join(job.users_in), places=_(", ").join(user_places))
        )
    if not words:
        return ""
    keep = here if here is not None else (job.users_in[0] if len(job.users_in) == 1 else None)
    return _("; ").join([*words, *_abroad_tail(keep)])


def _abroad_tail(keep: str | None) -> list[str]:
    """What is said after data leaving its country for another: that the rules of both may apply,
    that gpuplan does not judge them, and the ``--countries`` that keeps the work in ``keep``."""
    words = [
        _(
            "the rules on data leaving a country (personal data above all) of the countries it leaves "
            "and enters may apply; gpuplan prices the transfer but does not judge whether it is lawful"
        )
    ]
    if keep is not None:
        words.append(_("to keep the work in {country}: --countries {country}").format(country=keep))
    return words


def abroad_words(places: Sequence[tuple[str, CountryCrossing]], keep: str | None) -> str:
    """For a demand whose hours ``gpuplan tco`` buys in ``places`` (a place's words and its crossing,
    :func:`crossing_to`), in another country than its data's or its users': from which country to
    which for each, as the plan says of its options (:func:`country_note`), and the ``--countries``
    that keeps the work in ``keep`` (None: no one country does)."""
    where = _(", ").join(
        _("{place} ({crossing})").format(place=at, crossing=crossing_words(c)) for at, c in places
    )
    head = _(
        "data across a border: its hours are bought in another country than its data's or its "
        "users': {places}"
    ).format(places=where)
    return _("; ").join([head, *_abroad_tail(keep)])


def border_note(job: JobFacts, options: Sequence[Option]) -> str:
    """One note naming the places among ``options`` (the recommended, the listed and the Pareto
    front) whose option moves the data across the border of mainland China (``Option.crosses_border``,
    set once when the option was made): :func:`border_words` of them; "" where none does."""
    return border_words(job, [(o.provider, o.region, o.country) for o in options if o.crosses_border])


def border_words(job: JobFacts, places: Sequence[tuple[str, str, str]]) -> str:
    """What running ``job`` in ``places`` (provider, region, country), each across the border of
    mainland China (:func:`crosses_border`), means: the dataset's and results' way, the users'
    requests' way, the rules, and how to keep it on one side; the words ``gpuplan plan`` says of its
    options and ``gpuplan tco`` of the places it buys a demand's hours in. "" where none crosses."""
    data_places: list[str] = []
    user_places: list[str] = []
    clouds: set[str] = set()
    for provider, region, country in places:
        where = place(provider, region)
        clouds.add(provider)
        if _data_crosses(job, country) and where not in data_places:
            data_places.append(where)
        if users_cross(job, country) and where not in user_places:
            user_places.append(where)
    if not data_places and not user_places:
        return ""
    here = data_country(job)
    outward = here == MAINLAND_CHINA
    words: list[str] = []
    if data_places and job.data_location is not None:
        words.append(
            (
                _(
                    "mainland-China border: the data is in {where} and {places} are outside mainland "
                    "China: the dataset leaves mainland China for them and the results come back in"
                )
                if outward
                else _(
                    "mainland-China border: the data is in {where}, outside mainland China, and {places} "
                    "are in it: the dataset enters mainland China (the rules of the country it leaves "
                    "apply) and the results leave it"
                )
            ).format(where=place(*job.data_location), places=_(", ").join(data_places))
        )
    if user_places:
        words.append(
            _(
                "mainland-China border: your users are in mainland China (serving.users_in) and {places} "
                "are outside it: their requests, which may hold personal information, leave mainland "
                "China and the answers come back in"
            ).format(places=_(", ").join(user_places))
        )
    words += [rules_words(), _("gpuplan prices the transfer but does not judge whether it is lawful")]
    if clouds & {"aws", "azure"}:
        words.append(
            _(
                "AWS and Azure here are their global clouds; AWS China and Azure China (operated by "
                "21Vianet) are separate clouds with their own accounts, which the catalog does not hold"
            )
        )
    if data_places and (job.dataset_gb > 0 or job.result_size_gb > 0):
        words.append(_link_words(job, job.result_size_gb if outward else job.dataset_gb))
    keep = (
        _("to keep the data inside mainland China: --countries CN")
        if outward or user_places
        else _("to keep the data out of mainland China: --countries {country}").format(country=here)
    )
    words.append(keep)
    return _("; ").join(words)


def _link_words(job: JobFacts, inbound_gb: float) -> str:
    """The rate the plan times the dataset's copy at, beside what the ``inbound_gb`` that enter
    mainland China would take at :data:`SLOW_CROSS_BORDER_MBITS` (the slow direction measured)."""
    head = _(
        "the plan times the dataset's copy at {gbps} GB/s ({copy}) and the results' return not at all, "
        "as within a cloud; cross-border links are often far slower: a measurement of 2020 found most "
        "connections into mainland China from abroad below {mbits} Mbit/s for more than 5 hours a day "
        "(Zhu et al., 'Characterizing Transnational Internet Performance and the Great Bottleneck of "
        "China', ACM SIGMETRICS 2020, doi:10.1145/3379479)"
    ).format(
        gbps=f"{job.checkpoint_write_gbps:g}",
        copy=format_hours(job.dataset_copy_h),
        mbits=f"{SLOW_CROSS_BORDER_MBITS:g}",
    )
    if inbound_gb <= 0:
        return head
    return _("{head}; at that rate the {gb} GB that enter mainland China would take {time}").format(
        head=head,
        gb=format_number(inbound_gb),
        time=format_hours(inbound_gb * 8000.0 / SLOW_CROSS_BORDER_MBITS / 3600.0),
    )


def rules_words() -> str:
    """The general rules on data leaving mainland China, with the official texts a reader can open."""
    return _(
        "data leaving mainland China is governed by the Personal Information Protection Law (articles "
        "38–40: separate consent, and a CAC security assessment, a standard contract or a certification; "
        "{pipl}), the Data Security Law (important data; {dsl}), the CAC's Measures for the Security "
        "Assessment of Outbound Data Transfers (2022; {measures}) and its Provisions on Promoting and "
        "Regulating Cross-Border Data Flows (2024, which exempt some transfers; {provisions})"
    ).format(
        pipl=PIPL_URL,
        dsl=DATA_SECURITY_LAW_URL,
        measures=OUTBOUND_MEASURES_URL,
        provisions=CROSS_BORDER_PROVISIONS_URL,
    )


def residency_note(job: JobFacts, countries: tuple[str, ...] | None, left_out: int) -> str:
    """Where the countries asked for (ISO codes) are the one of ``data.location``, keeping the GPUs there:
    how many candidates that left out (``left_out``, counted under the ``country`` reason) and why,
    and that cheaper options may be among them, so that nothing cheaper goes unsaid; for data in
    mainland China, the rules it keeps to. "" where no candidate was left out for it."""
    here = data_country(job)
    if here is None or set(countries or ()) != {here} or left_out <= 0 or job.data_location is None:
        return ""
    head = ngettext(
        "data kept in {country}: the data is in {where} and the countries asked for ({countries}) keep "
        "the GPUs there: {n} candidate elsewhere was left out for that, and a cheaper option may be "
        "among them (plan without --countries to see them priced)",
        "data kept in {country}: the data is in {where} and the countries asked for ({countries}) keep "
        "the GPUs there: {n} candidates elsewhere were left out for that, and cheaper options may be "
        "among them (plan without --countries to see them priced)",
        left_out,
    ).format(
        country=_("mainland China") if here == MAINLAND_CHINA else country_name(here),
        where=place(*job.data_location),
        countries=_(", ").join(countries or ()),
        n=format_number(left_out),
    )
    if here != MAINLAND_CHINA:
        return head
    return _("; ").join(
        [
            head,
            _("Hong Kong, Macao and Taiwan are outside mainland China for this"),
            rules_words(),
        ]
    )
