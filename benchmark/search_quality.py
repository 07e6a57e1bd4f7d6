"""Search quality on real content: documentation sets we did not write, their questions, and where the answer ranks.

Layer: benchmark (a client of the MCP server and the stores). Each set lives in search_sets/<name>/: pages/
(Markdown exactly as its project ships it), its licence, SOURCE.md (where and which commit it came from) and
questions.json, a list of {"question", "answers"}: what a user of that software would type, and the IDs of every
page that answers it, written before the search was tuned. A set is served as `mcp_server.py --kb-from-dir`
serves a folder, and each question is asked through the server's tools/call, so what is measured is what an
agent gets.

Glossary:
  first          a question whose first result answers it; precision at 1 is their share
  reciprocal     1/r for the first answering result at rank r within the first FIRST_RESULTS, else 0; the mean
                 reciprocal rank (MRR@4) is their mean
  plain bm25     the search before questions were read by their subject: every word of the question joined by OR
                 and ranked as the engine ranks on its own (FTS5's bm25 on sqlite, ts_rank_cd over the 'english'
                 configuration on PostgreSQL), the title weighted as the search weighs it
"""

import dataclasses
import json
import math
import os
import random
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark import engines
from lab.experiments import table
from osfoundry_tools.content import help_center, own_content
from osfoundry_tools.core import dialect
from osfoundry_tools.server import methods
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import Workspace, open_workspace
from osfoundry_tools.stores import kb_search, kb_sections, kb_store

SETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "search_sets")
FIRST_RESULTS = 4  # the depth of the mean reciprocal rank: what an agent reads before it picks a page
GOAL_FIRST = 17 / 20  # questions of a real set whose first result answers them, on each engine
GOAL_SAME_FIRST = 9 / 10  # questions whose first result is the same page on sqlite and PostgreSQL


@dataclasses.dataclass(frozen=True)
class QuestionSet:
    """One documentation set: its pages' folder and its questions, each with the IDs of the pages that answer it."""

    name: str
    pages: str
    questions: Tuple[Tuple[str, Tuple[str, ...]], ...]

    @property
    def knowledge_base_id(self) -> str:
        return own_content.knowledge_base_id(self.pages)


def question_sets(folder: str = SETS) -> List[QuestionSet]:
    """Every set under `folder`, by name."""
    return [question_set(os.path.join(folder, name)) for name in sorted(os.listdir(folder))
            if os.path.isdir(os.path.join(folder, name, "pages"))]


def question_set(folder: str) -> QuestionSet:
    """The set in `folder`: its pages/ and its questions.json."""
    with open(os.path.join(folder, "questions.json"), encoding="utf-8") as file:
        asked = json.load(file)
    questions = tuple((entry["question"], tuple(entry["answers"])) for entry in asked)
    return QuestionSet(os.path.basename(folder), os.path.join(folder, "pages"), questions)


@dataclasses.dataclass(frozen=True)
class Score:
    """How one way of searching did on one set's questions."""

    asked: int
    first: int  # questions whose first result answers them
    reciprocal: float  # the sum of the reciprocal ranks within FIRST_RESULTS

    @property
    def precision_at_1(self) -> float:
        return self.first / self.asked

    @property
    def mean_reciprocal_rank(self) -> float:
        return self.reciprocal / self.asked


def rank_of_answer(found: Sequence[str], answers: Sequence[str]) -> Optional[int]:
    """The rank (from 1) of the first result among `answers` within FIRST_RESULTS, or None.

    >>> rank_of_answer(["a", "b", "c"], ["c", "x"]), rank_of_answer(["a", "b", "c", "d", "e"], ["e"])
    (3, None)
    """
    return next((rank for rank, page in enumerate(found[:FIRST_RESULTS], 1) if page in answers), None)


def score(rankings: Sequence[Sequence[str]], questions: Sequence[Tuple[str, Sequence[str]]]) -> Score:
    """The score of `rankings`, one list of page IDs per question, in the questions' order."""
    ranks = [rank_of_answer(found, answers) for found, (_, answers) in zip(rankings, questions)]
    return Score(len(ranks), sum(rank == 1 for rank in ranks), sum(1 / rank for rank in ranks if rank))


def same_first(one: Sequence[Sequence[str]], other: Sequence[Sequence[str]]) -> int:
    """How many questions have the same first result in both rankings (both empty counts as the same)."""
    return sum(a[:1] == b[:1] for a, b in zip(one, other))


# ---------------------------------------------------------------------------
# Asking: through the server's tools, and the plain bm25 it is compared with.

def served(question_set: QuestionSet, kb_db: str) -> Workspace:
    """The set served as `mcp_server.py --kb-from-dir PAGES --kb-db KB_DB` serves it (kb_db: a path, :memory: or
    a postgresql:// URL)."""
    return open_workspace(parse_options(["--kb-from-dir", question_set.pages,
                                                               "--kb-db", kb_db]))


def asker(workspace: Workspace) -> Callable[[str, str], List[str]]:
    """A function that asks search_knowledge_base one question through the server and returns the result IDs."""
    server = methods.Server(workspace.tools())

    def ask(knowledge_base_id: str, question: str) -> List[str]:
        answer = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "search_knowledge_base",
            "arguments": {"knowledge_base_id": knowledge_base_id, "query": question, "limit": FIRST_RESULTS}}})
        result = (answer or {}).get("result") or {}
        if result.get("isError") or "structuredContent" not in result:
            raise AssertionError(f"search_knowledge_base refused {question!r}: {answer}")
        return [found["article_id"] for found in result["structuredContent"]["results"]]
    return ask


def rankings(question_set: QuestionSet, ask: Callable[[str, str], List[str]]) -> List[List[str]]:
    """The results of every question of the set, in order."""
    return [ask(question_set.knowledge_base_id, question) for question, _ in question_set.questions]


PLAIN_POSTGRES_WEIGHTS = "{0.1, 0.2, 0.25, 1.0}"  # ts_rank_cd's weights of D, C, B, A as the search had them: a
# title (A) counted 4 times the content (B)
_PLAIN_SQLITE = ("SELECT a.id FROM {table} JOIN articles AS a ON a.number = {table}.rowid WHERE {table} MATCH ? "
                 "ORDER BY bm25({table}, {title}, 1.0), a.id LIMIT ?")
_PLAIN_POSTGRES = ("SELECT id FROM (SELECT id, setweight(to_tsvector('english', title), 'A') || "
                   "setweight(to_tsvector('english', content), 'B') AS words FROM articles WHERE knowledge_base_id = ? "
                   "AND status = 'published') AS a, to_tsquery('english', ?) AS query WHERE words @@ query "
                   "ORDER BY ts_rank_cd('{weights}', words, query) DESC, id LIMIT ?")


def plain_rankings(question_set: QuestionSet, workspace: Workspace,
                   subject: bool = False) -> List[List[str]]:
    """Every question of the set ranked by plain bm25 over all its words (see the glossary), or over its subject
    words only, on the engine the workspace's knowledge-base store runs on."""
    store = workspace.stores["knowledge_base"]
    kb = question_set.knowledge_base_id
    with store.database.read() as connection:
        postgres = dialect.dialect_of(connection).name == "postgresql"
        number = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (kb,)).fetchone()[0]
        return [_plain(connection, postgres, number, kb, question, subject) for question, _ in question_set.questions]


def _plain(connection: Any, postgres: bool, number: int, kb: str, question: str, subject: bool) -> List[str]:
    words = kb_search.query_words(question)
    if subject:
        words = kb_search.subject_words(words)
    if not words:
        return []
    if postgres:
        statement = _PLAIN_POSTGRES.format(weights=PLAIN_POSTGRES_WEIGHTS)
        return [row[0] for row in connection.execute(statement, (kb, " | ".join(words), FIRST_RESULTS))]
    table = kb_search.index_table(number)
    statement = _PLAIN_SQLITE.format(table=table, title=kb_search.TITLE_WEIGHT)
    return [row[0] for row in connection.execute(statement, (kb_search.any_of(words), FIRST_RESULTS))]


@dataclasses.dataclass(frozen=True)
class SetResult:
    """One set on one engine: the search's rankings and plain bm25's."""

    question_set: QuestionSet
    engine: str
    search: List[List[str]]
    plain: List[List[str]]
    subject: List[List[str]]  # plain bm25 over the subject words only: the search without its weighing

    def scores(self) -> Dict[str, Score]:
        return {"search": score(self.search, self.question_set.questions),
                "plain": score(self.plain, self.question_set.questions),
                "subject": score(self.subject, self.question_set.questions)}


def measure(question_set: QuestionSet, engine: str, kb_db: str) -> SetResult:
    """The set served from `kb_db` (a fresh database) and every question asked both ways."""
    workspace = served(question_set, kb_db)
    try:
        return SetResult(question_set, engine, rankings(question_set, asker(workspace)),
                         plain_rankings(question_set, workspace), plain_rankings(question_set, workspace, True))
    finally:
        workspace.close()


def misses(result: SetResult) -> List[Tuple[str, Tuple[str, ...], List[str]]]:
    """The questions whose first result does not answer them: (question, answers, results)."""
    return [(question, answers, found) for found, (question, answers) in zip(result.search,
                                                                             result.question_set.questions)
            if rank_of_answer(found, answers) != 1]


# ---------------------------------------------------------------------------
# The bench's section: every set on sqlite and, where a server is named, on PostgreSQL; the help centre beside.

def measure_all(postgres_url: Optional[str], log: Callable[[str], None],
                library_sets: Optional[int] = None) -> Dict[str, Any]:
    """The facts of the page's section: per set, each engine's scores both ways, the misses, and how many questions
    find the same first page on both engines; the help centre's questions the same way; the field's libraries
    beside ours (benchmark/search_libraries.py) on every set, or on the first `library_sets`."""
    sets = []
    for question_set in question_sets():
        log(f"quality: {question_set.name}")
        results = {"sqlite": measure(question_set, "sqlite", ":memory:")}
        if postgres_url:
            with engines.scratch_database(postgres_url) as location:
                results["postgresql"] = measure(question_set, "postgresql", location)
        sets.append(set_facts(question_set, results))
    centre = {"sqlite": help_centre_first(":memory:")}
    if postgres_url:
        with engines.scratch_database(postgres_url) as location:
            centre["postgresql"] = help_centre_first(location)
    from benchmark import search_libraries, search_rerank  # they build on this module
    quality: Dict[str, Any] = {"sets": sets, "help_centre": centre,
                               "goals": {"first": GOAL_FIRST, "same_first": GOAL_SAME_FIRST}}
    if search_rerank.available():  # `make rerank` installed it. Before the libraries: the server holds numpy's BLAS
        quality["rerank"] = search_rerank.measure(question_sets(), log)  # to one thread only where kb_rerank
    else:  # imports numpy first (bm25s imports it too, and then keeps that setting)
        log("quality: the re-ranker is not installed (`make rerank`): its rows are left out")
    quality["libraries"] = search_libraries.measure_libraries(log, question_sets()[:library_sets])
    return quality


def set_facts(question_set: QuestionSet, results: Dict[str, SetResult]) -> Dict[str, Any]:
    """What the page shows of one set."""
    with open(os.path.join(os.path.dirname(question_set.pages), "SOURCE.md"), encoding="utf-8") as source:
        origin = next((line.split(":", 1)[1].strip().rstrip(".") for line in source
                       if line.startswith("- Repository:")), "")
    first = results["sqlite"]
    pages = {article.article_id: article for article in own_content.read_knowledge_base(question_set.pages).articles}
    facts: Dict[str, Any] = {
        "name": question_set.name, "origin": origin, "questions": len(question_set.questions), "pages": len(pages),
        "engines": {engine: {way: dataclasses.asdict(got) for way, got in result.scores().items()}
                    for engine, result in results.items()},
        "misses": {engine: [miss_facts(pages, question, answers, found)
                            for question, answers, found in misses(result)] for engine, result in results.items()}}
    if "postgresql" in results:
        facts["same_first"] = same_first(first.search, results["postgresql"].search)
    return facts


def miss_facts(pages: Dict[str, Any], question: str, answers: Sequence[str], found: List[str]) -> Dict[str, Any]:
    """One miss, and whether a title or heading of an answering page (of `pages`, by ID) holds half of the
    question's subject words."""
    subject = kb_search.subject_words(kb_search.query_words(question))
    weights = dict.fromkeys(subject, 1.0)
    lines = [line for page in answers
             for line in [pages[page].title] + kb_search.outline_of(pages[page].content).split("\n")]
    held = max(kb_sections.held_weight(line, weights) for line in lines)
    return {"question": question, "answers": list(answers), "first": found[:1],
            "outline_holds": 2 * held >= len(subject)}


def help_centre_first(location: str) -> Dict[str, int]:
    """The demo's help centre, one article per subject, on a fresh store at `location`: how many of its questions
    find their article first."""
    articles = help_center.write_articles(random.Random(1), len(help_center.SUBJECTS))
    store = kb_store.connect(location)
    try:
        store.create_knowledge_base(HELP_CENTRE, "Support")
        with store.database.write():
            for article in articles:
                store.create_article(HELP_CENTRE, article.title, article.content)
        subject_of = {article.title: article.subject for article in articles}
        first = 0
        for question, subject in help_center.QUESTIONS:
            found = store.call_tool("search_knowledge_base", {"knowledge_base_id": HELP_CENTRE, "query": question})
            first += bool(found["results"]) and subject_of[found["results"][0]["title"]] == subject
        return {"asked": len(help_center.QUESTIONS), "first": first}
    finally:
        store.close()


HELP_CENTRE = "kb-support"


def section(quality: Dict[str, Any]) -> List[str]:
    """The page's section "Search quality on real content"."""
    sets = quality["sets"]
    engine_names = [engine for engine in ("sqlite", "postgresql") if any(engine in s["engines"] for s in sets)]
    lines = ["## Search quality on real content", "",
             f"{len(sets)} documentation sets we did not write, each served as `mcp_server.py --kb-from-dir` serves "
             "a folder, every question asked through tools/call `search_knowledge_base` "
             "(`benchmark/search_quality.py`; the pages, their licences and the questions are in "
             "`benchmark/search_sets/`). The questions are what a user of each program would type, with every page "
             "that answers them, written before the search was tuned (the HTTPX set before it was first measured; "
             "the others by helpers who never ran the search. Pydantic's arrived once the weighing by sections was "
             "settled and Ruff's after it was committed, and nothing was tuned on either; Textual's and SQLModel's "
             "arrived next, and the form of nearness kept was chosen among three after they were asked, so they "
             "check it less strictly; Polars', Django Ninja's and Hatch's were first asked of the search in its "
             "final form, and nothing was tuned on them; FastAPI's, Django REST framework's and Click's were "
             "committed before any search ran on their pages, and nothing was tuned on them: each SOURCE.md says "
             "how). "
             "*First*: questions whose first result answers them (precision at 1). *MRR@4*: the mean of 1/rank of "
             "the first answering result within the first four (0 beyond). *Plain bm25*: every word of the question "
             "joined by OR and ranked as the engine ranks alone, as the search did before questions were read by "
             "their subject (FTS5's bm25 on sqlite, `ts_rank_cd` over the `english` configuration on PostgreSQL), "
             "on the same index. *Subject words*: the same over the question's subject words only (its function "
             "words left out), without the search's weighing of its best matches by their text, best section, "
             "nearness and title.", ""]
    rows = []
    for facts in sets:
        for engine in engine_names:
            got = facts["engines"].get(engine)
            if got:
                rows.append([facts["name"], facts["pages"], engine] + [
                    cell for way in ("search", "plain", "subject") for cell in _first_and_rank(got[way])])
    lines += table(["set", "pages", "engine", "first", "MRR@4", "plain bm25 first", "plain bm25 MRR@4",
                    "subject words first", "subject words MRR@4"], rows)
    lines += ["", "Where each set comes from: " + "; ".join(f"{s['name']}, {s['origin']}" for s in sets) + "."]
    lines += [""] + verdicts(quality, engine_names)
    if "libraries" in quality:
        from benchmark import search_libraries
        lines += [""] + search_libraries.section(quality["libraries"])
    if "rerank" in quality:
        from benchmark import search_rerank
        lines += [""] + search_rerank.section(quality["rerank"], {
            s["name"]: s["engines"]["sqlite"]["search"]["first"] for s in sets})
    return lines


def _first_and_rank(got: Dict[str, Any]) -> List[str]:
    return [f"{got['first']} of {got['asked']}", f"{got['reciprocal'] / got['asked']:.2f}"]


def verdicts(quality: Dict[str, Any], engine_names: Sequence[str]) -> List[str]:
    """The goals, each with its verdict and, where missed, why."""
    sets, goals = quality["sets"], quality["goals"]
    lines = []
    shares = [(s["name"], engine, s["engines"][engine]["search"]) for s in sets for engine in engine_names
              if engine in s["engines"]]
    low = [(name, engine, got) for name, engine, got in shares
           if got["first"] < math.ceil(goals["first"] * got["asked"])]
    lines.append(f"At least 17 of every 20 questions find an answering page first, on each engine: "
                 f"{len(shares) - len(low)} of {len(shares)} set and engine pairs, "
                 + ("**misses the goal**." if low else "meets the goal."))
    if low:
        lines.append(miss_reading(sets))
    with_both = [s for s in sets if "same_first" in s]
    if with_both:
        same = [(s["name"], s["same_first"], s["questions"]) for s in with_both]
        held = all(n >= math.ceil(goals["same_first"] * asked) for _, n, asked in same)
        lines.append("The same first page on sqlite and PostgreSQL for at least 9 in 10 questions: "
                     + ", ".join(f"{name} {n} of {asked}" for name, n, asked in same) + ": "
                     + ("meets the goal." if held else "**misses the goal**."))
    else:
        lines.append("The same first page on both engines: not measured here (no PostgreSQL server was named).")
    centre = quality["help_centre"]
    lines.append("The help centre's questions (`help_center.QUESTIONS`, one article per subject) all first: "
                 + ", ".join(f"{engine} {got['first']} of {got['asked']}" for engine, got in centre.items()) + ": "
                 + ("meets the goal." if all(got["first"] == got["asked"] for got in centre.values())
                    else "**misses the goal**."))
    return [line for text in lines for line in (text, "")][:-1]


def miss_reading(sets: Sequence[Dict[str, Any]]) -> str:
    """Why questions miss, from the misses themselves."""
    missed = [miss for s in sets for miss in s["misses"]["sqlite"]]
    apart = [miss for miss in missed if not miss["outline_holds"]]
    example = next((miss for miss in apart), None)
    shown = (f" (\"{example['question']}\", answered by {', '.join(example['answers'])})" if example else "")
    return (f"Why: of the {len(missed)} questions missed on sqlite, {len(apart)} name their subject in other "
            f"words than the answering pages do: no title or heading of those pages holds half of the question's "
            f"subject words{shown}, a gap a search of words does not bridge. In the other {len(missed) - len(apart)}"
            ", a title or heading of an answering page holds them, but another page holds them too, in its title or "
            "more often in its text, and comes first. The columns beside show how much each part of the search "
            "brings: leaving the function words out, then weighing the best matches by their text, best section, "
            "nearness and title.")


def main() -> None:  # a quick look from the command line: python3 -m benchmark.search_quality [POSTGRES_URL]
    import sys
    for question_set in question_sets():
        engines = [("sqlite", ":memory:")] + ([("postgresql", sys.argv[1])] if len(sys.argv) > 1 else [])
        for engine, kb_db in engines:
            result = measure(question_set, engine, kb_db)
            scores = result.scores()
            print(f"{question_set.name:12} {engine:10} search {scores['search'].first}/{scores['search'].asked} "
                  f"MRR {scores['search'].mean_reciprocal_rank:.2f}   plain {scores['plain'].first} "
                  f"MRR {scores['plain'].mean_reciprocal_rank:.2f}")
            for question, answers, found in misses(result):
                print(f"    {question!r} wants {list(answers)} got {found}")


if __name__ == "__main__":
    main()
