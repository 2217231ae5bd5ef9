"""What a game may bring under optimal play: the distribution of final scores (distribution.py), its
spread (spread.py), the chance to reach a target (targets.py, target_quick.py) and play to reach it
(target_play.py), the chance to win against others (win.py) and simulated games (simulation.py). It may
import everything below it: solver.rules, solver.dp, solver.store, solver.advice, solver.errors and
solver.i18n."""
