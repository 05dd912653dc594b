"""The words that name a secret in a column header or a key, in many languages.

A CSV exported in German heads its column ``Passwort``, a Polish one
``Hasło``, a Turkish one ``Şifre``. The table is the concepts a secret is
named by (password, secret, key, token, credentials, PIN) written out for
each of the 24 official languages of the EU and Catalan, Icelandic,
Norwegian, Serbian, Turkish, Russian and Ukrainian, a row a language, so a
language missing a concept shows as a gap, not as a word nobody thought of.
No installed library carries this vocabulary (CLDR, libphonenumber's and
stdnum's locale data name countries and numbers, not credentials), so it is
written here; each word is the term the language's own software uses
(its localisations of a login form).

A header names a secret when one of its words is such a term, starts with
one (an inflection: ``hasła``, ``klucza``), or ends with one (a compound:
``Datenbankpasswort``, ``Zugangsschlüssel``); terms of several words
(``mot de passe``) are looked for as a phrase.
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: (language, terms): password; secret; key; token; credentials; PIN or passcode.
_TERMS_BY_LANGUAGE: tuple[tuple[str, str], ...] = (
    ("bg", "парола; тайна; ключ; токен; идентификационни данни"),
    ("ca", "contrasenya; secret; clau; testimoni; credencials"),
    ("cs", "heslo; tajemství, tajný; klíč; token; přihlašovací údaje"),
    ("da", "adgangskode, kodeord; hemmelighed; nøgle; token; loginoplysninger; pinkode"),
    (
        "de",
        "passwort, kennwort; geheimnis; schlüssel; token; zugangsdaten, anmeldedaten; geheimzahl",
    ),
    ("el", "κωδικός πρόσβασης, συνθηματικό; μυστικό; κλειδί; διακριτικό; διαπιστευτήρια"),
    ("es", "contraseña, clave; secreto; llave; token; credenciales"),
    ("et", "parool, salasõna; saladus; võti; märk; volitused"),
    ("fi", "salasana; salaisuus; avain; tunnussana; tunnistetiedot"),
    ("fr", "mot de passe, mdp; secret; clé, clef; jeton; identifiants"),
    ("ga", "pasfhocal; rún; eochair; comhartha; dintiúir"),
    ("hr", "lozinka; tajna; ključ; token; vjerodajnice"),
    ("hu", "jelszó, jelszava; titok; kulcs, kulcsa; token; hitelesítő adatok"),
    ("is", "lykilorð; leyndarmál; lykill; tóki; auðkenni"),
    ("it", "password, parola d'ordine; segreto; chiave; token; credenziali"),
    ("lt", "slaptažodis, slaptažodžio; paslaptis; raktas; žetonas; prisijungimo duomenys"),
    ("lv", "parole; noslēpums; atslēga; marķieris; akreditācijas dati"),
    ("mt", "password; sigriet; ċavetta; token; kredenzjali"),
    ("nl", "wachtwoord; geheim; sleutel; token; inloggegevens"),
    ("no", "passord; hemmelighet; nøkkel; token; påloggingsinformasjon"),
    ("pl", "hasło; sekret; klucz; token; dane uwierzytelniające"),
    ("pt", "senha, palavra-passe; segredo; chave; token; credenciais"),
    ("ro", "parolă, parola; secret; cheie, cheia; token; credențiale"),
    ("ru", "пароль; секрет; ключ; токен; учётные данные, учетные данные"),
    ("sk", "heslo; tajomstvo; kľúč; token; prihlasovacie údaje"),
    ("sl", "geslo; skrivnost; ključ; žeton; poverilnice"),
    ("sr", "лозинка, lozinka; тајна; кључ; токен; акредитиви"),
    ("sv", "lösenord; hemlighet; nyckel; token; inloggningsuppgifter"),
    ("tr", "şifre, parola; gizli; anahtar; belirteç; kimlik bilgileri"),
    ("uk", "пароль; секрет; ключ; токен; облікові дані"),
)
#: The shortest term a compound may end with or an inflected word open with: shorter ones
#: (``mdp``, ``clé``) are matched as whole words only.
_AFFIXED = 5
#: The most letters an inflection adds to a term (``hasła``, ``klucza``, ``Passworts``).
_ENDING = 3
_WORD = re.compile(r"[^\W\d_]+")


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text).lower().replace("\u0307", "")


@functools.cache
def _terms() -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """(one-word terms, those long enough to take affixes, terms of several words)."""
    words: set[str] = set()
    phrases: list[str] = []
    for _, row in _TERMS_BY_LANGUAGE:
        for concept in row.split(";"):
            for term in concept.split(","):
                term = _normal(term.strip())
                pieces = _WORD.findall(term)
                if len(pieces) == 1:
                    words.add(pieces[0])
                elif pieces:
                    phrases.append(" ".join(pieces))
    affixed = tuple(sorted(word for word in words if len(word) >= _AFFIXED))
    return frozenset(words), affixed, tuple(phrases)


@functools.cache
def password_terms() -> tuple[str, ...]:
    """The words for a password (each row's first concept) in every language of the table,
    lowercased, longest first (so a pattern built of them tries ``mot de passe`` before
    ``mot``)."""
    terms = {
        _normal(term.strip())
        for _, row in _TERMS_BY_LANGUAGE
        for term in row.split(";")[0].split(",")
        if term.strip()
    }
    return tuple(sorted(terms, key=lambda term: (-len(term), term)))


def names_secret(name: str) -> bool:
    """Whether a header cell or key names a secret in one of the table's languages."""
    words, affixed, phrases = _terms()
    found = _WORD.findall(_normal(name))
    for word in found:
        if word in words:
            return True
        for term in affixed:
            if word.endswith(term) or (word.startswith(term) and len(word) - len(term) <= _ENDING):
                return True
    joined = " ".join(found)
    return any(phrase in joined for phrase in phrases)
