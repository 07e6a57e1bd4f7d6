"""sim.py: rerun the knowledge-base experiments (docs/source-figures.md) and write them beside the published figures.

    python3 sim.py --seeds 1-5        # writes results/knowledge_base.md and .svg (about 2 minutes on 2 cores)
    python3 sim.py --sensitivity      # writes results/knowledge_base_sensitivity.md (about 8 minutes on 2 cores)

Layer: a client (see the README's "What is here, layer by layer"). This file is the command alone: its options,
their checks, and the options handed down to lab/knowledge_base/ as models, seeds and settings. There,
scenario.py holds the scenario's constants (the options' defaults) and the published figures, models.py the
two models of the day, day.py one seed's day on kb_store.py (K1 is measured apart, by citation_forms.py, and
what approval would cost K4's edits, ours alone, by approval.py on the main seeds), rerun.py the runs over
seeds and the verdicts, report.py and sensitivity.py the pages; lab/experiments.run_command is the skeleton
of main().

Glossary:
  figure    one published number (or K1 cell), keyed like "K2.h8.stale"
  model     how the day is simulated: "popular" (the default: the knowledge base keeps people's
            views, its search lists the matches after the best one most viewed first, and a
            question names one of √articles product areas) or "stated" (only what the article states,
            with areas of 5 articles and no views)
  ours      the figure measured over the main seeds (1-5 unless --seeds says otherwise)
  range     the smallest and largest value of the figure over --ranges further groups of five seeds
            (experiments.spread: the central 95%, which for fewer than 40 groups is all of them)
  verdict   exact | inside range | outside range (with its reason) | no range (--ranges 0)
  reading   how the published "stale" column is counted: per distinct (article_id, updated_at)
            citation (the reading that makes the published table consistent) or per citation
  tally     how many published figures are exact, inside range and outside range, per model and reading
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)


import argparse
import re
import sys
from typing import Dict, Optional, Sequence, Tuple

from osfoundry_tools.cli import (
    OneLineParser, bounded, last_seed_reached, non_negative, positive, readers_may_leave, run_main, share,
    terminated_as_interrupted,
)
from lab.experiments import (
    DRAWS, GROUP_SIZE, Command, Provenance, Written, draws_of, provenance, run_command, seed_options,
)
from lab.knowledge_base import rerun
from lab.knowledge_base.approval import Approval
from lab.knowledge_base.day import HOUR, MINUTE, Scenario
from lab.knowledge_base.models import models_of, popular_areas
from lab.knowledge_base.measured import Report
from lab.knowledge_base.report import SENSITIVITY
from lab.knowledge_base.scenario import (
    APPROVAL_DELAYS, APPROVAL_SIGMA, ARTICLE_WORDS, ARTICLES, DELAYS, HOURS, MAIN_SEEDS, QUESTIONS, RANGE_GROUPS,
    SAVE_MIX, SAVES, SEARCH_LIMIT, STATED_AREA_ARTICLES, TITLE_WORDS, TOPIC_SHARE, TOPIC_WORDS, VOCABULARY,
    WORD_ZIPF_S, ZIPF_S,
)

# ---------------------------------------------------------------------------
# The command line.


def save_mix(text: str) -> Tuple[float, float, float]:
    """'85/10/5': percentages of content saves, content-and-title saves and unpublishes, summing to 100."""
    parts = text.split("/")
    try:
        numbers = tuple(float(p) for p in parts)
    except ValueError:
        numbers = ()
    if len(numbers) != 3 or any(not 0 <= n <= 100 for n in numbers) or abs(sum(numbers) - 100) > 1e-9:
        raise argparse.ArgumentTypeError(f"{text!r} is not three percentages summing to 100, such as 85/10/5")
    content, titled, unpublish = numbers
    return content / 100, titled / 100, unpublish / 100


UNITS = {"s": 1, "m": MINUTE, "h": HOUR}
LONGEST_DELAY = 8760 * HOUR  # a year: longer delays would take the simulated clock past what a date can hold
STEEPEST = 20.0  # the largest Zipf exponent: past it, popularity is all on the first article anyway, and the
# weights 1/k**s overflow a float for the larger article counts


def steepness(text: str) -> float:
    """A Zipf exponent: a finite number from 0 to STEEPEST."""
    return bounded(float, text, 0.0, STEEPEST)


def delays(text: str) -> Tuple[int, ...]:
    """'20s,15m,1h,4h': the K4 delays, each a whole number of seconds, minutes or hours."""
    values = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*([smh])\s*", part)
        if not match:
            raise argparse.ArgumentTypeError(f"{text!r} is not a list of delays such as 20s,15m,1h,4h")
        values.append(int(match.group(1)) * UNITS[match.group(2)])
        if values[-1] > LONGEST_DELAY:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is longer than {LONGEST_DELAY // HOUR}h (a year), "
                                             "the longest delay a day takes")
    return tuple(values)


def parser() -> argparse.ArgumentParser:
    """The command line; every scenario constant above has its option."""
    p = OneLineParser(
        prog="sim.py", description="Rerun the knowledge-base experiments (their published figures: "
        "docs/source-figures.md) in two models of the day and write results/knowledge_base.md and "
        "results/knowledge_base.svg beside the published figures. The default run takes about 2 minutes on 2 "
        "cores (the page's 'Run time' section says how long it took).")
    seed_options(p, MAIN_SEEDS, RANGE_GROUPS, "the ranges", "the results", DRAWS,
                 ranges_default=f"{RANGE_GROUPS} per draw, for the main page and --sensitivity alike")
    p.derive_default("ranges", lambda options: RANGE_GROUPS)
    p.add_argument("--sensitivity", action="store_true",
                   help=f"instead of the main page, write {SENSITIVITY}: the tallies of the popular model with "
                   "each of its ingredients alone and with areas of several sizes (about 8 minutes on 2 cores: "
                   "its page's last line says how long it took)")
    day = p.add_argument_group("the day (as published: docs/source-figures.md)")
    day.add_argument("--articles", type=positive, default=ARTICLES, help=f"articles in the knowledge base "
                     f"(default {ARTICLES})")
    day.add_argument("--questions", type=positive, default=QUESTIONS, help=f"questions per day (default {QUESTIONS})")
    day.add_argument("--saves", type=non_negative, default=SAVES, help=f"people's saves per day (default {SAVES})")
    day.add_argument("--hours", type=positive, default=HOURS, help=f"length of the day; one check per hour "
                     f"(default {HOURS})")
    day.add_argument("--zipf-s", type=steepness, default=ZIPF_S, metavar="S",
                     help=f"Zipf exponent of article popularity, for questions and saves (default {ZIPF_S})")
    day.add_argument("--save-mix", type=save_mix, default=SAVE_MIX, metavar="C/T/U",
                     help="percent of saves that change content / content and title / unpublish (default 85/10/5)")
    day.add_argument("--delays", type=delays, default=DELAYS, metavar="LIST",
                     help="K4 delays from an answer to its edit; answers take them in turn (default 20s,15m,1h,4h)")
    ours = p.add_argument_group("what approval costs (ours, no published figure)")
    ours.add_argument("--approval-delays", type=delays, default=APPROVAL_DELAYS, metavar="LIST",
                      help="median delays from a K4 edit's arrival to a person's approval, one replica of the day "
                      "each (default 10s,1m,5m,15m)")
    ours.add_argument("--approval-sigma", type=lambda t: bounded(float, t, 0.0, None), default=APPROVAL_SIGMA,
                      metavar="SIGMA",
                      help="spread of an approval delay: the standard deviation of its natural logarithm "
                      f"(default {APPROVAL_SIGMA})")
    text = p.add_argument_group("how the articles are written (our design)")
    text.add_argument("--vocabulary", type=positive, default=VOCABULARY, help=f"made-up subject words "
                      f"(default {VOCABULARY})")
    text.add_argument("--word-zipf-s", type=steepness, default=WORD_ZIPF_S, metavar="S",
                      help=f"how unevenly topics share subject words (default {WORD_ZIPF_S})")
    text.add_argument("--topic-words", type=positive, default=TOPIC_WORDS,
                      help=f"subject words per article (default {TOPIC_WORDS})")
    text.add_argument("--title-words", type=positive, default=TITLE_WORDS,
                      help=f"words per title, at most --topic-words (default {TITLE_WORDS})")
    text.add_argument("--topic-share", type=share, default=TOPIC_SHARE,
                      help=f"share of an article's words from its topic (default {TOPIC_SHARE})")
    text.add_argument("--article-words", type=positive, default=ARTICLE_WORDS,
                      help=f"words per article; calibrated to the published size of a read (default {ARTICLE_WORDS})")
    text.add_argument("--search-limit", type=lambda t: bounded(int, t, 2, 20), default=SEARCH_LIMIT,
                      help=f"the agent's search limit, 2-20; calibrated to the published size of a title search "
                      f"(default {SEARCH_LIMIT})")
    text.add_argument("--area-articles", type=positive, default=None, metavar="N",
                      help="articles per product area in the popular model; a question names its article's area "
                      f"(default: √articles, {popular_areas(ARTICLES)}; the model as stated keeps "
                      f"{STATED_AREA_ARTICLES})")
    p.derive_default("area_articles", lambda options: popular_areas(options.articles))
    return p


def scenario_from(options: argparse.Namespace) -> Scenario:
    """The day as stated (no views, areas of STATED_AREA_ARTICLES) that the options describe."""
    return Scenario(
        articles=options.articles, questions=options.questions, saves=options.saves, hours=options.hours,
        zipf_s=options.zipf_s, save_mix=options.save_mix, delays=options.delays, vocabulary=options.vocabulary,
        word_zipf_s=options.word_zipf_s, topic_words=options.topic_words, title_words=options.title_words,
        article_words=options.article_words, topic_share=options.topic_share, search_limit=options.search_limit,
        area_articles=STATED_AREA_ARTICLES, views=False)


def models_from(options: argparse.Namespace) -> Dict[str, Scenario]:
    """The two models of the day the options describe, the default first."""
    return models_of(scenario_from(options), options.area_articles)


def check_options(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """What argparse cannot check alone; exits with cli.EXIT_USAGE and one line, like argparse."""
    if options.title_words > options.topic_words:
        p.error("--title-words must not exceed --topic-words")
    if options.topic_words + 1 > options.vocabulary:
        p.error("--vocabulary must hold more words than --topic-words")
    if options.articles < 10:
        p.error("--articles must be at least 10 (the top-10 share needs them)")
    smallest = min(STATED_AREA_ARTICLES, options.area_articles or popular_areas(options.articles))
    if options.articles // smallest + options.topic_words >= options.vocabulary:
        p.error("--vocabulary must hold more words than the product areas and --topic-words together")
    last_seed_reached(p, options.seeds, GROUP_SIZE * ranges_of(options) * options.draws)


COMMAND = Command(
    prog="sim.py", parser=parser, check_options=check_options,
    measure=lambda options, made_by: (sensitivity if options.sensitivity else main_page)(options, made_by),
    run_name=lambda options: "sim-sensitivity" if options.sensitivity else "sim",
    apart=("jobs", "out", "sensitivity"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run both models over the seeds, measure every figure, write the markdown and the chart (or, with
    --sensitivity, the sensitivity page); cli.EXIT_OK, or EXIT_USAGE for a bad option."""
    return run_command(COMMAND, argv)



def main_page(options: argparse.Namespace, made_by: Provenance) -> Written:
    """The markdown and the chart of both models over the options' seeds, and the seconds the run took."""
    report = measure_report(options, made_by)
    return rerun.main_files(report), report.timing[1]


def measure_report(options: argparse.Namespace, made_by: Optional[Provenance] = None) -> Report:
    """Both models over the options' seeds and range groups, every figure measured: what the page is written from
    (`made_by`: what the page says made it; by default, this process with these options)."""
    return rerun.measure_report(
        "sim.py", models_from(options), options.seeds, draws_of(options.seeds, ranges_of(options), options.draws),
        options.jobs,
        Approval(options.approval_delays, options.approval_sigma), made_by or provenance(COMMAND, options, []))


def sensitivity(options: argparse.Namespace, made_by: Provenance) -> Written:
    """--sensitivity: the tallies of each variant of the model and K4's readings, as the page SENSITIVITY, and the
    seconds taken."""
    return rerun.measure_sensitivity(
        "sim.py --sensitivity", scenario_from(options), options.area_articles, options.seeds,
        draws_of(options.seeds, ranges_of(options), options.draws), options.jobs, made_by)


def ranges_of(options: argparse.Namespace) -> int:
    """The range groups per draw the options ask for: --ranges, or by default RANGE_GROUPS, for the main page and
    the sensitivity page alike (the sensitivity page's popular model then tallies as the main page's does)."""
    return RANGE_GROUPS if options.ranges is None else options.ranges


if __name__ == "__main__":
    with terminated_as_interrupted(), readers_may_leave():
        sys.exit(run_main("sim.py", main))
