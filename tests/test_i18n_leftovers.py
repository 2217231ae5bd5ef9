"""Issue 29's leftovers: the web queue's refusals, Kniffel 7's die colours and the help's list of variants in
every language."""

import asyncio
import re
import threading

import pytest
from click.testing import CliRunner

from solver.cli import cli
from solver.game.dice_input import parse_dice
from solver.i18n.errors_system import EN_SYSTEM_ERRORS
from solver.i18n.texts import CATALOGUES, click_message, die_name, speaking
from solver.rules.presets import KNIFFEL7
from solver.rules.variant import RuleError

COLOURS = {  # each language's names of the dice blue ... white, then its codes
    "de": ("blau grün lila gelb rot schwarz weiß", "b gr l ge r s w"),
    "en": ("blue green purple yellow red black white", "b g p y r k w"),
    "es": ("azul verde morado amarillo rojo negro blanco", "az v m am r n b"),
    "fr": ("bleu vert violet jaune rouge noir blanc", "bl ve vi j r n bc"),
}


@pytest.mark.parametrize("lang", sorted(COLOURS))
def test_die_colours_are_named_and_read_in_each_language(lang):
    names, codes = (text.split() for text in COLOURS[lang])
    with speaking(lang):
        assert [die_name(KNIFFEL7, i) for i in range(7)] == names
        assert [KNIFFEL7.find_die(name) for name in names] == list(range(7))
        assert [KNIFFEL7.find_die(name.upper()) for name in names] == list(range(7))  # any case
        assert [KNIFFEL7.find_die(code) for code in codes] == list(range(7))
        assert [KNIFFEL7.find_die(name) for name in COLOURS["en"][0].split()] == list(range(7))  # English too
        entry = ",".join(f"{code}={face}" for code, face in zip(codes, "2371674"))
        assert parse_dice(KNIFFEL7, entry) == (2, 3, 7, 1, 6, 7, 4)


def test_spanish_and_french_colours_as_players_write_them():
    with speaking("es"):
        assert KNIFFEL7.find_die("lila") == KNIFFEL7.find_die("Morado") == 2
        assert KNIFFEL7.find_die("Amarílló") == 3 and KNIFFEL7.find_die("blan") == 6  # accents, a unique beginning
        with pytest.raises(RuleError, match=r"^'gris' no es un dado de kniffel7\..*azul, verde, morado"):
            KNIFFEL7.find_die("gris")
    with speaking("fr"):
        assert KNIFFEL7.find_die("Vért") == 1 and KNIFFEL7.find_die("jau") == 3
        with pytest.raises(RuleError, match=r"^'bla' peut être bleu, noir ou blanc"):
            KNIFFEL7.find_die("bla")
    with speaking("de"), pytest.raises(RuleError, match="^'v' ist kein Würfel"):
        KNIFFEL7.find_die("v")  # a Spanish code is no German one


def test_help_lists_the_variants_only_for_commands_that_take_one():
    for lang, label in (("es", "Variantes:"), ("fr", "Variantes :")):
        poker = CliRunner().invoke(cli, ["--lang", lang, "poker", "--help"])
        advise = CliRunner().invoke(cli, ["--lang", lang, "advise", "--help"])
        assert poker.exit_code == advise.exit_code == 0
        assert label not in poker.output and f"{label} kniffel" in advise.output


def refusal(jobs, work, lang: str) -> str:
    """The Unavailable a request of `lang` meets when it asks `jobs` for `work`."""
    from solver.web.work import Unavailable

    async def never_gone():
        await asyncio.Event().wait()
        return {"type": "http.request"}

    async def ask():
        with speaking(lang):
            return await jobs.run(("key", lang), work, never_gone)

    with pytest.raises(Unavailable) as refused:
        asyncio.run(ask())
    return str(refused.value)


def test_the_web_queues_refusals_speak_the_requests_language():
    from solver.web.work import Jobs

    full = Jobs(limit=0)
    assert refusal(full, lambda _: 1, "en").startswith("the server is busy: 0 long computations")
    assert refusal(full, lambda _: 1, "de").startswith("der Server ist ausgelastet: 0 lange Rechnungen")
    assert refusal(full, lambda _: 1, "es").endswith("probá de nuevo en 10 s")
    assert refusal(full, lambda _: 1, "fr").startswith("le serveur est occupé : 0 long calcul (")
    release = threading.Event()
    slow = Jobs(budget=0.05)
    try:
        de = refusal(slow, lambda _: release.wait(30), "de")
        es = refusal(slow, lambda _: release.wait(30), "es")
    finally:
        release.set()
    assert de.startswith("keine Antwort innerhalb von 0,05 s") and es.startswith("no hubo respuesta en 0,05 s")


@pytest.mark.parametrize("lang", ["de", "es", "fr"])
def test_every_click_template_is_matched_and_translated_by_the_catalogue(lang):
    """click formats its messages in English: each of its templates (errors_system.py, click_*) is recognised
    as itself (none shadowed by an earlier, looser one) and comes out as the catalogue's text."""
    for key, template in EN_SYSTEM_ERRORS.items():
        if key.startswith("click_"):
            values = {name: f"<{name}>" for name in re.findall(r"{(\w+)", template)}
            assert click_message(template.format(**values), lang) == CATALOGUES[lang][key].format(**values), key


def test_generalas_score_sheet_shows_the_pads_letters_that_it_accepts():
    from solver.advice.cards import parse_card
    from solver.game.play import score_sheet
    from solver.rules.presets import PRESETS

    generala, yams = PRESETS["generala"], PRESETS["yams"]
    with speaking("es"):
        sheet = score_sheet(parse_card(generala, "F=30,DG=0,e=20")).splitlines()
    assert [line.split("  ")[1] for line in sheet[7:12]] == [
        "Escalera (E)",
        "Full (F)",
        "Póker (P)",
        "Generala (G)",
        "Doble Generala (DG)",
    ]
    assert sheet[8].endswith(" 30") and sheet[11].endswith("  0") and sheet[-1].endswith(" 50")
    with speaking("fr"):
        assert "(F)" not in score_sheet(parse_card(yams, "full=25"))  # Yams' Full: no letter on a French pad
