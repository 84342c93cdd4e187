"""Data moved across the border of mainland China: each option says whether it moves the job's data
across (``crosses_border``; None where the data's place is not known, never "inside"), and the plan
says so once, naming the places, the rules that govern it, that gpuplan does not judge them, the
rate the copy is timed at beside a measured cross-border one, and how to keep the data on its side.
A plan had recommended AWS in Ohio for data in Shenzhen, pricing the bytes, with no word of it."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from plan_helpers import AWS_TIERS, offer, toy_estimator

from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.plan import (
    Constraints,
    CostFacts,
    JobFacts,
    OfferTable,
    Plan,
    PlanInfeasibleError,
    RegionCosts,
    plan_offers,
)
from gpuplan.plan.border import crosses_border
from gpuplan.plan.result import Option
from gpuplan.report.plan import option_json

HANGZHOU = ("alibaba", "cn-hangzhou")
OHIO = ("aws", "us-east-2")

#: A fine-tune's 20 GB dataset and 29.5 GB of weights sent back.
JOB = JobFacts(task="train", dataset_gb=20.0, results_gb=29.5, data_location=HANGZHOU)


#: One 1-GPU A100 in each: (provider, region, instance name, $/h, country).
PLACES = (
    ("aws", "us-east-2", "ohio", 1.0, "US"),
    ("alibaba", "cn-hangzhou", "hangzhou", 2.0, "CN"),
    ("alibaba", "cn-hongkong", "hongkong", 3.0, "HK"),
)


def _plan(
    job: JobFacts,
    places: tuple[tuple[str, str, str, float, str], ...] = PLACES,
    countries: tuple[str, ...] | None = None,
    deadline_h: float | None = None,
    max_nodes: int | None = None,
) -> Plan:
    rows = [
        offer(provider=p, region=r, instance_type=name, gpu_count=1, price_usd=usd, country=c)
        for p, r, name, usd, c in places
    ]
    costs = CostFacts(
        [
            RegionCosts(
                provider=p,
                region=r,
                internet_egress=AWS_TIERS,
                inter_region_usd_per_gb=0.02,
                block_storage_usd_per_gb_month=0.08,
            )
            for p, r, *_ in places
        ]
    )
    estimate = toy_estimator(peak_gib=10.0)
    return plan_offers(
        OfferTable.from_rows(rows),
        costs,
        job,
        estimate,
        Constraints(max_gpus=1, countries=countries, deadline_h=deadline_h, max_nodes=max_nodes),
    )  # type: ignore[arg-type]


PLACES_NAMES = tuple(name for _p, _r, name, _usd, _c in PLACES)


def _by_name(plan: Plan) -> dict[str, Option]:
    return {o.instance_type: o for o in plan.options}


def _border_notes(plan: Plan) -> list[str]:
    return [n for n in plan.notes if "mainland" in n and "border" in n and "data.location not given" not in n]


def test_data_in_mainland_china_sent_abroad_is_flagged_and_said_once() -> None:
    plan = _plan(JOB)
    options = _by_name(plan)
    assert plan.recommended.instance_type == "ohio"
    # Hong Kong is outside mainland China: its data-export rules cover a move there too
    assert {k: o.crosses_border for k, o in options.items()} == {
        "ohio": True,
        "hangzhou": False,
        "hongkong": True,
    }
    (note,) = _border_notes(plan)
    assert "aws/us-east-2" in note and "alibaba/cn-hongkong" in note and "alibaba/cn-hangzhou and" in note
    assert "Personal Information Protection Law (articles 38–40" in note and "Data Security Law" in note
    assert "does not judge whether it is lawful" in note
    assert "AWS China and Azure China" in note  # AWS here is its global cloud
    # the copy is timed at the disk's rate; the slow direction measured is into China: the 29.5 GB of
    # results sent back in would take 2.7 d at its 1 Mbit/s
    assert "0.131 GB/s (2.5 min)" in note and "1 Mbit/s" in note
    assert "the 29.5 GB that enter mainland China would take 2.7 d" in note
    assert note.endswith("--countries CN")
    assert option_json(options["ohio"]).crosses_border is True
    assert option_json(options["hangzhou"]).model_dump(mode="json")["crosses_border"] is False


def test_data_abroad_brought_into_mainland_china_is_said_the_other_way() -> None:
    plan = _plan(replace(JOB, data_location=OHIO))
    options = _by_name(plan)
    assert {k: o.crosses_border for k, o in options.items()} == {
        "ohio": False,
        "hangzhou": True,
        "hongkong": False,
    }
    (note,) = _border_notes(plan)
    assert "alibaba/cn-hangzhou" in note and "enters mainland China" in note and "hongkong" not in note
    assert "AWS China" not in note  # no AWS or Azure option crosses
    assert "the 20 GB that enter mainland China would take 44.4 h" in note  # the dataset comes in
    assert note.endswith("--countries US")


def test_an_unknown_data_location_is_unknown_not_inside() -> None:
    plan = _plan(replace(JOB, data_location=None))
    assert {o.crosses_border for o in plan.options} == {None}
    assert option_json(plan.recommended).model_dump(mode="json")["crosses_border"] is None
    assert not _border_notes(plan)
    said = [n for n in plan.notes if n.startswith("data.location not given")]
    assert said and "border of mainland China" in said[0] and "not known" in said[0], plan.notes


def test_an_option_of_unknown_country_is_unknown_and_nothing_moved_crosses_nothing() -> None:
    assert crosses_border(JOB, "") is None
    assert crosses_border(JOB, "CN") is False and crosses_border(JOB, "SG") is True
    assert crosses_border(replace(JOB, dataset_gb=0.0, results_gb=0.0), "US") is False


def test_no_option_across_the_border_no_note() -> None:
    plan = _plan(replace(JOB, data_location=("alibaba", "cn-shanghai")))
    assert [o.crosses_border for o in plan.options if o.country == "CN"] == [False]
    plan_cn = _plan(JOB, PLACES[1:2])
    assert not _border_notes(plan_cn)


@pytest.mark.parametrize("words", ["出境", "--countries CN"])
def test_the_note_is_in_chinese(words: str) -> None:
    with use_language("zh"):
        plan = _plan(JOB)
    assert any(words in n and "个人信息保护法" in n for n in plan.notes), plan.notes


def test_the_recommendation_says_beside_it_that_its_option_crosses() -> None:
    from rich.console import Console

    from gpuplan.report.plan_html import plan_html
    from gpuplan.report.plan_view import plan_view

    line = "this option moves the data across the mainland-China border: see the note on it below"
    plan = _plan(JOB)
    console = Console(width=200, record=True)
    console.print(plan_view(plan))
    text = console.export_text()
    recommended = text[text.index("Recommended: ") :]
    # beside the recommendation, before its why and long before the note itself
    assert line in recommended.split("why: ")[0], recommended[:2000]
    assert line in plan_html(plan, "toy")
    # an option that stays inside says nothing there
    inside = _plan(JOB, PLACES[1:2])
    console = Console(width=200, record=True)
    console.print(plan_view(inside))
    assert line not in console.export_text()


def test_the_note_cites_the_general_rules_with_their_official_texts_and_no_sector_rules() -> None:
    (note,) = _border_notes(_plan(JOB))
    # the general rules on data leaving mainland China, each with the address of its official text
    for url in (
        "http://www.npc.gov.cn/npc/c30834/202108/a8c4e3672c74491a80b53a172bb753fe.shtml",
        "http://www.npc.gov.cn/npc/c30834/202106/7c9af12f51334a73b56d7938f99a788a.shtml",
        "https://www.cac.gov.cn/2022-07/07/c_1658811536396503.htm",
        "https://www.cac.gov.cn/2024-03/22/c_1712776611775634.htm",
    ):
        assert url in note
    assert "Measures for the Security Assessment of Outbound Data Transfers (2022" in note
    assert "Provisions on Promoting and Regulating Cross-Border Data Flows (2024" in note
    # a recommendation model's plan had quoted the automotive provisions (faces, licence plates): the
    # workload says nothing of vehicles, so no sector's rules are named
    residency = _residency(_plan(JOB, countries=("CN",)))
    for said in (note, *residency, _border_notes(_plan(replace(JOB, data_location=OHIO)))[0]):
        assert "utomotive" not in said and "licence plates" not in said and "c_1631049984897667" not in said
    with use_language("zh"):
        zh = [n for n in _plan(JOB, countries=("CN",)).notes if "中国大陆" in n]
    assert zh and all("汽车" not in n for n in zh), zh
    assert any("《中华人民共和国数据安全法》" in n and "第三十八条至第四十条" in n for n in zh), zh


def test_each_crossing_option_says_so_in_the_table() -> None:
    from rich.console import Console

    from gpuplan.report.plan_html import plan_html
    from gpuplan.report.plan_view import border_cell, plan_view

    plan = _plan(JOB)
    console = Console(width=200, record=True)
    console.print(plan_view(plan))
    table = console.export_text().split("Recommended: ")[0]
    # each row's words, its wrapped lines joined: under Ohio and Hong Kong, not under Hangzhou
    rows = [" ".join(row.split()) for row in re.split(r"\n (?=\d )", table)[1:]]
    said = {name: "data leaves mainland China" in row for row in rows for name in PLACES_NAMES if name in row}
    assert said == {"ohio": True, "hangzhou": False, "hongkong": True}, table
    assert "data leaves mainland China" in plan_html(plan, "toy")
    into = _by_name(_plan(replace(JOB, data_location=OHIO)))
    assert border_cell(into["hangzhou"]) == "data enters mainland China" and border_cell(into["ohio"]) == ""


def _residency(plan: Plan) -> list[str]:
    return [n for n in plan.notes if n.startswith("data kept in")]


def test_countries_cn_keeps_the_data_in_and_says_how_many_were_left_out_and_why() -> None:
    plan = _plan(JOB, countries=("CN",))
    assert plan.recommended.instance_type == "hangzhou"  # Ohio, cheaper, is left out
    (note,) = _residency(plan)
    assert note.startswith("data kept in mainland China: the data is in alibaba/cn-hangzhou")
    # Ohio's and Hong Kong's candidates, as the plan counts them: never a cheaper option left out unsaid
    left_out = plan.excluded["country"]
    assert left_out > 0 and f"{left_out} candidates elsewhere were left out" in note
    assert "cheaper options may be among them" in note
    assert "Hong Kong, Macao and Taiwan are outside mainland China" in note
    assert "http://www.npc.gov.cn/npc/c30834/202108/a8c4e3672c74491a80b53a172bb753fe.shtml" in note
    assert not _border_notes(plan)
    # Hong Kong allowed beside mainland China: it is not kept in, and the border note flags Hong Kong
    both = _plan(JOB, countries=("CN", "HK"))
    assert not _residency(both) and _border_notes(both)
    # data abroad, kept where it is: the count, without mainland China's rules
    (us,) = _residency(_plan(replace(JOB, data_location=OHIO), countries=("US",)))
    assert "United States" in us and "candidates elsewhere" in us and "Protection Law" not in us


def test_the_residency_note_is_in_chinese() -> None:
    with use_language("zh"):
        plan = _plan(JOB, countries=("CN",))
    assert any("中国大陆" in n and "个人信息保护法" in n and "2" in n for n in plan.notes), plan.notes


def test_a_deadline_no_option_in_the_countries_meets_says_how_many_they_left_out() -> None:
    # Ohio's and Hong Kong's candidates were never timed: the refusal had named only Hangzhou's
    with pytest.raises(PlanInfeasibleError) as caught:
        _plan(JOB, countries=("CN",), deadline_h=1.0)
    text = str(caught.value)
    left_out = caught.value.excluded["country"]
    assert text.startswith("no option finishes within") and "hangzhou" in text
    assert (
        f"the countries asked for (CN) left out {left_out} candidates elsewhere, which may meet it: "
        "plan without --countries to see them priced"
    ) in text
    with use_language("zh"):
        with pytest.raises(PlanInfeasibleError) as zh:
            _plan(JOB, countries=("CN",), deadline_h=1.0)
        said = error_text(zh.value)
    assert "--countries" in said and f"{left_out}" in said and "countries asked for" not in said, said
    # one left out is one candidate; none left out, nothing said
    with pytest.raises(PlanInfeasibleError) as one:
        _plan(JOB, PLACES[:2], countries=("CN",), deadline_h=1.0, max_nodes=1)
    assert "left out 1 candidate elsewhere, which may meet it: plan without --countries to see it" in str(
        one.value
    )
    with pytest.raises(PlanInfeasibleError) as none:
        _plan(JOB, PLACES[1:2], countries=("CN",), deadline_h=1.0)
    assert "countries asked for" not in str(none.value)


#: A chat service, its users in mainland China, no data.location: a 16 GB model's answers, nothing moved.
SERVICE = JobFacts(task="infer", users_in=("CN",), calendar_months=1.0)


def test_a_service_for_users_in_mainland_china_is_flagged_outside_it_whatever_the_filters() -> None:
    # Hong Kong's region id starts with cn-: the plan had listed it with no word that it is outside
    # mainland China unless --countries CN (which leaves it out anyway) was given
    plan = _plan(SERVICE, countries=("CN", "HK", "US"))
    options = _by_name(plan)
    assert {k: o.crosses_border for k, o in options.items()} == {
        "ohio": True,
        "hangzhou": False,
        "hongkong": True,
    }
    assert option_json(options["hongkong"]).crosses_border is True
    (note,) = _border_notes(plan)
    assert note.startswith(
        "mainland-China border: your users are in mainland China (serving.users_in) and "
        "aws/us-east-2, alibaba/cn-hongkong are outside it"
    ), note
    assert "npc.gov.cn" in note and note.endswith("--countries CN")
    assert "Mbit/s" not in note  # no dataset or results moved: no link to time
    from gpuplan.report.plan_view import border_cell

    assert border_cell(options["hongkong"]) == "data leaves mainland China"
    # users elsewhere: nothing crosses for them (no data.location: unknown, as before)
    assert {o.crosses_border for o in _plan(replace(SERVICE, users_in=("SG",))).options} == {False}
    assert crosses_border(SERVICE, "HK") is True and crosses_border(SERVICE, "CN") is False
    assert crosses_border(SERVICE, "") is False  # an unknown country is not taken as outside


#: Data in Singapore; one 1-GPU A100 in Ohio, Stockholm and Singapore.
SINGAPORE = ("aws", "ap-southeast-1")
ABROAD = (
    ("aws", "us-east-2", "ohio", 1.0, "US"),
    ("aws", "eu-north-1", "stockholm", 2.0, "SE"),
    ("aws", "ap-southeast-1", "singapore", 3.0, "SG"),
)


def _country_notes(plan: Plan) -> list[str]:
    return [n for n in plan.notes if n.startswith("data across a border")]


def test_data_sent_to_another_country_than_mainland_chinas_is_said_from_which_to_which() -> None:
    # A Singapore lab's data had been planned to Ohio and Stockholm with no word, and crosses_border
    # false (it is about mainland China only) read as "stays in the country"
    from gpuplan.report.plan_view import border_cell

    plan = _plan(replace(JOB, data_location=SINGAPORE), ABROAD)
    options = _by_name(plan)
    assert {o.crosses_border for o in options.values()} == {False}  # mainland China's flag, as before
    assert {k: o.data_leaves_country.leaves for k, o in options.items() if o.data_leaves_country} == {
        "ohio": True,
        "stockholm": True,
        "singapore": False,
    }
    assert option_json(options["ohio"]).model_dump(mode="json")["data_leaves_country"] == {
        "leaves": True,
        "from_countries": ["SG"],
        "to_country": "US",
    }
    assert option_json(options["singapore"]).model_dump(mode="json")["data_leaves_country"]["leaves"] is False
    assert border_cell(options["ohio"]) == "data leaves SG for US"
    assert border_cell(options["stockholm"]) == "data leaves SG for SE"
    assert border_cell(options["singapore"]) == ""
    (note,) = _country_notes(plan)
    assert note.startswith(
        "data across a border: the data is in aws/ap-southeast-1 (SG) and aws/us-east-2 (US), "
        "aws/eu-north-1 (SE) run the work in another country: the dataset leaves SG for them"
    ), note
    assert "does not judge whether it is lawful" in note and note.endswith("--countries SG")
    assert not _border_notes(plan)  # no mainland-China rules for data that never touches it
    with use_language("zh"):
        assert border_cell(options["ohio"]) and border_cell(options["ohio"]) != "data leaves SG for US"


def test_mainland_chinas_border_keeps_its_own_words_and_the_general_field_agrees() -> None:
    from gpuplan.report.plan_view import border_cell

    plan = _plan(JOB)
    options = _by_name(plan)
    assert border_cell(options["ohio"]) == "data leaves mainland China"
    assert not _country_notes(plan)  # the mainland-China note says it, with its rules
    crossing = options["hongkong"].data_leaves_country
    assert crossing is not None and crossing.leaves and crossing.from_countries == ("CN",)
    assert crossing.to_country == "HK"
    assert options["hangzhou"].data_leaves_country.leaves is False  # type: ignore[union-attr]


def test_an_unknown_place_of_the_data_is_null_not_staying() -> None:
    plan = _plan(replace(JOB, data_location=None), ABROAD)
    assert {o.data_leaves_country for o in plan.options} == {None}
    assert option_json(plan.recommended).model_dump(mode="json")["data_leaves_country"] is None
    assert not _country_notes(plan)


def test_a_service_served_from_another_country_than_its_users_is_said_so() -> None:
    plan = _plan(replace(SERVICE, users_in=("SG",)), ABROAD)
    options = _by_name(plan)
    assert options["ohio"].data_leaves_country is not None
    assert options["ohio"].data_leaves_country.left == ("SG",)
    (note,) = _country_notes(plan)
    assert note.startswith(
        "data across a border: your users are in SG (serving.users_in) and aws/us-east-2 (US), "
        "aws/eu-north-1 (SE) serve them from another country"
    ), note
    assert note.endswith("--countries SG")


def test_the_recommendation_says_beside_it_that_its_option_takes_the_data_to_another_country() -> None:
    # Only mainland China's border had its line beside the recommendation: Singapore data
    # recommended to Ohio was said only in the table's cell and a note at the end.
    from rich.console import Console

    from gpuplan.report.plan_html import plan_html, plan_markdown
    from gpuplan.report.plan_view import plan_view

    line = (
        "this option runs the work in another country than its data's or its users' (data leaves SG "
        "for US): see the note on it below"
    )
    plan = _plan(replace(JOB, data_location=SINGAPORE), ABROAD)
    assert (plan.recommended.provider, plan.recommended.region) == OHIO
    console = Console(width=250, record=True)
    console.print(plan_view(plan))
    text = console.export_text()
    recommended = text[text.index("Recommended: ") :].split("why: ")[0]
    assert recommended.count("data leaves SG for US): see the note") == 1, recommended
    assert line in recommended and "mainland-China border" not in recommended
    assert plan_html(plan, "toy").count(line.replace("'", "&#x27;")) == 1
    assert plan_markdown(plan, "toy", "toy.svg").count(line) == 1
    with use_language("zh"):
        console = Console(width=250, record=True)
        console.print(plan_view(plan))
        zh = console.export_text()
    assert "此方案在数据或用户所在国家/地区之外运行（数据从 SG 出境至 US）" in zh[zh.index("推荐：") :], zh
    # data that stays in Singapore: no line; data leaving mainland China: its own line, said once
    home = _plan(replace(JOB, data_location=SINGAPORE), ABROAD[2:])
    console = Console(width=250, record=True)
    console.print(plan_view(home))
    assert "another country than its data" not in console.export_text()
    console = Console(width=250, record=True)
    console.print(plan_view(_plan(JOB)))
    text = console.export_text()
    recommended = text[text.index("Recommended: ") :].split("why: ")[0]
    assert "mainland-China border" in recommended and "another country than its data" not in recommended
