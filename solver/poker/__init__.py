"""Würfelpoker, the poker-hand duel (issue 31): hands.py ranks five dice, duel.py computes the exact best plays."""
