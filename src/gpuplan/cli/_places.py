"""The options that keep the offers to places: ``--providers``, ``--regions``, ``--countries``, as
``plan`` and ``simulate share`` take them (the singular names too, as ``offers`` and ``deploy`` spell
them)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["CountriesOption", "ProvidersOption", "RegionsOption"]

ProvidersOption = Annotated[
    str | None, typer.Option("--providers", "--provider", help="Comma list: aws,gcp,alibaba …")
]

RegionsOption = Annotated[
    str | None,
    typer.Option("--regions", "--region", help="Comma list of regions: us-east-1,cn-shanghai …"),
]

CountriesOption = Annotated[
    str | None,
    typer.Option(
        "--countries",
        help="Comma list of countries, by ISO code or name: CN,US or China,中国 …, or EU (its 27 member "
        "states)",
    ),
]
