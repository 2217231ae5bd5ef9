"""One turn's decisions from a solved table: the score card (cards.py), the advisor for identical dice
(advisor.py) and for dice told apart (ordered.py) behind one interface, advice in batches (batch.py) and
the explanation of a choice (explain.py). It may import solver.rules, solver.dp, solver.store,
solver.errors and solver.i18n."""
