"""Issue 29: the gettext catalogues (complete, not fuzzy, the English {fields}), numbers as each language writes
them, the language chosen by --lang, the locale or the variant, and box names as players write them."""

import importlib.util
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.cli import cli
from solver.i18n import gettext_files
from solver.i18n.texts import choose_language, count_text, locale_language, number, set_language, t
from solver.rules.presets import PRESETS
from solver.rules.variant import RuleError
from solver.store import tables

NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "catalogues.py"


@pytest.fixture(scope="module")
def catalogues():
    spec = importlib.util.spec_from_file_location("catalogues_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the catalogues ------------------------------------------------------------------------------------
def test_every_language_has_every_message_translated_with_the_english_fields(catalogues):
    template = catalogues.extract()
    assert len(template) > 500 and template.get("Yahtzee", context="box_yahtzee") is not None
    assert [p for lang in catalogues.LANGUAGES for p in catalogues.problems(template, lang)] == []


def test_the_check_finds_a_missing_a_fuzzy_and_a_wrong_field(catalogues, tmp_path, monkeypatch):
    po = gettext_files.po_path("fr").read_text(encoding="utf-8")
    broken = po.replace('msgstr "Score final : {points}"', 'msgstr "Score final : {score}"')
    broken = broken.replace('msgctxt "game_over"', '#, fuzzy\nmsgctxt "game_over"')
    broken = broken.replace('msgstr "interrompu"', 'msgstr ""')
    assert broken.count("\n") == po.count("\n") + 1
    (tmp_path / "fr" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "fr" / "LC_MESSAGES" / "kniffel.po").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(catalogues, "po_path", lambda lang: tmp_path / lang / "LC_MESSAGES" / "kniffel.po")
    found = catalogues.problems(catalogues.extract(), "fr")
    assert len(found) == 3, found
    assert any("final_score: fields ['score']" in p for p in found)
    assert any("game_over: fuzzy" in p for p in found) and any("interrupted: not translated" in p for p in found)


def test_update_changes_nothing_in_current_catalogues(catalogues, tmp_path, monkeypatch):
    for lang in catalogues.LANGUAGES:
        shutil.copytree(gettext_files.po_path(lang).parent, tmp_path / lang / "LC_MESSAGES")
    monkeypatch.setattr(catalogues, "po_path", lambda lang: tmp_path / lang / "LC_MESSAGES" / "kniffel.po")
    catalogues.update(catalogues.extract())
    for lang in catalogues.LANGUAGES:
        assert (tmp_path / lang / "LC_MESSAGES" / "kniffel.po").read_bytes() == gettext_files.po_path(lang).read_bytes()


def test_compiled_at_first_use_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(gettext_files, "_cache_folder", lambda: tmp_path)
    translation = gettext_files.translations("es")
    assert translation.pgettext("game_over", "== Game over ==") == "== Fin de la partida =="
    assert [p.suffix for p in tmp_path.iterdir()] == [".mo"]  # one .mo, no temp file left
    assert gettext_files.translations("es").pgettext("or", "or") == "o"  # read back from the cache


@pytest.mark.parametrize(
    "lang, one, many",
    [
        ("en", "over 1 decision.", "over 3 decisions."),
        ("de", "bei 1 Entscheidung.", "bei 3 Entscheidungen."),
        ("es", "en 1 decisión.", "en 3 decisiones."),
        ("fr", "sur 1 décision.", "sur 3 décisions."),
    ],
)
def test_plural_forms(lang, one, many):
    set_language(lang)
    assert t("game_loss", loss="-1", count=1).endswith(one) and t("game_loss", loss="-1", count=3).endswith(many)


# -- numbers -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "lang, expected, thousands, percent",
    [
        ("en", "245.11", "1,234,567", "45.7%"),
        ("de", "245,11", "1.234.567", "45,7\xa0%"),
        ("es", "245,11", "1.234.567", "45,7\xa0%"),
        ("fr", "245,11", "1\u202f234\u202f567", "45,7\xa0%"),
    ],
)
def test_numbers_per_language(lang, expected, thousands, percent):
    set_language(lang)
    assert f"{expected})" in t("turn_header", turn=3, turns=13, points=120, expected=245.114)
    assert count_text(1234567) == thousands and number(0.4567, ".1%") == percent
    assert number(-0.5, ">7.2f") == f"{'-0.50':>7}".replace(".", expected[3]) and number(7, ">3") == "  7"


# -- the language ------------------------------------------------------------------------------------
def test_the_variant_speaks_its_players_language_unless_told_otherwise():
    assert [PRESETS[v].lang for v in ("kniffel", "yahtzee", "generala", "yams")] == ["de", "en", "es", "fr"]
    assert choose_language(None, "es", {"LANG": "C"}) == "es"
    assert choose_language(None, "es", {"LANG": "fr_FR.UTF-8"}) == "fr"
    assert choose_language("de", "fr", {"LANG": "es_AR.UTF-8"}) == "de"


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({"LANGUAGE": "fr:de", "LANG": "de_DE.UTF-8"}, "fr"),  # GNU gettext: the list before LANG
        ({"LANGUAGE": "sv:pt_BR:es_AR", "LANG": "de_DE.UTF-8"}, "es"),  # the first of ours in the list
        ({"LANGUAGE": "sv", "LANG": "de_DE.UTF-8"}, "de"),  # none of ours: the locale decides
        ({"LANGUAGE": "fr", "LANG": "C"}, None),  # the C locale: LANGUAGE ignored, as gettext does
        ({"LANGUAGE": "fr", "LANG": "C.UTF-8"}, None),
        ({"LANGUAGE": "fr", "LC_ALL": "POSIX", "LANG": "de_DE"}, None),
        ({"LANGUAGE": "fr"}, None),  # no locale at all is the C locale
        ({"LANGUAGE": "::de_AT@euro", "LC_MESSAGES": "en_US.UTF-8"}, "de"),
        ({"LANGUAGE": "", "LANG": "es_ES"}, "es"),
    ],
)
def test_language_list_as_gettext_reads_it(environ, expected):
    assert locale_language(environ) == expected


def test_language_list_chooses_the_cli_language():
    result = CliRunner(env={**NO_LOCALE, "LANG": "de_DE.UTF-8", "LANGUAGE": "fr"}).invoke(
        cli, ["--tables", "/nonexistent/x", "variants", "--json", "--bogus"], prog_name="kniffel"
    )
    assert result.exit_code == 2 and result.output.startswith("kniffel: erreur :") and "'--bogus'" in result.output


def invoke(*args, env=None):
    return CliRunner(env={**NO_LOCALE, **(env or {})}).invoke(cli, list(args), prog_name="kniffel")


@pytest.fixture(scope="module")
def gdir(tmp_path_factory, solved):
    d = tmp_path_factory.mktemp("generala_tables")
    tables.save(PRESETS["generala"], solved("generala"), d, states=0, seconds=0.0)
    return d


@pytest.mark.parametrize(
    "lang, words",
    [
        ([], ["generala, tirada 1: 3 3 5 1 6", "Lo mejor: guardar 3 3, tirar 3 dados", "160,49", "jugada"]),
        (["--lang", "fr"], ["generala, lancer 1 : 3 3 5 1 6", "Le mieux : garder 3 3, relancer 3 dés", "160,49"]),
        (["--lang", "en"], ["generala, roll 1: 3 3 5 1 6", "Best: keep 3 3, reroll 3 dice", "160.49"]),
    ],
)
def test_advise_in_each_language(gdir, lang, words):
    res = invoke("--tables", str(gdir), "advise", "generala", "33516", *lang)
    assert res.exit_code == 0, res.output
    for word in words:
        assert word in res.output, (word, res.output)


@pytest.mark.parametrize(
    "lang, text",
    [
        ("es", "casilla desconocida 'escalra' para generala. ¿Quisiste decir Escalera?"),
        ("fr", "case inconnue 'escalra' pour generala. Vouliez-vous dire Suite ?"),
    ],
)
def test_a_bad_box_is_one_line_in_the_chosen_language(gdir, lang, text):
    res = invoke("--tables", str(gdir), "advise", "generala", "33516", "--card", "escalra=20", "--lang", lang)
    assert res.exit_code == 2 and text in res.output and len(res.output.strip().splitlines()) == 1, res.output


# -- box names as players write them -------------------------------------------------------------------
@pytest.mark.parametrize(
    "variant, names, key",
    [
        ("generala", ["unos", "1"], "ones"),
        ("generala", ["seis", "Seises"], "sixes"),
        ("generala", ["E", "Escalera servida"], "escalera"),
        ("generala", ["F", "full servido", "Full"], "full"),
        ("generala", ["P", "Póquer", "poker"], "poker"),
        ("generala", ["G"], "generala"),
        ("generala", ["DG", "doble"], "doble_generala"),
        ("yams", ["as"], "ones"),
        ("yams", ["deux"], "twos"),
        ("yams", ["six"], "sixes"),
        ("yams", ["brelan"], "brelan"),
        ("yams", ["carré", "Carre"], "carre"),
        ("kniffel", ["Kl. Straße", "kl strasse"], "small_straight"),
        ("kniffel", ["Gr. Straße"], "large_straight"),
        ("kniffel", ["full"], "full_house"),
    ],
)
def test_box_names_as_players_write_them(variant, names, key):
    v = PRESETS[variant]
    for name in names:
        assert v.boxes[v.find_box(name)].key == key, name


def _variants(text: str, flips) -> str:
    """The same name with its letters' case flipped and its accents dropped where `flips` says."""
    import unicodedata

    out = []
    for c, (upper, plain) in zip(text, flips):
        if plain:
            c = "".join(x for x in unicodedata.normalize("NFD", c) if not unicodedata.combining(x))
        out.append(c.upper() if upper else c.lower())
    return "".join(out)


@settings(deadline=None, max_examples=60)
@given(
    st.sampled_from([("generala", "Póker"), ("yams", "Carré"), ("kniffel", "Große Straße"), ("generala", "Doble")]),
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=14, max_size=14),
)
def test_box_names_ignore_case_and_accents(named, flips):
    variant, name = named
    v = PRESETS[variant]
    assert v.find_box(_variants(name, flips)) == v.find_box(name)


def test_undo_in_every_language():
    from solver.game.entry import words

    for lang, word in (("de", "rückgängig"), ("es", "deshacer"), ("fr", "annuler"), ("en", "undo")):
        set_language(lang)
        assert word in words("words_undo"), lang
    set_language("es")
    with pytest.raises(RuleError, match="¿Quisiste decir"):
        PRESETS["generala"].find_box("generla servda")


@pytest.mark.parametrize(
    "lang, served", [("es", "anotar 25 en Escalera (servida, +5)"), ("en", "score Escalera for 25 (served, +5)")]
)
def test_the_advice_says_servida(gdir, lang, served):
    res = invoke("--tables", str(gdir), "advise", "generala", "23456", "--box", "--lang", lang)
    assert res.exit_code == 0 and served in res.output, res.output
    after_roll_3 = invoke("--tables", str(gdir), "advise", "generala", "23456", "--roll", "3", "--lang", lang)
    assert "+5)" not in after_roll_3.output and "20" in after_roll_3.output, after_roll_3.output


@pytest.mark.parametrize(
    "variant, lang, words",
    [
        (
            "generala",
            [],
            ("Tirada 1, los 5 dados:", "¿Qué dados guardás?", "deshacer", "  deshecho", "== Turno 1 de 11"),
        ),
        ("yams", [], ("Lancer 1, les 5 dés :", "Quels dés garder ?", "annuler", "  annulé", "== Tour 1 sur 13")),
        (
            "kniffel",
            ["--lang", "de"],
            ("Wurf 1, alle 5 Würfel:", "Welche Würfel behalten?", "rückgängig", "zurückgenommen", "== Runde 1 von 13"),
        ),
    ],
)
def test_play_in_the_players_language_with_its_undo(tmp_path, tables_of, variant, lang, words):
    pexpect = pytest.importorskip("pexpect")
    from helpers import spawn

    roll, keep, undo, undone, header = words
    child = spawn(tables_of(variant), tmp_path, variant, *lang, env=NO_LOCALE)
    child.expect_exact(header)
    child.expect_exact(roll)
    child.sendline("33516")
    child.expect_exact(keep)
    child.sendline(undo)
    child.expect_exact(undone)
    child.expect_exact(roll)
    child.sendline("q")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize(
    "lang, said",
    [
        ("en", "1 win, 0 ties, 2 losses"),
        ("es", "1 victoria, 0 empates, 2 derrotas"),
        ("fr", "1 victoire, 0 égalité, 2 défaites"),  # French counts 0 in the singular
        ("de", "1 Sieg, 0 Gleichstände, 2 Niederlagen"),
    ],
)
def test_versus_counts_take_the_languages_plural(lang, said):
    """'1 victorias, 0 empates, 1 derrotas': the counts of `simulate --versus` were always plural."""
    from solver.i18n.texts import speaking

    with speaking(lang):
        words = [t(f"versus_{name}", n=str(k), count=k) for name, k in (("wins", 1), ("ties", 0), ("losses", 2))]
    assert ", ".join(words) == said


WORDS = ["mot", "règle", "maison", ":", ";", "45,5", "%", "s)", "3,55", "±", "(x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=60))
def test_a_wrapped_line_never_breaks_before_french_punctuation_a_unit_or_after_plus_minus(words):
    """'(semilla 1, 44,75\\n    s)', '49,49 % ±\\n    3,55 %' and 'la règle maison\\n : 3' read badly."""
    from solver.advice.explain import fit

    text = " ".join(words)
    lines = fit(text).split("\n")
    assert " ".join(line.strip() for line in lines).split() == text.split()  # nothing lost or changed
    for line in lines[1:]:
        head = line.strip()
        assert not head.startswith((":", ";", "%")), lines
        assert not (head.startswith("s)") and lines[lines.index(line) - 1].rstrip()[-1:].isdigit()), lines
    for line in lines[:-1]:
        assert not line.rstrip().endswith("±"), lines
