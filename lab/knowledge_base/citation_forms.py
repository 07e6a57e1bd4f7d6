"""K1, measured: what each form of citation lets the agent do, tried on a two-article knowledge base.

Layer: above day.py, whose scripted agent (only call_tool) and simulated clock it
uses, on kb_store.py; below rerun.py. People rename or edit the cited article through
the store's plain methods; the agent then looks the citation up again, or edits with it.

Glossary (day.py has the others):
  form     what the agent keeps of one read: the title, the ID, or the ID and the updated time
"""

from typing import Any, Dict, Optional, Sequence, Tuple

from osfoundry_tools.stores import kb_store
from lab.knowledge_base.day import KB, SECOND, Agent, Citation, SimClock

K1_SEARCH_LIMIT = 5  # the agent's search limit on K1's two-article store: more than it holds

CITATION_FORMS = {  # what the agent keeps of one read, per form
    "article title": ("title",),
    "article ID": ("article_id",),
    "article ID + updated time": ("article_id", "updated_at"),
}


def _cited_article() -> Tuple[kb_store.KnowledgeBaseStore, SimClock, Agent, Dict[str, Any]]:
    """A store with one published article and the agent's read of it."""
    clock = SimClock()
    store = kb_store.connect(clock=clock)
    store.create_knowledge_base(KB, "Support")
    store.create_article(KB, "Reset a password", "Open Settings, then Security, then Reset.")
    store.create_article(KB, "Export invoices", "Invoices export as PDF from the Billing page.")
    agent = Agent(store, K1_SEARCH_LIMIT)
    clock.time += SECOND
    return store, clock, agent, agent.read("art-00001")


def look_up(agent: Agent, form: Dict[str, str]) -> Optional[Dict[str, Any]]:
    """Find the cited article again from what the citation holds: by ID, or by searching its exact title."""
    if "article_id" in form:
        page = agent.read(form["article_id"])
        return None if "error" in page else page
    return next((hit for hit in agent.search(form["title"]) if hit["title"] == form["title"]), None)


def citation_forms() -> Dict[str, Tuple[str, str, str]]:
    """K1, measured: per form, (survives a title change, shows the content changed, usable as edit version)."""
    table = {}
    for name, fields in CITATION_FORMS.items():
        table[name] = (_survives_rename(fields), _shows_content_change(fields), _usable_as_version(fields))
    return table


def _form(page: Dict[str, Any], fields: Sequence[str]) -> Dict[str, str]:
    return {field: page[field] for field in fields}


def _survives_rename(fields: Sequence[str]) -> str:
    store, clock, agent, page = _cited_article()
    form = _form(page, fields)
    clock.time += SECOND
    store.save_article(KB, page["article_id"], title="Reset your password")
    return "yes" if look_up(agent, form) is not None else "no"


def _shows_content_change(fields: Sequence[str]) -> str:
    store, clock, agent, page = _cited_article()
    form = _form(page, fields)
    clock.time += SECOND
    store.save_article(KB, page["article_id"], content="Use the reset link on the sign-in page.")
    found = look_up(agent, form)
    return "yes" if found is None or any(found[k] != v for k, v in form.items()) else "no"


def _usable_as_version(fields: Sequence[str]) -> str:
    """Edit right after the read and again after a person's save, passing what the citation holds as the version."""
    outcomes = []
    for person_saves_first in (False, True):
        store, clock, agent, page = _cited_article()
        form = _form(page, fields)
        clock.time += SECOND
        if person_saves_first:
            store.save_article(KB, page["article_id"], content="A person's newer text.")
        version = next(form[k] for k in ("updated_at", "article_id", "title") if k in form)  # the first it holds
        cited = Citation(0, page["article_id"], version, page["title"], page["content"])
        outcomes.append("error" not in agent.edit(cited, page["content"] + " More.", version, "k1"))
    fresh, stale = outcomes
    return "yes" if fresh and stale else "yes, if recent" if fresh else "no"
