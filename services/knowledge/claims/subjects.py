"""Whom a claim is about, settled by the record, not by wording.

The model names a claim's subject and relation; a small model slips in two ways the record can
catch without reading any language:

* **a relation that is only the attribute's name** ("our son yaw, hes 4" read as subject yaw,
  relation *age*, attribute age), or one the claim's quote does not name ("Femi's got football
  at 6" read as Femi, the user's *friend*): a relation says who the subject is to the user, so
  the relation the record (or this message) already gives that subject stands;
* **a correction of someone else put on the user** ("i told u yaw is 4 but nah hes 5" read as
  the user's age; first contact, set 6): a claim put on the user whose quote names another
  subject of the record (by name or relation) that already holds that attribute, while the user
  holds none, is that subject's claim;
* **someone else's attribute put on the user under a label that opens on their relation**
  ("mother age" of "my mother is not seventy-four but seventy-six"): the one subject the record
  gives that relation, when the quote names it, holds the rest of the label ("age").

A claim the record cannot place stays as the model read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.knowledge.claims.render import subject_key
from services.knowledge.claims.verify import Checked, plain
from services.prompts.extract_claims import ClaimOut
from thea.models import USER_SUBJECT, Fact


@dataclass(frozen=True)
class Subject:
    """Someone or something of the user's record: how claims name it and who it is to the user."""

    key: str
    name: str
    relation: str


def _says_a_relation(relation: str | None, attribute: str | None) -> bool:
    told = plain(relation or "")
    return bool(told) and told not in ("self", plain(attribute or ""))


def _relation_told(claim: ClaimOut, subject: Subject) -> bool:
    """Whether the claim's relation stands: it says one, and it is the record's or its quote
    names it ("my wife Jess" after "my girlfriend Jess"). A relation the quote does not name is
    the model's guess (live: "Femi's got football at 6" read as Femi, the user's *friend*, with
    "Femi (your son)" on record)."""
    if not _says_a_relation(claim.relation, claim.attribute):
        return False
    return plain(claim.relation) == plain(subject.relation) or _named_in(claim.quote, plain(claim.relation))


def known_subjects(checked: Sequence[Checked], current: Sequence[Fact]) -> dict[str, Subject]:
    """The subjects other than the user, by key, with the relation the record gives them (the
    newest claim that says one), else the first this message gives."""
    known: dict[str, Subject] = {}
    for fact in sorted(current, key=lambda f: -f.created_at):
        key = fact.subject_key or USER_SUBJECT
        if key != USER_SUBJECT and key not in known and _says_a_relation(fact.relation, fact.attribute):
            known[key] = Subject(key, fact.subject or key, fact.relation or "")
    for item in checked:
        claim = item.claim
        key = subject_key(claim.subject, item.about_user)
        if key != USER_SUBJECT and key not in known and _says_a_relation(claim.relation, claim.attribute):
            known[key] = Subject(key, claim.subject, claim.relation)
    return known


def _attributes(current: Sequence[Fact]) -> dict[str, set[str]]:
    held: dict[str, set[str]] = {}
    for fact in current:
        held.setdefault(fact.subject_key or USER_SUBJECT, set()).add(plain(fact.attribute or ""))
    return held


def _named_in(quote: str, key: str) -> bool:
    words = plain(quote).split()
    name = key.split()
    return any(words[i : i + len(name)] == name for i in range(len(words) - len(name) + 1))


def _relation_in_label(claim: ClaimOut, known: dict[str, Subject]) -> tuple[Subject, str] | None:
    """The one subject of the record whose relation opens the label of a claim put on the user,
    and the rest of the label, when the quote names that relation or that subject ("mother age"
    of "my mother is not seventy-four but seventy-six", first contact set 22: a correction of the
    mother's age closed the user's own); else None. The relation words are the record's own."""
    words = plain(claim.attribute).split()
    owners: list[tuple[Subject, str]] = []
    for subject in known.values():
        relation = plain(subject.relation).split()
        if not relation or words[: len(relation)] != relation:
            continue
        rest = words[len(relation) :]
        rest = rest[1:] if rest[:1] == ["s"] else rest  # "mother's age"
        named = _named_in(claim.quote, plain(subject.relation)) or _named_in(claim.quote, subject.key)
        if rest and named:
            owners.append((subject, " ".join(rest)))
    if len(owners) > 1:  # one named by the relation alone ("mother") is the one named by name
        owners = [(o, rest) for o, rest in owners if plain(o.name) != plain(o.relation)]
    return owners[0] if len(owners) == 1 else None


def settled_subjects(checked: Sequence[Checked], current: Sequence[Fact]) -> list[Checked]:
    """The message's checked claims with their subjects settled by the record (module doc):
    ``current`` is the user's current claims before this message."""
    known = known_subjects(checked, current)
    held = _attributes(current)
    mine = held.get(USER_SUBJECT, set())
    out: list[Checked] = []
    for item in checked:
        claim = item.claim
        attribute = plain(claim.attribute)
        named = _relation_in_label(claim, known) if item.about_user else None
        if named is not None:  # "mother age" of "my mother is not seventy-four but seventy-six"
            owner, label = named
            update = {"subject": owner.name, "relation": owner.relation, "attribute": label}
            out.append(Checked(claim.model_copy(update=update), about_user=False))
            continue
        if item.about_user and attribute not in mine:
            owners = [
                s
                for s in known.values()
                if attribute in held.get(s.key, set())
                and (_named_in(claim.quote, s.key) or _named_in(claim.quote, plain(s.relation)))
            ]
            if len(owners) == 1:  # a correction of someone the record holds it of
                (owner,) = owners
                update = {"subject": owner.name, "relation": owner.relation}
                out.append(Checked(claim.model_copy(update=update), about_user=False))
                continue
        key = subject_key(claim.subject, item.about_user)
        if key in known and not _relation_told(claim, known[key]):
            claim = claim.model_copy(update={"relation": known[key].relation})
            out.append(Checked(claim, about_user=item.about_user))
            continue
        out.append(item)
    return out
