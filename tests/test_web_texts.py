"""Issue 29, the page's languages: /api/texts from the catalogues, every answer in the language of the request's
Accept-Language header (the page sends the reader's choice there), the favicon."""

import pytest
from test_web_api import TestClient  # skipped as test_web_api.py is without the web extra

from solver.i18n.texts import SOURCE
from solver.rules.presets import PRESETS
from solver.store import tables
from solver.web.app import create_app
from solver.web.page_texts import accepted_language

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def client(tmp_path_factory, solved):
    d = tmp_path_factory.mktemp("web-texts-tables")
    tables.save(PRESETS["generala"], solved("generala"), d, states=0, seconds=0.0)
    with TestClient(create_app(d, solve_missing=False)) as c:
        yield c


@pytest.mark.parametrize(
    "header, lang",
    [
        ("es-AR,es;q=0.9,en;q=0.8", "es"),
        ("ja-JP, fr;q=0.5, de;q=0.7", "de"),
        ("fr-CH", "fr"),
        ("ja, zh;q=0.9", None),
        ("", None),
        ("de;q=0, en;q=0.1", "en"),
        ("es;q=abc, fr;q=0.2", "fr"),
    ],
)
def test_accept_language(header, lang):
    assert accepted_language(header) == lang


def test_texts_in_every_language(client):
    web_keys = {key for key in SOURCE if key.startswith("web_")}
    headings = {}
    for lang in ("de", "en", "es", "fr"):
        body = client.get(f"/api/texts?lang={lang}").json()
        assert body["lang"] == lang and set(body["texts"]) == web_keys and all(body["texts"].values())
        headings[lang] = body["texts"]["web_heading"]
    assert headings == {
        "de": "Was soll ich behalten?",
        "en": "What should I keep?",
        "es": "¿Qué dados guardo?",
        "fr": "Que dois-je garder ?",
    }
    browser = client.get("/api/texts", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).json()
    assert browser["lang"] == "fr" and browser["browser"] == "fr"
    other = client.get("/api/texts", headers={"Accept-Language": "ja"}).json()
    assert other["lang"] == "en" and other["browser"] is None  # the page then speaks the variant's language
    bad = client.get("/api/texts?lang=xx", headers={"Accept-Language": "es"})
    assert bad.status_code == 400 and bad.json()["error"] == "lang=xx: la página habla de, en, es, fr"


def test_answers_speak_the_requests_language(client):
    url = "/api/advise?variant=generala&dice=33516&roll=1"
    texts = {lang: client.get(url, headers={"Accept-Language": lang}).json()["best"]["text"] for lang in ("es", "fr")}
    assert texts == {"es": "guardar 3 3, tirar 3 dados", "fr": "garder 3 3, relancer 3 dés"}
    assert client.get(url).json()["best"]["text"] == "keep 3 3, reroll 3 dice"  # no header: English, as before
    error = client.get("/api/advise?variant=generala&dice=3351", headers={"Accept-Language": "es"}).json()["error"]
    assert error.startswith("dados '3351': se indicaron 4 dados, generala tira 5"), error
    variants = client.get("/api/variants").json()
    generala = next(v for v in variants if v["variant"] == "generala")
    assert generala["lang"] == "es" and [b["es"] for b in generala["boxes"]][:2] == ["Unos", "Doses"]
    assert [b["fr"] for b in generala["boxes"]][-1] == "Double Generala"


def test_box_options_name_the_box_in_the_requests_language(client):
    """A box's name in an option follows the reader, not the variant (the English page said 'score Unos')."""
    url = "/api/advise?variant=generala&card=ones=3&dice=66612&roll=3"
    said = {}
    for lang in ("de", "en", "es", "fr"):
        best = client.get(url, headers={"Accept-Language": lang}).json()["best"]
        said[lang] = (best["text"], best["box_name"])
    assert said["en"][1] == "Sixes" and "Sixes" in said["en"][0], said
    assert said["es"] == ("anotar 18 en Seis", "Seis"), said
    assert said["de"][1] == "Sechser" and said["fr"][1] == "Six", said
    assert client.get(url).json()["best"]["box_name"] == "Seis"  # no header: the variant's name, as the CLI's


def test_favicon_and_page_texts_marked(client):
    page = client.get("/").text
    assert 'rel="icon" href="/static/favicon.svg"' in page and 'data-text="web_heading"' in page
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.text.startswith("<svg")


def test_the_apis_own_refusals_speak_the_requests_language(client):
    es = {"Accept-Language": "es"}
    assert client.get("/api/advise?bogus=1", headers=es).json()["error"].startswith("parámetro desconocido 'bogus'")
    assert client.get("/api/advise?roll=4", headers=es).json()["error"] == "la tirada tiene que ser 1, 2 o 3, no '4'"
    missing = client.get("/api/nothing", headers={"Accept-Language": "fr"})
    assert missing.status_code == 404 and missing.json()["error"] == "cet appel d'API n'existe pas : /api/nothing"
    assert client.get("/api/advise?roll=4").json()["error"] == "roll must be 1, 2 or 3, not '4'"


def test_a_full_queues_503_speaks_the_requests_language(tmp_path):
    from solver.web.work import RETRY_AFTER_S, Jobs

    with TestClient(create_app(tmp_path, solve_missing=False, jobs=Jobs(limit=0))) as full:
        answer = full.get("/api/value?variant=kniffel", headers={"Accept-Language": "fr"})  # its table: a job
    assert answer.status_code == 503 and answer.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert answer.json()["error"].startswith("le serveur est occupé : 0 long calcul")
