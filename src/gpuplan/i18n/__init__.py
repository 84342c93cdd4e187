"""Messages in English and Chinese, and one way to write numbers and money, for every layer.

Usage (the CLI picks the language once per command; everything below it just calls ``_()``)::

    from gpuplan.i18n import N_, Money, _, format_number, use_language

    with use_language("zh"):                 # or set_language(...) in a CLI callback
        _("Deadline")                        # -> "截止时间"
        _("{count} options").format(count=3) # placeholders are filled *after* translation
    HEADERS = (N_("Price"), N_("Time"))      # marked at import, translated when shown: _(HEADERS[0])

    cny = display_money(store, "CNY")        # gpuplan.catalog: Money at the catalog's dated rate
    cny.format(1234.5)                       # "¥8,878.24" (amounts are always passed in USD)
    with use_money(cny):                     # or set_money(...) in the CLI, once per command
        money(2.5, per="h")                  # "¥17.98/h": what library messages call
    format_number(12345.678)                 # "12,346"

Adding a message: wrap the English text in ``_()`` (or ``N_()`` for a constant), run
``python tools/i18n.py update``, write the Chinese in ``locale/zh/LC_MESSAGES/gpuplan.po``, then
``python tools/i18n.py compile`` (the ``.mo`` is committed, so ``pip install`` needs no build step).
``tests/i18n/`` fails if a message lacks its Chinese or the ``.mo`` is stale.
"""

from gpuplan.i18n.messages import (
    N_,
    Language,
    _,
    current_language,
    language_from_locale,
    ngettext,
    options_named,
    set_language,
    use_language,
    use_option_names,
)
from gpuplan.i18n.numbers import (
    Money,
    current_money,
    format_age,
    format_amount,
    format_hours,
    format_number,
    format_percent,
    money,
    money_per,
    money_rate,
    set_money,
    stale_rate_warning,
    use_money,
)

__all__ = [
    "N_",
    "Language",
    "Money",
    "_",
    "current_language",
    "current_money",
    "format_age",
    "format_amount",
    "format_hours",
    "format_number",
    "format_percent",
    "language_from_locale",
    "money",
    "money_per",
    "money_rate",
    "ngettext",
    "options_named",
    "set_language",
    "set_money",
    "stale_rate_warning",
    "use_language",
    "use_money",
    "use_option_names",
]
