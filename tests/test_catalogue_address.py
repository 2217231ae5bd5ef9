"""The French catalogue speaks to the player in one form: "vous", the form of most of its messages (56 said vous,
13 said tu before these were changed). A message with "tu", its possessives or a "tu" imperative at the start of
a clause fails here, with its key."""

import re

import pytest
from babel.messages.pofile import read_po

from solver.i18n.gettext_files import po_path

TU_WORDS = re.compile(r"(?<![\w'’-])(tu|ton|ta|tes|toi|te|t['’])(?![\w-])", re.IGNORECASE)
# the imperatives the catalogue uses, in their "tu" form, where a clause starts (they read as "vous" with -ez)
TU_IMPERATIVE = re.compile(
    r"(?:^|[;:(]\s*|[.!?]\s+|\b(?:ou|et)\s+)(?:indique|supprime|donne|relance|choisis|reprends|vérifie|recommence|"
    r"démarre|nomme|tape|essaie|réessaie|construis|reconstruis|ajoute|écris|touche|retire|recharge|omets|copie|"
    r"lance|joue|garde|utilise|mets|fais)(?:s?-(?:la|le|les|en|y))?\b",
    re.IGNORECASE,
)


def french_messages():
    with open(po_path("fr"), "rb") as f:
        catalogue = read_po(f)
    for message in catalogue:
        if message.id:
            texts = message.string if isinstance(message.string, tuple) else (message.string,)
            yield message.context, " ".join(texts)


def test_the_french_catalogue_says_vous_throughout():
    tu = [(key, text) for key, text in french_messages() if TU_WORDS.search(text) or TU_IMPERATIVE.search(text)]
    assert tu == []


@pytest.mark.parametrize(
    "text, tu",
    [
        ("reprends-la avec : kniffel play", True),
        ("le second voit ta main", True),
        ("; démarres-en un", True),
        ("(ou choisis un autre --save FICHIER)", True),
        ("reprenez-la avec : kniffel play", False),
        ("; on relance {count} dés", False),
        ("{variant} lance {count} dés ; l'entrée", False),
        ("la tâche est faite", False),
    ],
)
def test_the_check_tells_tu_from_vous(text, tu):
    assert bool(TU_WORDS.search(text) or TU_IMPERATIVE.search(text)) is tu
