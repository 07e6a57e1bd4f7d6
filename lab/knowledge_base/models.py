"""The models of the knowledge-base day: popular search and the day as stated, and the sensitivity page's variants.

Layer: above day.py (whose Scenario each model is) and scenario.py (the sizes the sensitivity page tries);
below rerun.py, sim.py and the benchmark, which build their days here. A model is a day.Scenario: the day as
stated keeps only what the article states (no views, areas of scenario.STATED_AREA_ARTICLES); popular search adds
people's views, which the search lists the matches after the best one by, and product areas of √articles.

Glossary (sim.py has model; scenario.py has the day as stated):
  variant   one model of the sensitivity page: each part of the popular model alone, or views with areas of
            another size
  late      a model whose people go on saving after the day, running the edits replica alone (K4's readings)
"""

import dataclasses
import math
from typing import Dict, Optional

from lab.knowledge_base.day import Scenario
from lab.knowledge_base.scenario import SENSITIVITY_AREAS


def popular_areas(articles: int) -> int:
    """Articles per product area in the popular model: √articles, as many areas as articles in each."""
    return max(1, round(math.sqrt(articles)))


def models_of(stated: Scenario, area_articles: Optional[int] = None) -> Dict[str, Scenario]:
    """The two models of a day as stated, the default first: popular search (with areas of `area_articles`,
    √articles when None) and the day itself."""
    popular = dataclasses.replace(stated, views=True, area_articles=area_articles or popular_areas(stated.articles))
    return {"popular": popular, "stated": stated}


def sensitivity_models(stated: Scenario, area_articles: Optional[int] = None) -> Dict[str, Scenario]:
    """What --sensitivity runs: each ingredient of the popular model alone, then views with areas of each size."""
    default = area_articles or popular_areas(stated.articles)
    models = {
        f"as stated: areas of {stated.area_articles}, no views": stated,
        f"areas of {default}, no views": dataclasses.replace(stated, area_articles=default),
    }
    for area in sorted(set(SENSITIVITY_AREAS) | {default}):
        name = f"views, areas of {area}" + (" (the popular model)" if area == default else "")
        models[name] = dataclasses.replace(stated, views=True, area_articles=area)
    return models


def late_models(models: Dict[str, Scenario]) -> Dict[str, Scenario]:
    """The models with saves that go on after the day, running the edits replica alone (K4's readings)."""
    return {name: dataclasses.replace(scenario, saves_after_day=True, replicas=("edits",))
            for name, scenario in models.items()}
