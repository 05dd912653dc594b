"""The cheap pre-filter: one scan that tells a text no built-in detector can fire on.

Most stored texts are prose: letters, spaces and sentence punctuation. On such a
text (every character in :data:`PLAIN_CHARACTERS`) a built-in detector can fire
only at one of these, so a plain text holding none of them is returned as it is,
without running the detectors:

- a run of :data:`TOKEN_RUN` or more letters and dots: every provider token and
  JWT needs one (their shortest matches over such text are 20 characters long;
  ``tests/test_prefilter.py`` holds every catalogued pattern to that);
- ``bearer`` (a bearer value may be letters alone);
- ``password`` or ``identified by`` (SQL ``PASSWORD 'value'``, netrc lines);
- a noun that names a secret, as a whole word ("the wifi code is ..."): the
  stated-secret detector's own nouns (:data:`SECRET_WORDS`), the word for a password
  in each language of :mod:`tinymemory_safety.secret_names` among them.

The scan is a few of Python's byte operations over the text (no regular
expression, whose alternations would cost more than the detectors they spare).

Everything else a detector needs is outside the plain characters: digits (cards,
phones, identifiers, dates, IP addresses), ``=`` and ``:`` (assignments,
headers), ``@`` (emails, URL passwords), ``-`` and ``_`` (key blocks, flags,
most token prefixes), ``/``, ``<``, ``(``, ``+``, ``~`` and any non-ASCII
character (folded look-alike digits, other scripts' nouns). A text holding any
of those gets every detector, as before. The host's own patterns are not
covered: a policy that has some runs every text through the detectors.
"""

from __future__ import annotations

from tinymemory_safety.secret_names import password_terms

#: Letters, whitespace and sentence punctuation: what no detector can fire on alone.
_PLAIN = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz \t\n\r.,!?'\""
#: The shortest run of letters and dots any provider token or JWT can be made of.
TOKEN_RUN = 20
#: Every plain character as ``a`` (letters and the full stop: the makings of a run) or
#: as a space (what ends one), so a run of ``TOKEN_RUN`` is one search for as many ``a``.
_AS_RUNS = bytes.maketrans(
    _PLAIN, bytes(b"a"[0] if chr(c).isalpha() or c == b"."[0] else b" "[0] for c in _PLAIN)
)
#: Words that end a word: the punctuation, as spaces.
_WORD_ENDS = bytes.maketrans(b".,!?'\"", b"      ")
#: The nouns of the stated-secret detector (``assignments.SECRET_NOUN``) written in
#: ASCII letters, as whole words: the first word of those of several words.
SECRET_WORDS = frozenset(
    b"password passwort passwd passphrase pass passcode pin otp code key secret token "
    b"contrasena clave mot mdp kennwort senha wachtwoord haslo parola".split()
) | {term.split()[0].encode() for term in password_terms() if term.isascii()}


def may_hold_secret(text: str) -> bool:
    """Whether any built-in detector could find something in ``text`` (see the module).

    Two texts joined by a line break are ruled out only when each is, so a batch's
    texts are read in one call (``SafetyScrubber.scrub_many``).
    """
    if not text.isascii():
        return True
    data = text.encode("ascii")
    if data.translate(None, _PLAIN):
        return True  # a character outside the plain ones
    lower = data.lower()
    if b"bearer" in lower or b"password" in lower or b"identified by" in lower:
        return True
    if b"a" * TOKEN_RUN in lower.translate(_AS_RUNS):
        return True
    return not SECRET_WORDS.isdisjoint(lower.translate(_WORD_ENDS).split())
