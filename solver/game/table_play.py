"""`kniffel play --players A,B,...`: the one-player PlayLoop at a table of 2-6 (hot seat).

Whose turn it is opens every turn; after every turn the standings, short: points, expected final
score and every player's chance of winning (exact, solver/table_game.WinChances). Advice is for the
highest expected score, or with advice="win" for winning: the target (beat the best other score) in
the last turn of the game, else the --opponent rule against the leader (solver/chances/win.py).
"""

from __future__ import annotations

from pathlib import Path

from ..advice.advisor import Advisor
from ..advice.explain import signed
from ..errors import KniffelError
from ..i18n.texts import t
from .play import PlayLoop
from .review import decisions
from .table_game import TableGame, WinChances, places


class TablePlayLoop(PlayLoop):
    def __init__(
        self, game: TableGame, advisor: Advisor, save_path: Path, odds: bool = True, target_table=None
    ) -> None:
        super().__init__(game, advisor, save_path)  # type: ignore[arg-type]  # TableGame acts for the player to move
        self.table = game
        self.chances: WinChances | None = (
            WinChances(game.variant, advisor.values, getattr(advisor, "engine", None)) if odds else None
        )
        self.target_table = target_table  # set: advice for winning
        self.shown_player: tuple[int, int] | None = None
        self._leader_pmfs: WinChances | None = None
        self._win: dict[tuple, tuple[list, list[float], str]] = {}  # (events, box) -> options, chances, line
        self._beyond_said = False  # Kniffel 7: the win advice said to be out of reach

    # -- whose turn, the standings ----------------------------------------------------------------
    def run(self) -> None:
        self.say(t("table_players", names=", ".join(self.table.names)))
        super().run()

    def where(self) -> None:
        self.shown_player = None  # before roll 1 the turn's header says whose turn it is
        if not self.table.finished and self.table.point().roll:
            self.say(t("table_turn", name=self.table.names[self.table.current()]))
        super().where()

    def turn_header(self, p) -> None:
        mover = (self.table.current(), self.table.turn_number())
        if self.shown_player != mover:
            self.shown_player = mover
            self.shown_turn = 0  # the one-player header (turn, points, expected) follows
            self.say("\n" + t("table_turn", name=self.table.names[mover[0]]))
        super().turn_header(p)

    def after_score(self) -> None:
        if not self.table.finished:
            self.standings()

    def standings(self) -> None:
        cards = self.table.cards()
        names = self.table.names
        wins: list[float] | None = None
        tie = 0.0
        if self.chances is not None:
            try:
                wins, tie = self.chances(cards)
            except KniffelError as exc:  # Kniffel 7: no exact distribution
                self.say(t("table_no_odds", reason=exc))
                self.chances = None
        nxt = self.table.current()
        width = max(len(n) for n in names)
        self.say(t("table_standings"))
        for i, (name, card) in enumerate(zip(names, cards)):
            mark = ">" if i == nxt else " "
            if wins is not None and self.chances is not None:
                expected = self.chances.expected(card)
                self.say(
                    t(
                        "table_row",
                        mark=mark,
                        name=name,
                        width=width,
                        points=card.points,
                        expected=expected,
                        win=wins[i],
                    )
                )
            else:
                expected = self.advisor.expected_final(card)
                self.say(t("table_row_plain", mark=mark, name=name, width=width, points=card.points, expected=expected))
        if wins is not None and tie > 5e-4:
            self.say(t("table_tie", tie=tie))

    # -- advice for winning -----------------------------------------------------------------------
    def keeps_ranked(self, p, options) -> list:
        won = self.win_ranked(p, box=False)
        return won[0] if won else super().keeps_ranked(p, options)

    def box_ranked(self, p) -> list:
        won = self.win_ranked(p, box=True)
        return won[0] if won else super().box_ranked(p)

    def advice_lines(self, p, options) -> None:
        super().advice_lines(p, options)
        if self.target_table is None:
            return
        box = options[0].kind == "box"
        won = self.win_ranked(p, box)
        if won:
            self.say(won[2])

    def win_ranked(self, p, box: bool) -> tuple[list, list[float], str] | None:
        """(options by the chance of winning, those chances, the line saying so); None for max-expected
        advice. One computation per situation: the prompts ask again after a typo."""
        if self.target_table is None:
            return None
        key = (len(self.table.events), box)
        if key not in self._win:
            try:
                self._win[key] = self._win_options(p, box)
            except KniffelError as exc:
                if self.v.identical_dice or not self._beyond_said:
                    self.say(t("table_win_none", reason=exc))
                if self.v.identical_dice:
                    self.target_table = None
                self._beyond_said = True  # Kniffel 7: said once; the end game comes within reach later
                return None
        return self._win[key]

    def _win_options(self, p, box: bool) -> tuple[list, list[float], str]:
        from ..chances import targets, win

        v, table = self.v, self.target_table
        cur = self.table.current()
        cards = self.table.cards()
        others = [i for i in range(len(cards)) if i != cur]
        if not v.identical_dice:
            return self._ordered_win_options(p, box, cards, others)
        if self.table.last_turn():  # everyone else is done: the target is one more than the best of them
            leader = max(others, key=lambda i: cards[i].points)
            target = cards[leader].points + 1
            _, ranked_t = targets.target_options(v, table, self.advisor, p.card, p.dice, p.roll, target, box)
            chances = [o.probability for o in ranked_t]
            line = t("table_win_target", target=target, leader=self.table.names[leader], p=chances[0])
            return [o.option for o in ranked_t], chances, line
        if self._leader_pmfs is None:  # the standings' forward passes, or (--no-odds) its own
            self._leader_pmfs = self.chances or WinChances(v, self.advisor.values, self.advisor.engine)
        pmf_of = self._leader_pmfs
        leader = max(others, key=lambda i: pmf_of.expected(cards[i]))
        _, ranked_w = win.opponent_options(
            v, table, self.advisor, p.card, p.dice, p.roll, pmf_of.pmf(cards[leader]), box
        )
        chances = [o.win for o in ranked_w]
        expected = pmf_of.expected(cards[leader])
        line = t("table_win_opponent", leader=self.table.names[leader], expected=expected)
        return [o.option for o in ranked_w], chances, line

    def _ordered_win_options(self, p, box: bool, cards, others) -> tuple[list, list[float], str]:
        """_win_options for Kniffel 7: computed from the card on demand (chances/ordered_win.py), the leader's
        pmf estimated by simulation; beyond one machine's minutes a KniffelError (the advice for the mean)."""
        from ..chances import ordered_chances, ordered_win

        v = self.v

        def on_plan(plan, seconds):
            if seconds >= 5:
                self.say(t("k7_computing", columns=plan.columns, seconds=seconds))

        beyond = KniffelError(t("k7_needs_table", variant=v.name, most=ordered_chances.PLAN_MOST_FREE).strip())
        if self.table.last_turn():
            leader = max(others, key=lambda i: cards[i].points)
            target = cards[leader].points + 1
            found = ordered_chances.targets_from(v, p.card, [target - p.card.points], on_plan)
            if found is None:
                raise beyond
            ranked_t = ordered_chances.ordered_target_options(self.advisor, found, p.card, p.dice, p.roll, target, box)
            chances = [o.probability for o in ranked_t[1]]
            line = t("table_win_target", target=target, leader=self.table.names[leader], p=chances[0])
            return [o.option for o in ranked_t[1]], chances, line
        leader = max(others, key=lambda i: self.advisor.expected_final(cards[i]))
        mine = ordered_win.my_targets(v, p.card, on_plan)
        if mine is None:
            raise beyond
        pmf, _ = ordered_win.opponent_pmf(v, self.advisor.values, cards[leader])
        _, ranked_w = ordered_win.ordered_opponent_options(self.advisor, mine, p.card, p.dice, p.roll, pmf, box)
        chances = [o.win for o in ranked_w]
        expected = self.advisor.expected_final(cards[leader])
        line = t("table_win_opponent", leader=self.table.names[leader], expected=expected)
        return [o.option for o in ranked_w], chances, line

    # -- the end ----------------------------------------------------------------------------------
    def finish(self) -> None:
        cards = self.table.cards()
        names = self.table.names
        width = max(len(n) for n in names)
        self.say("\n" + t("game_over"))
        points = [c.points for c in cards]
        place = places(points)
        for i in sorted(range(len(names)), key=lambda i: place[i]):  # sorted keeps the order of play in a tie
            loss = sum(d.loss for d in decisions(self.table.games[i], self.advisor))
            row = t("table_final_row", rank=place[i], name=names[i], width=width, points=points[i], loss=signed(loss))
            self.say(row)
        best = [names[i] for i in range(len(names)) if place[i] == 1]
        self.say(t("table_winner", names=best[0]) if len(best) == 1 else t("table_shared", names=", ".join(best)))
        self.say(t("review_hint", path=self.save_path))
