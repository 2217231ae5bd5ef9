"""The one interface of the two advisors: make_advisor gives a variant the advisor of its dice, Advisor
(advisor.py) for identical dice, OrderedAdvisor (ordered.py, built on Advisor) for dice told apart."""

from __future__ import annotations

import numpy as np

from ..rules.variant import Variant
from .advisor import Advisor
from .ordered import OrderedAdvisor


def make_advisor(variant: Variant, values: np.ndarray) -> Advisor:
    return Advisor(variant, values) if variant.identical_dice else OrderedAdvisor(variant, values)
