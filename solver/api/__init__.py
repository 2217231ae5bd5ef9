"""The public Python API: load a variant's table, value cards, get advice, simulate.

    import solver
    table = solver.load("kniffel")                    # solves the table first if it is missing
    table.value("chance=22")                          # expected final score at the start of a turn
    advice = table.advise({"chance": 22}, dice=(3, 3, 5, 1, 6), roll=1)
    advice.best.text, advice.best.expected_final_score, advice.then, advice.options
    solver.simulate("kniffel", games=100_000, seed=1).mean

Cards are CLI strings ("chance=22,extra=50"), mappings ({"chance": 22, "extra": 50}) or Card objects;
the empty card is "", {} or None. Dice are strings ("33516", "3,3,5,1,6") or sequences of faces in die
order. Every result is a small frozen object whose as_dict() is what the CLI prints with --json.
The CLI is a thin layer on top of these calls.

inputs.py checks what comes in, table.py answers from a table, target_play.py plays for a target,
simulation.py plays games.
"""

from ..chances.targets import Chances as Chances  # Table.chances' answer
from ..chances.targets import TargetAdvice as TargetAdvice  # Table.advise_target's
from ..chances.targets import TargetError as TargetError
from ..poker.advice import PokerAdvice as PokerAdvice  # the dice-poker duel
from ..poker.advice import poker_advice as poker_advice
from ..store.target_tables import TargetTableMissing as TargetTableMissing  # build=False, no target table
from .inputs import CardLike as CardLike
from .inputs import DiceLike as DiceLike
from .inputs import as_card as as_card
from .inputs import as_dice as as_dice
from .inputs import variants as variants
from .simulation import Simulation as Simulation
from .simulation import simulate as simulate
from .table import Advice as Advice
from .table import Table as Table
from .table import load as load
