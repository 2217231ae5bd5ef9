"""The dynamic program: Numba kernels (the only @njit loops of the package) and the plain-Python
driver around them.

A state at the start of a turn is (mask of filled boxes, upper total capped at the highest bonus
threshold, joker_held: the joker box holds points). Its value is the expected number of points still
to come under optimal play.

The parts, in the order a solve uses them:

    compile.py     the one njit (cached; plain Python with KNIFFEL_JIT=0)
    rules.py       a variant's rules as arrays
    states.py      which (mask, upper total, joker_held) states exist, layer by layer
    entries.py     the end of a turn: allowed entries of each final roll and their values
    identical.py   the keep-lattice passes of identical dice (multisets)
    ordered_dice.py  the index tables of dice told apart (Kniffel 7)
    ordered.py     the turn kernel for dice told apart
    ordered_layer.py  its work arrays, calls of 8 states, a layer on threads, the advisor's keep values
    ordered_target.py  its passes over target probabilities (Kniffel 7's target play from a card)
    engine.py      a variant's engine: everything the kernels need for it
    lanes.py       a layer's work items dealt to one lane per thread
    layers.py      the layer-by-layer loop that the solve and the tables built like it share
    policy.py      the turn's policy with the tie rule (which keep, which entry) and its values
    moments.py     the solve's turn for identical dice: values and second moments (each option's spread)
    solve.py       the solve of the value table (and the second moments)
    forward.py     the forward pass: the exact distribution of final scores
    forward_ordered.py, forward_ordered_layers.py  the same for dice told apart: a state's kernel, its layers
    forward_ordered_choices.py  its choice passes (the advisor's keep of every roll)
    simulation.py  one turn of many games of optimal play
    ordered_play.py  the decisions of many Kniffel 7 games, turn by turn (simulation)
    target_layout.py, target.py, target_vectors.py  target tables: their layout, their kernel, whole vectors
    advice_pack.py the advice kernels' arrays (each roll's sub-keeps; two packed buffers)
    advice.py      the value of every option of many situations (advice in batches, or one)
    best_one.py    the best option of one situation (Advisor.best_action)

All upper totals of one (mask, joker_held) are solved together: every array of the turn has the
upper totals as its last, contiguous axis, so the keep-lattice passes are plain vector loops.
"""

from .advice import ENTRY_AFTER_FIRST, advise_batch, advise_one
from .advice_pack import AdviceTables, advice_tables, max_options, pack_single
from .engine import Engine, make_engine
from .entries import roll_entries
from .identical import keep_values
from .ordered_layer import ordered_keep_values, ordered_turn
from .ordered_play import ordered_play_work, ordered_turn_choice, play_ordered_turn
from .policy import ranked_sub_keeps
from .rules import Rules, rules_arrays, rules_bonus
from .simulation import simulate_turn, simulated_choice
from .solve import count_states, set_threads, solve, solve_items, solve_with_moments, table_shape
from .states import UpperStates, layer_items, upper_states

__all__ = [
    "ENTRY_AFTER_FIRST",
    "AdviceTables",
    "advice_tables",
    "advise_batch",
    "advise_one",
    "max_options",
    "pack_single",
    "Engine",
    "Rules",
    "UpperStates",
    "count_states",
    "keep_values",
    "layer_items",
    "make_engine",
    "ordered_keep_values",
    "ordered_play_work",
    "ordered_turn_choice",
    "ordered_turn",
    "play_ordered_turn",
    "roll_entries",
    "rules_arrays",
    "rules_bonus",
    "set_threads",
    "simulate_turn",
    "simulated_choice",
    "ranked_sub_keeps",
    "solve",
    "solve_items",
    "solve_with_moments",
    "table_shape",
    "upper_states",
]
