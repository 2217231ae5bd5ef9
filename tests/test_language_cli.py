"""Issue 16, the rest: --help of every command, `simulate`, Ctrl-C and the operating system's refusals in
the player's language (German for the Kniffel games, English for Yahtzee and Yatzy, --lang and the locale
over both)."""

import errno
import json
import os

import click
import pytest
from click.testing import CliRunner
from helpers import ERROR_PREFIX as PREFIX

from solver.cli import cli
from solver.cli.help import command_key, option_key
from solver.i18n.texts import CATALOGUES
from solver.rules.presets import KNIFFEL, PRESETS
from solver.store import tables

NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}


@pytest.fixture(scope="module")
def kdir(tmp_path_factory, solved):
    d = tmp_path_factory.mktemp("lang_tables")
    tables.save(KNIFFEL, solved("kniffel"), d, states=0, seconds=0.0)
    return d


def invoke(*args, env=None, input=None):
    return CliRunner(env={**NO_LOCALE, **(env or {})}).invoke(cli, list(args), input=input, prog_name="kniffel")


# -- --help -----------------------------------------------------------------------------------------
def test_every_command_and_option_has_its_help_in_both_catalogues():
    ctx = click.Context(cli)
    commands = [cli, *cli.commands.values()]
    for command in commands:
        key = command_key(command)
        for lang in ("de", "en"):
            assert f"help_{key}" in CATALOGUES[lang], key
            assert command is cli or f"short_{key}" in CATALOGUES[lang], key
        for param in command.get_params(ctx):
            if isinstance(param, click.Option):
                assert option_key(command, param) in CATALOGUES["en"], (key, param.name)


WITHOUT_VARIANT = {"poker", "review", "serve", "variants"}  # the commands that take no VARIANT


@pytest.mark.parametrize("command", [None, *sorted(cli.commands)])
def test_help_in_both_languages_with_an_example_and_the_variants(command):
    args = [command] if command else []
    de, en = invoke("--lang", "de", *args, "--help"), invoke("--lang", "en", *args, "--help")
    assert de.exit_code == 0 and en.exit_code == 0, de.output + en.output
    example = f"kniffel {command or 'play'}"
    assert de.output.startswith("Aufruf: kniffel") and "Beispiel:" in de.output and example in de.output
    assert en.output.startswith("Usage: kniffel") and "Example:" in en.output and example in en.output
    if command in WITHOUT_VARIANT:  # the list of variants would not apply (the duel's, a saved game's own)
        assert "Varianten:" not in de.output and "Variants:" not in en.output
    else:
        assert "Varianten: kniffel, kniffel-meister" in de.output and "Variants: kniffel, kniffel-meister" in en.output
        assert all(name in de.output for name in PRESETS)
    assert "Optionen:" in de.output and "Diese Hilfe zeigen und beenden." in de.output
    for english in ("Options:", "Show this message", "[default", "required]", "Usage:", "INTEGER", "FILE"):
        assert english not in de.output, english
    for res in (de, en):
        assert max(len(line) for line in res.output.splitlines()) <= 100, res.output


def test_help_speaks_as_the_command_line_would():
    """--lang (before or after the command), else the locale, else the variant named or the command's
    default variant (kniffel), else English."""
    assert invoke("--lang", "de", "advise", "--help").output.startswith("Aufruf: kniffel advise [OPTIONEN] [VARIANTE]")
    assert invoke("advise", "--lang", "de", "--help").output.startswith("Aufruf:")
    assert invoke("advise", "--help").output.startswith("Aufruf:")  # advise's default variant: kniffel
    assert invoke("advise", "yahtzee", "--help").output.startswith("Usage:")
    assert invoke("play", "--lang", "en", "--help").output.startswith("Usage:")
    assert invoke("--help").output.startswith("Usage:")
    assert invoke("--help", env={"LANG": "de_DE.UTF-8"}).output.startswith("Aufruf:")
    assert invoke("play", "--help", env={"LANG": "en_GB.UTF-8"}).output.startswith("Usage:")
    german = invoke("--lang", "de", "--help").output
    assert "Befehle:" in german and "Ein ganzes Spiel mit Rat nach jedem Wurf." in german


# -- simulate -----------------------------------------------------------------------------------------
def test_simulate_speaks_german_for_kniffel_and_keeps_its_json(kdir):
    args = ["--tables", str(kdir), "--no-progress", "simulate", "kniffel", "-n", "30", "--seed", "3"]
    de, en = invoke(*args), invoke(*args, "--lang", "en")
    assert de.exit_code == 0 and en.exit_code == 0, de.output + en.output
    lines = de.output.splitlines()
    assert "30 Spiele bei bester Strategie (Startzahl 3," in lines[0] and lines[0].endswith("/s)")
    assert lines[1].startswith("Mittel ") and "(Tabelle: 248,076)" in lines[1] and "Median" in lines[1]
    assert lines[2].startswith("Perzentile: 1%:") and lines[3].startswith("P(Endstand >= t): 200:")
    assert lines[4].startswith("Bonus oben: 63+:") and lines[5].startswith("Kniffel-Bonus: in ")
    assert lines[6].split() == ["Feld", "Mittel", "Null"] and lines[7].startswith("Einser")
    assert "Große Straße" in de.output
    for english in ("games", "mean", "percentiles", "upper bonus", "box ", "extra", "Ones"):
        assert english not in de.output, english
    assert "30 games of optimal play (seed 3," in en.output and "Kniffel bonus: in " in en.output
    assert "upper bonus: 63+:" in en.output and "Large Straight" in en.output and "(table: 248.076)" in en.output
    for res in (de, en):
        assert max(len(line) for line in res.output.splitlines()) <= 100, res.output
    as_json = [json.loads(invoke(*args, "--json", *lang).stdout) for lang in ([], ["--lang", "en"])]
    for out in as_json:
        out.pop("seconds")
    assert as_json[0] == as_json[1] and "mean" in as_json[0] and "p_at_least" in as_json[0]


# -- end of input, the operating system's refusals --------------------------------------------------------
def test_end_of_input_in_german(kdir, tmp_path):
    res = invoke("--tables", str(kdir), "play", "--save", str(tmp_path / "g.json"), input="")
    assert res.exit_code == 130 and res.stderr.strip() == "kniffel: abgebrochen (Ende der Eingabe)", res.stderr


def test_a_full_disk_names_the_file_not_its_temporary_one(kdir, tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("solver.store.files.os.fsync", full)
    game = tmp_path / "g.json"
    for lang, said in (
        ("de", "kann nicht geschrieben werden: kein Platz mehr auf dem Datenträger"),
        ("en", "cannot write"),
    ):
        res = invoke(
            "--tables",
            str(kdir),
            "play",
            "--roll-for-me",
            "--seed",
            "1",
            "--save",
            str(game),
            "--force",
            "--lang",
            lang,
            input="q\n",
        )
        assert res.exit_code == 2, res.output
        assert res.stderr.strip().startswith(PREFIX[lang]), res.stderr
        assert said in res.stderr and str(game) in res.stderr and ".tmp" not in res.stderr, res.stderr
    assert "no space left on the device" in res.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc, where no one can make a folder")
def test_a_tables_folder_that_cannot_be_made(tmp_path):
    res = invoke("--tables", "/proc/kniffel-tables", "--no-progress", "--lang", "de", "solve", "yatzy")
    assert res.exit_code == 2, res.output
    assert res.stderr.strip() == (
        "kniffel: Fehler: der Ordner /proc/kniffel-tables kann nicht angelegt werden: Datei oder Ordner gibt es nicht"
    ), res.stderr


@pytest.mark.parametrize(
    ("variant", "said"), [("kniffel", "Fehler: $KNIFFEL_TABLES"), ("yams", "erreur : $KNIFFEL_TABLES")]
)
def test_a_tables_folder_that_is_a_file_speaks_the_variants_language_without_a_locale(tmp_path, variant, said):
    """The folder is checked before the command knows its variant: without --lang and a locale (LANG=C), the
    refusal speaks as a usage error does, in the language of the variant named (it was English)."""
    (tmp_path / "file").write_text("")
    args = ("advise", variant, "--dice", "1,2,3,4,5", "--roll", "1")
    res = invoke(*args, env={"LANG": "C", "KNIFFEL_TABLES": str(tmp_path / "file")})
    assert res.exit_code == 2 and res.stderr.startswith(f"kniffel: {said} ") and res.stderr.count("\n") == 1
    res = invoke(*args, env={"LANG": "en_GB.UTF-8", "KNIFFEL_TABLES": str(tmp_path / "file")})
    assert res.stderr.startswith("kniffel: error: $KNIFFEL_TABLES ")


def test_table_refusals_in_german(kdir, tmp_path):
    (tmp_path / "kniffel.json").write_bytes((kdir / "kniffel.json").read_bytes())
    (tmp_path / "kniffel.npy").write_bytes((kdir / "kniffel.npy").read_bytes()[:1000])
    res = invoke("--tables", str(tmp_path), "advise", "33516")
    assert res.exit_code == 2 and res.stderr.strip() == (
        f"kniffel: Fehler: Tabelle {tmp_path / 'kniffel.npy'} passt nicht zur Prüfsumme in ihrer Begleitdatei "
        "(beschädigt oder verändert); neu berechnen mit `kniffel solve kniffel`"
    ), res.stderr
    res = invoke("--lang", "de", "--tables", "/dev/null", "value", "kniffel")
    assert "--tables /dev/null ist kein Ordner" in res.stderr, res.stderr
    res = invoke("play", "kniffel", "--players", "Anna")
    assert "an einem Tisch sitzen 2 bis 6 Spieler" in res.stderr, res.stderr


FULL_KNIFFEL_CARD = ",".join(f"{i}=0" for i in range(1, 13)) + ",chance=17"


@pytest.mark.parametrize(
    "args, german, english",
    [
        (["chances", "kniffel7", "--target", "0"], "ein Ziel ist ein Endstand von mindestens 1", "at least 1"),
        (["solve", "kniffel7", "--target"], "Zieltabelle (unterscheidbare Würfel) entsteht als Auftrag", "told apart"),
        (["distribution", "kniffel7", "--card", "ones=7"], "Einser kann in kniffel7 nicht 7", "Ones cannot hold 7"),
        (["odds", "kniffel7", "--card", "", "--card", "sevens=8"], "Siebener kann in kniffel7 nicht", "cannot hold 8"),
        (["advise", "yahtzee", "12345", "--keep-one"], "gibt es nur für kniffel, nicht für yahtzee", "kniffel only"),
        (["simulate", "yatzy", "--keep-one"], "gibt es nur für kniffel, nicht für yatzy", "kniffel only"),
        (["odds", "kniffel", "--card", ""], "odds braucht 2 bis 6 Spieler", "odds need 2 to 6"),
        (["odds", "kniffel", "--card", "", "--card", "chance=20"], "nicht am Anfang derselben Runde", "same round"),
        (["odds", "kniffel", "--card", "", "--card", "", "--names", "a"], "1 Namen für 2 Zettel", "1 names for"),
        (["odds", "kniffel", "--card", "", "--card", "", "--names", "a,"], "Spielername ''", "player name ''"),
        (["distribution", "kniffel", "--at-least", "2000"], "muss zwischen 0 und 975 liegen", "between 0 and"),
        (
            ["advise", "kniffel", "12345", "--card", FULL_KNIFFEL_CARD, "--opponent", ""],
            "der Zettel ist voll",
            "the card is full",
        ),
    ],
)
def test_refusals_of_features_some_variants_lack_in_both_languages(kdir, args, german, english):
    """What used to be English in the German interface (the closing notes of stop 20): one line each, before
    any table is loaded or built."""
    for lang, said in (("de", german), ("en", english)):
        res = invoke("--tables", str(kdir), "--no-progress", "--lang", lang, *args)
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(PREFIX[lang]) and said in lines[0], res.stderr


@pytest.mark.parametrize("lang", sorted(PREFIX))
def test_the_error_word_speaks_the_language_of_the_message(lang, tmp_path):
    """`kniffel: error:` was English in every language: the word comes from the catalogue, for the command's
    own refusals, click's usage errors (before any command has set the language) and the locale's choice."""
    said = {"de": "3 Würfel angegeben", "en": "3 dice given", "es": "se indicaron 3 dados", "fr": "3 dés donnés"}
    res = invoke("--tables", str(tmp_path), "--lang", lang, "advise", "kniffel", "--dice", "1,2,3", "--roll", "1")
    assert res.exit_code == 2 and res.stderr.startswith(PREFIX[lang]) and said[lang] in res.stderr, res.stderr
    res = invoke("--lang", lang, "advise", "kniffel", "--bogus")
    assert res.exit_code == 2 and res.stderr.startswith(PREFIX[lang]) and "'--bogus'" in res.stderr, res.stderr
    res = invoke("advise", "yahtzee", "--bogus", env={"LANG": f"{lang}_XX.UTF-8"})
    assert res.stderr.startswith(PREFIX[lang]), res.stderr


def test_the_warning_word_speaks_the_language_too():
    from solver.cli.streams import error_line

    words = {"de": "Warnung: ", "en": "warning: ", "es": "aviso: ", "fr": "avertissement : "}
    for lang, word in words.items():
        assert error_line("a\nb", lang, kind="warning_line") == f"kniffel: {word}a\\nb"


def test_a_table_game_of_an_unknown_version_in_german(tmp_path):
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"format": "kniffel-game", "version": 9}))
    res = invoke("--lang", "de", "review", str(game))
    assert res.exit_code == 2, res.output
    assert "hat Version 9; dieses Programm liest 1 (ein Spieler) und 2 (ein Tisch)" in res.stderr, res.stderr


@pytest.mark.parametrize(
    "lang, said",
    [
        ("es", ["9. Escalera corta (Little Straight)", "11. Elección (Choice)", "1. Unos (Einser)"]),
        ("fr", ["10. Grande suite (Big Straight)", "Grande main (Big Hand)", "1. As (Einser)", "1. As (Unos)"]),
        ("en", ["1. Ones (Einser)", "1. Ones (Unos)"]),
    ],
)
def test_variants_name_each_box_in_the_language_and_beside_it_as_the_games_players_write_it(tmp_path, lang, said):
    """Yacht's and Cheerio's boxes were English in Spanish and French, and a Kniffel game's original names
    beside them English too, where its players write German."""
    res = invoke("--tables", str(tmp_path), "--lang", lang, "variants")
    assert res.exit_code == 0, res.output
    for text in said:
        assert text in " ".join(res.stdout.split()), text


@pytest.mark.parametrize(
    "lang, one, none",
    [("en", "1 point on the card", "0 points)"), ("es", "1 punto en la planilla", "0 puntos)")]
    + [("fr", "1 point sur la grille", "0 point)"), ("de", "1 Punkt auf dem Zettel", "0 Punkte)")],
)
def test_points_on_a_card_take_the_languages_plural(kdir, lang, one, none):
    """'1 puntos en la planilla': a card's points were always plural (French says 0 point, too)."""
    res = invoke("--tables", str(kdir), "--lang", lang, "value", "kniffel", "--card", "einser=1")
    assert res.exit_code == 0 and one in res.stdout, res.output
    res = invoke("--tables", str(kdir), "--lang", lang, "advise", "kniffel", "--dice", "12345", "--roll", "1")
    assert res.exit_code == 0 and none in res.stdout.splitlines()[0], res.output


@pytest.mark.parametrize(
    "args, said",
    [(["--lang", "es", "--version"], "kniffel, versión "), (["--version", "--lang", "de"], "kniffel, Version ")]
    + [(["--version"], "kniffel, version ")],
)
def test_version_speaks_the_language_of_the_command_line(args, said):
    """--version was English whatever the language."""
    res = invoke(*args)
    assert res.exit_code == 0 and res.stdout.startswith(said), res.output


@pytest.mark.parametrize(
    "lang, said", [("es", "Falta el argumento 'VARIANTE'."), ("fr", "Argument manquant 'VARIANTE'.")]
)
def test_a_missing_argument_is_named_as_the_help_names_it(lang, said):
    """'Falta el argumento 'VARIANT'': the usage line says VARIANTE."""
    res = invoke("--lang", lang, "value")
    assert res.exit_code == 2 and said in res.stderr, res.output
