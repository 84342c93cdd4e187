"""Keep gpuplan's message catalog in step with the code.

    python tools/i18n.py update    # extract _()/N_()/ngettext() messages from src/, merge into the .po
    python tools/i18n.py compile   # write the .mo that ships in the package (committed)
    python tools/i18n.py check     # exit 1 if a message lacks its Chinese or the .mo is stale

After a merge conflict in the binary .mo, keep either side and run `compile` again.

Messages are the English source text: every `_()`, `N_()` and `ngettext()` string in src/, and every
help text of the command line (option help, command docstrings), found by walking the built Typer
app the way `gpuplan --help` shows it (gpuplan/cli/_help.py translates them at run time). The
Chinese lives in
src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po. Babel (a dev dependency) does the extraction and
compilation; at run time gpuplan reads the .mo with the standard library's gettext.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src" / "gpuplan"
LOCALE_DIR = SRC / "i18n" / "locale"
LANGUAGES = ("zh",)
#: ``Plural`` (gpuplan.catalog.stored_words) is a message with a plural, kept to be written later.
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "Plural": (1, 2)}
#: A fixed header date, so that `update` on unchanged code leaves git clean.
HEADER_DATE = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)


def cli_help_messages() -> list[str]:
    """The command line's help texts, as `gpuplan … --help` shows them (in English)."""
    sys.path.insert(0, str(SRC.parent))
    import typer.main

    from gpuplan.cli import app
    from gpuplan.cli._help import help_messages

    return help_messages(typer.main.get_command(app))


def extract() -> Catalog:
    """Every message marked in the package's Python source and every --help text, with where."""
    template = Catalog(project="gpuplan", domain="gpuplan", creation_date=HEADER_DATE)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(SRC), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    ):
        where = [(f"src/gpuplan/{filename}", lineno)]
        template.add(message, None, where, auto_comments=comments, context=context)
    for message in cli_help_messages():
        if message in template:
            template[message].locations.append(("src/gpuplan/cli/_help.py", 0))
        else:
            template.add(message, None, [("src/gpuplan/cli/_help.py", 0)])
    return template


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / "gpuplan.po"


def read(language: str) -> Catalog:
    path = po_path(language)
    if not path.exists():
        return Catalog(locale=language, project="gpuplan", domain="gpuplan")
    with path.open("rb") as f:
        return read_po(f, locale=language)


def mo_bytes(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalog)
    return buf.getvalue()


def update() -> None:
    template = extract()
    for language in LANGUAGES:
        catalog = read(language)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()  # a message the code no longer uses is dropped, not kept forever
        catalog.revision_date = HEADER_DATE
        catalog.fuzzy = False
        catalog.header_comment = "# Chinese messages of gpuplan; the English source text is in the code.\n"
        catalog.last_translator = "gpuplan contributors"
        catalog.language_team = "Chinese"
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            # Sorted, no line numbers: two branches adding messages rarely touch the same lines.
            write_po(f, catalog, width=100, sort_output=True, include_lineno=False)
        missing = [m.id for m in catalog if m.id and _untranslated(m)]
        print(f"{path.relative_to(REPO)}: {len(catalog)} messages, {len(missing)} to translate")


def _untranslated(message: Message) -> bool:
    """No translation: an empty string, or a plural's forms with one empty (a tuple of empty
    strings is not empty, so plurals had passed the check untranslated)."""
    forms = message.string if isinstance(message.string, tuple) else (message.string,)
    return not all(forms)


def compile_all() -> None:
    for language in LANGUAGES:
        catalog = read(language)
        po_path(language).with_suffix(".mo").write_bytes(mo_bytes(catalog))


def check() -> int:
    template_ids = {m.id for m in extract() if m.id}
    problems: list[str] = []
    for language in LANGUAGES:
        catalog = read(language)
        ids = {m.id for m in catalog if m.id}
        problems += [f"{language}: not in the catalog: {i!r}" for i in sorted(template_ids - ids, key=str)]
        problems += [f"{language}: untranslated: {m.id!r}" for m in catalog if m.id and _untranslated(m)]
        mo = po_path(language).with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
            stale = mo.relative_to(REPO)
            problems.append(f"{language}: {stale} is stale; run `python tools/i18n.py compile`")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("update", "compile", "check"))
    action = parser.parse_args().action
    if action == "update":
        update()
    elif action == "compile":
        compile_all()
    else:
        return check()
    return 0


if __name__ == "__main__":
    sys.exit(main())
