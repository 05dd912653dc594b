"""Role mailboxes as a class: a local part made only of words naming a function.

An organisation publishes mailboxes for what it does, not for who does it:
RFC 2142 names the first (``abuse``, ``noc``, ``security``, ``postmaster``,
``hostmaster``, ``webmaster``, ``info``, ``marketing``, ``sales``,
``support``...), and organisations name the rest the same way, after a duty,
a department, a channel or a kind of message (``accessibility``,
``phishing``, ``privacy``, ``dpo``, ``press``, ``careers``,
``security-reports``, ``data.protection``, ``customerservice``). A person's
mailbox holds a name (``john``, ``j.smith``, ``maria.garcia``), and a given
name or a surname is no word of that kind. An on-call rota (``ops-oncall``) reaches the
people on call that week: the shared corpus holds it personal, and its words are not in
the vocabulary.

So the rule: the local part (before a ``+`` tag) is cut at ``.``, ``-``,
``_`` and digits into words, and a word that runs several together
(``customerservice``, ``bugbounty``) is cut into the vocabulary's words of
three letters or more; the mailbox is a role's when every word is one of
:data:`FUNCTION_WORDS`. The vocabulary holds nouns and particles for an
organisation's functions only, and leaves out the words that are also common
given names (``bill``, ``grace``, ``mark``, ``will``...): a local part with a
name in it stays personal.
"""

from __future__ import annotations

import functools
import re

#: Words naming a function of an organisation: RFC 2142's names first, then duties,
#: departments, channels and kinds of message (English, and the common ones of a few
#: other languages). No given name is among them.
_VOCABULARY = (
    # RFC 2142 and the mail system's own.
    "abuse noc security postmaster hostmaster usenet news webmaster www uucp ftp info "
    "marketing sales support mailer daemon bounce bounces dmarc dkim spf smtp imap list "
    "lists listserv majordomo owner request requests subscribe unsubscribe root admin "
    "administrator sysadmin devnull null nobody "
    # Replies and notices.
    "and of for no not do reply replies noreply donotreply auto automated notification "
    "notifications "
    "notify alert alerts notice notices updates update announce announcements newsletter "
    "digest status system systems robot bot mailbot "
    # Security, trust and safety.
    "accessibility phishing spam fraud scam report reports reporting incident incidents "
    "vulnerability vulnerabilities vuln disclosure bug bugs bounty bugbounty cert csirt psirt "
    "soc secure trust safety ethics whistleblower whistleblowing integrity "
    # Privacy, legal and compliance.
    "privacy dpo gdpr data protection legal counsel contracts licensing license licence "
    "copyright dmca trademark trademarks policy regulatory compliance audit risk governance "
    # Customers and contact.
    "help helpdesk helpline hotline desk front frontdesk service services customer customers "
    "client clients care success contact contacts hello enquiries enquiry inquiries inquiry "
    "questions question ask feedback suggestions ideas complaints complaint claims general "
    "main reception office headquarters team staff everyone "
    # Commerce.
    "billing invoice invoices invoicing payments payment accounts account payable "
    "receivable finance accounting payroll tax treasury procurement purchasing orders order "
    "shop store webshop returns refunds warranty repairs shipping delivery logistics quotes "
    "tenders vendors suppliers partners partner partnerships affiliates reseller resellers "
    "sponsors sponsorship donations donate fundraising membership members subscriptions "
    "business investors investor relations shareholders "
    # People and press.
    "press media newsroom communications comms publicity editor editors editorial brand "
    "social ads advertising events event tickets bookings booking reservations jobs careers "
    "career recruiting recruitment hiring talent people human resources benefits training "
    "internships alumni students admissions registrar volunteer volunteers community "
    "moderators forum "
    # Engineering and operations.
    "opensource open source oss web website site webteam dev developer developers api "
    "engineering product research operations devops sre infra "
    "infrastructure network netops dns hosting it itsupport hr pr qa tech technical monitoring "
    "facilities emergency health "
    # Other languages' common ones (German, French, Spanish, Italian, Dutch, Portuguese).
    "kontakt impressum datenschutz presse anfragen rechnung bestellung kundenservice "
    "contacto ventas soporte facturation commercial assistance ayuda informacion contatto "
    "assistenza vendite klantenservice contato atendimento suporte"
)
FUNCTION_WORDS = frozenset(_VOCABULARY.split())
#: The shortest vocabulary word read inside a word that runs several together.
_JOINED_PART = 3
_WORDS = re.compile(r"[a-z]+")


def role_local_part(local: str) -> bool:
    """Whether a local part (``security-reports``, ``data.protection+eu``) names a role."""
    name = local.lower().split("+", 1)[0]
    words = _WORDS.findall(name)
    if not words or not name.isascii():
        return False
    return all(word in FUNCTION_WORDS or _joined(word) for word in words)


@functools.lru_cache(maxsize=1024)
def _joined(word: str) -> bool:
    """Whether ``word`` is vocabulary words of :data:`_JOINED_PART` letters or more run together."""
    if not word:
        return True
    return any(
        word[:cut] in FUNCTION_WORDS and _joined(word[cut:])
        for cut in range(len(word), _JOINED_PART - 1, -1)
    )
