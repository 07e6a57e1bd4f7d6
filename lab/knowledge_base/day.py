"""One simulated support day on the knowledge-base store: the plan, the people, the scripted agent.

Layer: a client of kb_store.py, run by rerun.py for each seed (and read by law.py, which
says what the popularity law alone predicts of such a day, approval.py and seed_profile.py,
which run it again, and citation_forms.py, which measures K1 with this agent). People
act through the store's plain methods; the agent acts only through `call_tool`, as a
model would. The one exception is ground truth (`store.article`), read only to compare
the agent's checks against.

Glossary:
  plan       everything one seed draws before its day runs: articles, questions, people's saves
  replica    one run of a plan on a fresh store: "zipf" (K2, K3), "uniform" (the control run),
             "edits" (K4: the same day again, with the agent's delayed edits)
  late save  a person's save after the day's end, drawn only where the scenario reads K4 so (saves go on
             until the last delayed edit); only the edits replica makes them
  rank       an article's place in popularity, 0 the most popular; questions and saves draw it
  citation   what the agent keeps per cited article: the store's citation, plus the title
             and content it read
  stale      a citation whose article's current version differs from the cited updated_at
  check      the agent's hourly look at every citation so far, three ways (strategies):
             "title" re-searches each cited title, "reread" re-reads each cited article,
             "poll" resumes the event log from its cursor
  cursor     the last sequence the agent has seen in the knowledge base's event log
  cost       calls and bytes of one strategy; bytes are experiments.bytes_of each tool result

Times inside a day are integer microseconds since the day began.
"""

import bisect
import collections
import dataclasses
import datetime
import functools
import heapq
import itertools
import marshal
import random
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from osfoundry_tools.cli import RunFailed
from osfoundry_tools.stores import kb_store
from osfoundry_tools.content import workload
from lab.experiments import bytes_of, compact_bytes
from osfoundry_tools.content.workload import Writer, zipf_weights

KB = workload.KNOWLEDGE_BASE
DAY_START = datetime.datetime(2026, 11, 9, 9, 0, tzinfo=datetime.timezone.utc)
SECOND = 1_000_000  # microseconds
MICROSECOND = datetime.timedelta(microseconds=1)
MINUTE, HOUR = 60, 3600  # seconds
PUBLISHED_THE_DAY_BEFORE = -24 * HOUR * SECOND  # when people wrote the articles, before the day began

CITED = 2  # citations per answer: the top two search results, first then second
TOP = 10  # "the ten most popular" (or most cited) articles the figures count

EDIT_TOOL = kb_store.EDIT_KNOWLEDGE_ARTICLE.name  # the one tool that writes
STRATEGIES = ("title", "reread", "poll")
REPLICAS = ("zipf", "uniform", "edits")
SAVE_KINDS = ("content", "content+title", "unpublish")
AREA_ARTICLES = workload.AREA_ARTICLES  # articles per subject area in the day as stated
VIEWS_BEFORE_THE_DAY = 1_000_000  # people's views of the knowledge base's articles so far, where views are kept
NO_CURSOR_YET = 2 ** 53 - 1  # an after_sequence past any log: the poll answers with the newest sequence
POLL_SHAPES = ("compact", "untimed", "untimed_compact")  # how else an event might be written (poll_shapes)
# Event order at one instant: people first, then the agent, then the hourly check.
SAVE, QUESTION, EDIT, CHECK = range(4)
Connect = Callable[..., kb_store.KnowledgeBaseStore]  # kb_store.connect, or one that wraps the store it opens


def duration_words(seconds: int) -> str:
    """A delay as the pages write it: 20 s, 15 min, 1 h."""
    if seconds % HOUR == 0:
        return f"{seconds // HOUR} h"
    if seconds % MINUTE == 0:
        return f"{seconds // MINUTE} min"
    return f"{seconds} s"


class DayCannotRun(RunFailed):
    """The settings make a day the model cannot run (a question finds too few articles to cite): one line saying
    which setting to change, never a traceback."""


@dataclasses.dataclass(frozen=True)
class Scenario:
    """The day's setup; scenario.py names its constants, models.py makes the models of it, sim.py fills it from
    the command line."""

    articles: int
    questions: int
    saves: int
    hours: int
    zipf_s: float
    save_mix: Tuple[float, float, float]  # shares of SAVE_KINDS
    delays: Tuple[int, ...]  # seconds between an answer and its K4 edit
    vocabulary: int  # subject words the articles are written from
    word_zipf_s: float  # how unevenly topics share subject words (Zipf exponent over the vocabulary)
    topic_words: int  # subject words per article
    title_words: int
    article_words: int  # words of content per article (calibrated: sets the size of a read)
    topic_share: float  # share of an article's words taken from its topic
    search_limit: int  # the agent's search limit (calibrated: sets the size of a search result)
    area_articles: int = AREA_ARTICLES  # articles per subject area; a question names its article's area
    views: bool = False  # the knowledge base keeps people's views (popularity shares of VIEWS_BEFORE_THE_DAY)
    saves_after_day: bool = False  # K4 read so: people go on saving at the day's rate until the last delayed edit
    replicas: Tuple[str, ...] = REPLICAS  # the replicas a seed runs (a K4 variant needs only "edits")

    @property
    def text(self) -> workload.TextSettings:
        """How the day's articles are written."""
        return workload.TextSettings(
            articles=self.articles, vocabulary=self.vocabulary, word_zipf_s=self.word_zipf_s,
            topic_words=self.topic_words, title_words=self.title_words, article_words=self.article_words,
            topic_share=self.topic_share, area_articles=self.area_articles)


# ---------------------------------------------------------------------------
# Popularity.


def popularity(scenario: "Scenario") -> List[float]:
    """Each article's share of questions and of saves, most popular first."""
    weights = zipf_weights(scenario.articles, scenario.zipf_s)
    total = sum(weights)
    return [w / total for w in weights]


# ---------------------------------------------------------------------------
# The plan: articles written from a seeded vocabulary, questions, people's saves.


@dataclasses.dataclass(frozen=True)
class Article:
    """One article as first published, with the subject words it is about."""

    title: str
    content: str
    topic: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Question:
    """A person's question at `time` about the article of popularity `rank`, and the agent's K4 addition."""

    time: int
    rank: int
    query: str
    addition: str  # the sentence the agent adds to the article it cited first (K4)


@dataclasses.dataclass(frozen=True)
class Change:
    """What one save does to one article: a kind of SAVE_KINDS, and new text where it has some."""

    rank: int
    kind: str
    content: Optional[str]
    title: Optional[str]


@dataclasses.dataclass(frozen=True)
class Save:
    """A person's save at `time`: the change on a popular article, and the control run's uniform one."""

    time: int
    zipf: Change
    uniform: Change


@dataclasses.dataclass(frozen=True)
class Plan:
    """Everything one seed draws before the day runs; every replica replays it."""

    articles: Tuple[Article, ...]  # by popularity rank
    creation_order: Tuple[int, ...]  # ranks in the order the articles were created (so IDs say nothing of rank)
    questions: Tuple[Question, ...]  # in time order
    saves: Tuple[Save, ...]  # in time order
    late_saves: Tuple[Save, ...] = ()  # after the day's end, in time order: only with scenario.saves_after_day


def draw_plan(seed: int, scenario: Scenario) -> Plan:
    """Every draw of one seed's day, from one random.Random(seed)."""
    rng = random.Random(seed)
    writer = Writer(rng, scenario.text)
    articles = []
    for number in range(scenario.articles):
        topic = writer.topic(number)
        articles.append(Article(writer.title(topic), writer.content(topic), topic))
    sharers: Dict[str, int] = collections.Counter(  # subject word -> articles whose topic holds it
        itertools.chain.from_iterable(article.topic for article in articles))
    creation_order = list(range(scenario.articles))
    rng.shuffle(creation_order)
    day = scenario.hours * HOUR * SECOND
    popular = rank_drawer(rng, scenario)
    questions = []
    for time in sorted(uniform_times(rng, 0, day, scenario.questions)):
        rank = popular()
        questions.append(Question(time, rank, writer.question(articles[rank].title, articles[rank].topic, sharers),
                                  writer.content(articles[rank].topic, sentences=1)))
    saves = draw_saves(rng, writer, articles, scenario, 0, day, scenario.saves)
    late: List[Save] = []
    if scenario.saves_after_day:  # drawn last, from a generator of their own: the day's draws stay as they were
        writer.rng = random.Random(rng.getrandbits(64))  # the same vocabulary and titles, other draws
        window = max(scenario.delays, default=0) * SECOND
        late = draw_saves(writer.rng, writer, articles, scenario, day, window, round(scenario.saves * window / day))
    return Plan(tuple(articles), tuple(creation_order), tuple(questions), tuple(saves), tuple(late))


def rank_drawer(rng: random.Random, scenario: Scenario) -> Callable[[], int]:
    """What draws an article's rank by popularity: rng.choices(range(articles), cum_weights=...)[0], as that call
    draws it, without the call's checks and its list of one (questions and saves draw a rank each)."""
    ranks = workload.cumulative_zipf(scenario.articles, scenario.zipf_s)
    if not ranks:
        raise ValueError("a day of no articles has none to draw: give it at least one article")
    random, bisect_right, total, last = rng.random, bisect.bisect_right, ranks[-1] + 0.0, len(ranks) - 1
    return lambda: bisect_right(ranks, random() * total, 0, last)


def uniform_times(rng: random.Random, start: int, span: int, count: int) -> List[int]:
    """`count` times uniform in [start, start + span): start + rng.randrange(span) each, as that call draws it."""
    if count and span <= 0:
        raise ValueError(f"no time lies in an empty span of {span} microseconds: give the day some length")
    getrandbits, below = rng.getrandbits, workload.below
    return [start + below(getrandbits, span) for _ in range(count)]


def draw_saves(rng: random.Random, writer: Writer, articles: Sequence[Article], scenario: Scenario, start: int,
               span: int, count: int) -> List[Save]:
    """`count` people's saves at uniform times in [start, start + span), kinds in the scenario's mix, each on a
    popular article and, for the control run, on a uniform one."""
    popular, getrandbits, articles_count = rank_drawer(rng, scenario), rng.getrandbits, scenario.articles
    saves = []
    for time, kind in zip(sorted(uniform_times(rng, start, span, count)), save_kinds(rng, scenario, count)):
        zipf, uniform = popular(), workload.below(getrandbits, articles_count)  # uniform: rng.randrange(articles)
        saves.append(Save(time, draw_change(writer, articles, zipf, kind),
                          draw_change(writer, articles, uniform, kind)))
    return saves


def save_kinds(rng: random.Random, scenario: Scenario, saves: int) -> List[str]:
    """`saves` saves by kind, in exact proportion to save_mix (rounded; the rest change content), shuffled."""
    counts = [round(share * saves) for share in scenario.save_mix[1:]]
    kinds = [SAVE_KINDS[0]] * (saves - sum(counts))
    for kind, count in zip(SAVE_KINDS[1:], counts):
        kinds += [kind] * count
    rng.shuffle(kinds)
    return kinds


def draw_change(writer: Writer, articles: Sequence[Article], rank: int, kind: str) -> Change:
    """The new text a save of this kind brings to the article of this rank."""
    topic = articles[rank].topic
    if kind == "unpublish":
        return Change(rank, kind, None, None)
    title = writer.title(topic) if kind == "content+title" else None
    return Change(rank, kind, writer.content(topic), title)


# ---------------------------------------------------------------------------
# The clock and the event loop.


class SimClock:
    """The simulated clock the store reads: DAY_START plus the loop's current time."""

    def __init__(self) -> None:
        self.time = 0  # microseconds since DAY_START

    def __call__(self) -> datetime.datetime:
        return DAY_START + MICROSECOND * self.time  # as timedelta(microseconds=time), without its keyword's parsing


class EventLoop:
    """A discrete-event loop: actions run in (time, priority, counter) order on one SimClock."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self.queue: List[Tuple[int, int, int, Callable[[], object]]] = []  # an action's result is not used
        self.counter = itertools.count()

    def at(self, time: int, priority: int, action: Callable[[], object]) -> None:
        """Schedule `action` at `time` (microseconds since the day began)."""
        heapq.heappush(self.queue, (time, priority, next(self.counter), action))

    def run(self) -> None:
        """Run every action, including those scheduled while running, in order."""
        queue, clock = self.queue, self.clock  # an action schedules into the same list
        while queue:
            time, _, _, action = heapq.heappop(queue)
            clock.time = time
            action()


# ---------------------------------------------------------------------------
# The scripted agent: only call_tool, exactly as a model would.


@dataclasses.dataclass(frozen=True)
class Citation:
    """One citation the agent gave, with the title and content it read."""

    answer: int
    article_id: str
    updated_at: str
    title: str
    content: str


def poll_shapes(page: Dict[str, Any]) -> Dict[str, int]:
    """A poll page's bytes in the event shapes the article never rules out, which the page's sweep weighs ours in:
    without the spaces json.dumps puts after `,` and `:`; each event without the time of its change
    (updated_at); and both."""
    untimed = dict(page, events=[{k: v for k, v in event.items() if k != "updated_at"} for event in page["events"]])
    return {"compact": compact_bytes(page), "untimed": bytes_of(untimed), "untimed_compact": compact_bytes(untimed)}


class ResultBytes:
    """experiments.bytes_of, each distinct result weighed once: the hourly checks search and read again what they
    found an hour before, mostly unchanged (half their results in a seed), and writing each result's JSON again
    took about a third of the agent's own time.

    A result is known by its marshal bytes, which are the same only for the same values of the same types in the
    same order (True is not 1, nor 1.0), so JSON writes both alike: the size weighed before is the size now. A
    result marshal cannot write (a subclass of dict or str, another object) is weighed every time."""

    def __init__(self) -> None:
        self.sizes: Dict[bytes, int] = {}

    def __call__(self, result: Any) -> int:
        try:
            known = marshal.dumps(result)
        except ValueError:
            return bytes_of(result)
        size = self.sizes.get(known)
        if size is None:
            size = self.sizes[known] = bytes_of(result)
        return size


class Agent:
    """Answers with two citations, checks them hourly three ways, edits with a citation's version."""

    def __init__(self, store: kb_store.KnowledgeBaseStore, search_limit: int) -> None:
        self.store = store
        self.search_limit = search_limit
        self.citations: List[Citation] = []
        self.cursor = 0
        self.latest: Dict[str, str] = {}  # article_id -> updated_at of its newest event seen
        self.gone: set = set()  # article IDs whose newest event seen is "unpublished"
        self.costs = {strategy: [0, 0] for strategy in STRATEGIES}  # calls, bytes
        self.setup = [0, 0]  # calls, bytes of the first catch-up with the log
        self.events_polled = 0  # events the poll strategy received, after the first catch-up
        self.poll_shapes = dict.fromkeys(POLL_SHAPES, 0)  # the poll strategy's bytes in other event shapes
        self.calls = {tool.name: 0 for tool in store.TOOLS}  # every call the agent made, by tool (listed in order)
        self.bytes_of = ResultBytes()

    def call(self, name: str, arguments: Dict[str, Any], cost: Optional[List[int]] = None) -> Dict[str, Any]:
        """One tool call; its call and bytes are added to `cost` when given."""
        self.calls[name] += 1
        result = self.store.call_tool(name, arguments)
        if cost is not None:
            cost[0] += 1
            cost[1] += self.bytes_of(result)
        return result

    def search(self, query: str, cost: Optional[List[int]] = None) -> List[Dict[str, Any]]:
        """search_knowledge_base with the agent's limit."""
        result = self.call("search_knowledge_base", {"knowledge_base_id": KB, "query": query,
                                                    "limit": self.search_limit}, cost)
        assert "error" not in result, result
        return result["results"]

    def read(self, article_id: str, cost: Optional[List[int]] = None) -> Dict[str, Any]:
        """read_knowledge_article; a dict with "error" when the article is gone."""
        return self.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article_id}, cost)

    def answer(self, query: str) -> List[Citation]:
        """Search, read the top two results, keep both citations."""
        number = len(self.citations) // CITED
        cited = []
        for hit in self.search(query)[:CITED]:
            page = self.read(hit["article_id"])
            assert "error" not in page, page  # read at the instant of the search: still published
            cited.append(Citation(number, page["article_id"], page["citation"]["updated_at"], page["title"],
                                  page["content"]))
        if len(cited) < CITED:  # a knowledge base too small, or its areas too large, for a question's shared words
            raise DayCannotRun(f"the search for {query!r} found fewer than {CITED} articles to cite, so the agent "
                               "cannot answer as the model needs; nothing was written. Give more --articles, or "
                               "fewer --area-articles")
        self.citations += cited
        return cited

    def poll(self, after: int, cost: Optional[List[int]] = None) -> Dict[str, Any]:
        """One poll_resource_events page of this knowledge base's log."""
        return self.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                                  "after_sequence": after}, cost)

    def catch_up(self, cost: List[int], shapes: Optional[Dict[str, int]] = None) -> int:
        """Poll from the cursor until has_more is false, noting each article's newest version (and, given `shapes`,
        adding each page's bytes in other event shapes to it); returns the events."""
        events = 0
        while True:
            page = self.poll(self.cursor, cost)
            if shapes is not None:
                for shape, size in poll_shapes(page).items():
                    shapes[shape] += size
            events += len(page["events"])
            for event in page["events"]:
                self.latest[event["article_id"]] = event["updated_at"]
                if event["type"] == "unpublished":
                    self.gone.add(event["article_id"])
                else:
                    self.gone.discard(event["article_id"])
            self.cursor = page["last_sequence"]
            if not page["has_more"]:
                return events

    # -- the three checks: each returns the indices of the citations it finds stale --

    def check_by_title(self) -> set:
        """Re-search each cited title; stale when no result carries that exact title (a renamed or gone article)."""
        missing = set()
        for title in dict.fromkeys(c.title for c in self.citations):
            if all(hit["title"] != title for hit in self.search(title, self.costs["title"])):
                missing.add(title)
        return {i for i, c in enumerate(self.citations) if c.title in missing}

    def check_by_reread(self) -> set:
        """Re-read each cited article; stale when it is gone or its updated_at differs."""
        current = {}
        for article_id in dict.fromkeys(c.article_id for c in self.citations):
            page = self.read(article_id, self.costs["reread"])
            current[article_id] = page.get("updated_at")  # None: not found, i.e. gone
        return {i for i, c in enumerate(self.citations) if current[c.article_id] != c.updated_at}

    def check_by_poll(self) -> set:
        """Resume the log from the cursor; stale when an event newer than the citation names its article."""
        self.events_polled += self.catch_up(self.costs["poll"], self.poll_shapes)
        return {i for i, c in enumerate(self.citations) if self.latest.get(c.article_id, c.updated_at) != c.updated_at}

    # -- K4: edit with the citation's version --

    def edit(self, citation: Citation, content: str, version: str, key: str) -> Dict[str, Any]:
        """edit_knowledge_article with the given version as expected_version."""
        return self.call(EDIT_TOOL, edit_arguments(citation, content, version, key))


def edit_arguments(citation: Citation, content: str, version: str, key: str) -> Dict[str, Any]:
    """The arguments of an edit of the cited article: new content, the version it expects, its idempotency key."""
    return {"knowledge_base_id": KB, "article_id": citation.article_id, "content": content,
            "expected_version": version, "idempotency_key": key}


# ---------------------------------------------------------------------------
# Replicas: one plan, run on a fresh store three ways.


class Published:
    """The knowledge base as people left it the day before: every article of the plan, published.

    Where the scenario keeps views, each article has its popularity share of VIEWS_BEFORE_THE_DAY: the
    limit of a long history, so views order the articles exactly as popularity does. The search index is
    optimized, as after a bulk import (results are the same; searches read one segment). Each replica
    starts from a copy of it (sqlite's backup API), which costs a fraction of creating the articles again.
    """

    def __init__(self, plan: Plan, scenario: Scenario, connect: Connect = kb_store.connect) -> None:
        """connect: opens a private store on a clock (seed_profile.py passes one that times the store)."""
        clock = SimClock()
        clock.time = PUBLISHED_THE_DAY_BEFORE
        self.connect = connect
        self.store = connect(clock=clock)
        self.store.create_knowledge_base(KB, "Support")
        self.ids = [""] * len(plan.articles)  # article IDs by rank
        for rank in plan.creation_order:
            article = plan.articles[rank]
            self.ids[rank] = self.store.create_article(KB, article.title, article.content)["article_id"]
        if scenario.views:
            for rank, share in enumerate(popularity(scenario)):
                self.store.add_views(KB, self.ids[rank], round(VIEWS_BEFORE_THE_DAY * share))
        self.store.optimize_search_index()

    def copy(self, clock: SimClock) -> kb_store.KnowledgeBaseStore:
        """A new store on `clock` holding exactly what this one holds."""
        store = self.connect(clock=clock)
        self.store.database.copy_to(store.database)
        return store


class Day:
    """One replica of a plan: a fresh store on a simulated clock, the people's saves, the agent's answers."""

    def __init__(self, plan: Plan, scenario: Scenario, saves: str, published: "Published",
                 late: bool = False) -> None:
        """`saves`: "zipf" or "uniform", which of each save's changes people make; `late`: the plan's late saves
        too (the edits replica)."""
        self.plan, self.scenario = plan, scenario
        self.clock = SimClock()
        self.loop = EventLoop(self.clock)
        self.store = published.copy(self.clock)
        self.agent = Agent(self.store, scenario.search_limit)
        self.ids = published.ids
        self.person_saved: Dict[str, int] = {}  # article_id -> time of the last person's save
        self.unpublished: set = set()  # article IDs people unpublished (nobody publishes them again in the day)
        self.saves_of_unpublished = 0  # people's saves of articles already unpublished (each writes an event)
        for save in plan.saves + (plan.late_saves if late else ()):
            change = save.zipf if saves == "zipf" else save.uniform
            self.loop.at(save.time, SAVE, functools.partial(self.save, change))

    def save(self, change: Change) -> None:
        """A person's save; an unpublish of an article already unpublished edits its content instead."""
        article_id = self.ids[change.rank]
        published = article_id not in self.unpublished  # people's own record: only they change a status
        self.saves_of_unpublished += not published  # the article stays gone: its event says `unpublished` again
        if change.kind == "unpublish" and published:
            self.store.unpublish_article(KB, article_id)
            self.unpublished.add(article_id)
        else:
            content = change.content if change.content is not None else self.plan.articles[change.rank].content
            self.store.save_article(KB, article_id, content=content, title=change.title)
        self.person_saved[article_id] = self.clock.time

    def ask(self, question: Question) -> List[Citation]:
        """The agent answers one question; returns its two citations."""
        return self.agent.answer(question.query)

    def truth(self) -> Dict[str, Dict[str, str]]:
        """Ground truth: every cited article as stored, whatever its status, read in one snapshot."""
        with self.store.database.read():  # the reads inside join it rather than open one transaction each
            return {a: self.store.article(KB, a) for a in dict.fromkeys(c.article_id for c in self.agent.citations)}


def stale_now(citations: Sequence[Citation], truth: Dict[str, Dict[str, str]]) -> set:
    """The indices of the citations whose article's current version differs from the cited one."""
    return {i for i, c in enumerate(citations) if truth[c.article_id]["updated_at"] != c.updated_at}


def renamed_or_gone(citations: Sequence[Citation], truth: Dict[str, Dict[str, str]]) -> set:
    """The indices of the citations whose article now has another title or is no longer published."""
    return {i for i, c in enumerate(citations)
            if truth[c.article_id]["status"] != "published" or truth[c.article_id]["title"] != c.title}


def staleness(citations: Sequence[Citation], stale: set) -> Dict[str, int]:
    """Counts of one hour's staleness, per citation and per distinct (article_id, updated_at)."""
    answers = {c.answer for c in citations}
    return {
        "citations": len(citations),
        "distinct_citations": len({(c.article_id, c.updated_at) for c in citations}),
        "answers": len(answers),
        "stale": len(stale),
        "stale_distinct": len({(citations[i].article_id, citations[i].updated_at) for i in stale}),
        "answers_stale": len({citations[i].answer for i in stale}),
        "stale_second": sum(i % CITED == 1 for i in stale),  # an answer's citations are kept in turn, first first
    }


def run_zipf_day(plan: Plan, scenario: Scenario, published: Published) -> Dict[str, Any]:
    """K2 and K3: the day with popular saves, the three hourly checks, and how the search ranked targets."""
    day = Day(plan, scenario, "zipf", published)
    agent = day.agent
    hours: List[Dict[str, Any]] = []
    ranking = {"first": 0, "second": 0}  # questions whose target the search ranked first, second
    seconds: List[str] = []  # the article each answer cited second
    day.loop.at(0, QUESTION, lambda: agent.catch_up(agent.setup))

    def ask(question: Question) -> None:
        first, second = day.ask(question)
        target = day.ids[question.rank]
        ranking["first"] += first.article_id == target
        ranking["second"] += second.article_id == target
        seconds.append(second.article_id)

    def check() -> None:
        truth = day.truth()
        stale = stale_now(agent.citations, truth)
        by_title, by_reread, by_poll = agent.check_by_title(), agent.check_by_reread(), agent.check_by_poll()
        assert by_reread == stale, "re-reading each cited article disagrees with the ground truth"
        assert by_poll == stale, "polling the event log disagrees with the ground truth"
        title_truth = renamed_or_gone(agent.citations, truth)
        found = staleness(agent.citations, by_title)
        hour = dict(staleness(agent.citations, stale),
                    title_found=found["stale"], title_found_distinct=found["stale_distinct"],
                    title_mismatch=len(by_title ^ title_truth), title_outside_stale=len(by_title - stale),
                    title_renamed_or_gone=len(by_title & title_truth),
                    gone=sum(truth[agent.citations[i].article_id]["status"] != "published" for i in stale),
                    costs={s: list(cost) for s, cost in agent.costs.items()}, events_polled=agent.events_polled,
                    poll_shapes=dict(agent.poll_shapes))
        hours.append(hour)

    for question in plan.questions:
        day.loop.at(question.time, QUESTION, functools.partial(ask, question))
    schedule_checks(day, scenario, check)
    day.loop.run()
    return {"hours": hours, "ranking": dict(ranking, **second_concentration(seconds, day.ids)),
            "setup": list(agent.setup), "saves_of_unpublished": day.saves_of_unpublished, "calls": dict(agent.calls)}


def schedule_checks(day: Day, scenario: Scenario, check: Callable[[], None]) -> None:
    """The hourly check at the end of every hour of the day."""
    for hour in range(1, scenario.hours + 1):
        day.loop.at(hour * HOUR * SECOND, CHECK, check)


def second_concentration(seconds: Sequence[str], ids: Sequence[str]) -> Dict[str, int]:
    """How concentrated the second citations are: distinct articles, the ten most cited, the popular ten."""
    counts: Dict[str, int] = {}
    for article_id in seconds:
        counts[article_id] = counts.get(article_id, 0) + 1
    popular = set(ids[:TOP])
    return {"seconds": len(seconds), "second_distinct": len(counts),
            "second_top10": sum(sorted(counts.values(), reverse=True)[:TOP]),
            "second_popular": sum(1 for a in seconds if a in popular)}


def run_uniform_day(plan: Plan, scenario: Scenario, published: Published) -> Dict[str, Any]:
    """The control run: the same questions, the same saves spread uniformly over the articles."""
    day = Day(plan, scenario, "uniform", published)
    hours: List[Dict[str, int]] = []
    for question in plan.questions:
        day.loop.at(question.time, QUESTION, functools.partial(day.ask, question))
    schedule_checks(day, scenario, lambda: hours.append(
        staleness(day.agent.citations, stale_now(day.agent.citations, day.truth()))))
    day.loop.run()
    return {"hours": hours, "calls": dict(day.agent.calls)}


def run_edit_day(plan: Plan, scenario: Scenario, published: Published) -> Dict[str, Any]:
    """K4: the zipf day again; after each answer, after its delay, the agent edits the article it cited first."""
    day = Day(plan, scenario, "zipf", published, late=True)
    agent = day.agent
    delays = [dict.fromkeys(("edits", "saved", "conflicts", "conflicts_agent_only", "gone", "retries_saved",
                             "replays", "replay_new_events"), 0) for _ in scenario.delays]
    agent_saved: Dict[str, int] = {}

    def edit(number: int, cited: Citation, asked_at: int, addition: str) -> None:
        counts = delays[number % len(scenario.delays)]
        counts["edits"] += 1
        key = f"answer-{number}"
        first = agent.edit(cited, f"{cited.content} {addition}", cited.updated_at, key)
        if "error" not in first:
            counts["saved"] += 1
            agent_saved[cited.article_id] = day.clock.time
            replay(counts, cited, f"{cited.content} {addition}", cited.updated_at, key, first)
        elif first["error"] == "version_conflict":
            counts["conflicts"] += 1
            counts["conflicts_agent_only"] += day.person_saved.get(cited.article_id, -1) < asked_at
            counts["retries_saved"] += retry(cited, addition, key)
        else:
            assert first["error"] == "not_found", first
            counts["gone"] += 1

    def retry(cited: Citation, addition: str, key: str) -> bool:
        """Re-read, re-apply the addition to what is there, edit with the new version."""
        page = agent.read(cited.article_id)
        result = agent.edit(cited, f"{page['content']} {addition}", page["updated_at"], key)
        agent_saved[cited.article_id] = day.clock.time
        return "error" not in result

    def replay(counts: Dict[str, int], cited: Citation, content: str, version: str, key: str,
               first: Dict[str, Any]) -> None:
        """Send the successful edit again with the same key: the first result, marked replay, and no event."""
        head = agent.poll(NO_CURSOR_YET)["last_sequence"]
        again = agent.edit(cited, content, version, key)
        counts["replays"] += again == dict(first, replay=True)
        counts["replay_new_events"] += len(agent.poll(head)["events"])

    def ask(number: int, question: Question) -> None:
        cited = day.ask(question)[0]
        delay = scenario.delays[number % len(scenario.delays)] * SECOND
        day.loop.at(question.time + delay, EDIT, lambda: edit(number, cited, question.time, question.addition))

    for number, question in enumerate(plan.questions):
        day.loop.at(question.time, QUESTION, functools.partial(ask, number, question))
    day.loop.run()
    return {"delays": delays, "calls": dict(agent.calls)}


def run_seed(seed: int, scenario: Scenario) -> Dict[str, Any]:
    """Everything one seed measures: its plan's popularity shares and its replicas (all three by default)."""
    return run_plan(draw_plan(seed, scenario), scenario)


def run_plan(plan: Plan, scenario: Scenario, connect: Connect = kb_store.connect) -> Dict[str, Any]:
    """What run_seed measures, from a plan drawn already, on stores that `connect` opens."""
    published = Published(plan, scenario, connect)
    replicas = {"zipf": run_zipf_day, "uniform": run_uniform_day, "edits": run_edit_day}
    return {
        "questions_top10": sum(q.rank < TOP for q in plan.questions),
        "saves_top10": sum(s.zipf.rank < TOP for s in plan.saves),
        **{name: replicas[name](plan, scenario, published) for name in scenario.replicas},
    }
