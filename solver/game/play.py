"""The interactive game of `kniffel play`: prompts, advice, the score sheet, in the player's language."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..advice.advisor import Advisor
from ..advice.cards import Card
from ..advice.explain import (
    WIDTH,
    card_text,
    dice_text,
    dice_word,
    die_order,
    faces_text,
    fit,
    joker_rule,
    loss_text,
    named_dice,
    option_text,
    refusal,
    signed,
    tie_order,
)
from ..i18n.texts import bonus_name, box_name, t, variant_title
from ..rules.variant import RuleError
from .entry import parse_keep, parse_roll, strip_word, words
from .record import Game
from .review import decisions

ALTERNATIVES_SHOWN = 3


class Quit(Exception):
    pass


def score_sheet(card: Card, expected: float | None = None) -> str:
    v = card.variant
    rows = []
    names = [box_name(v, i) + (f" ({v.pad_letter(i)})" if v.pad_letter(i) else "") for i in range(len(v.boxes))]
    labels = [*names, t("sheet_upper_total"), bonus_name(v)]
    width = max(len(x) for x in labels) + 2

    def line(label, value):
        rows.append(f"  {label:<{width}} {value:>5}")

    for i, box in enumerate(v.boxes):
        if box.is_upper:
            line(names[i], card.filled.get(i, "-"))
    line(t("sheet_upper_total"), card.upper_total)
    for b in v.bonuses:
        line(t("sheet_bonus", threshold=b.threshold), b.points if card.upper_total >= b.threshold else 0)
    for i, box in enumerate(v.boxes):
        if not box.is_upper:
            line(names[i], card.filled.get(i, "-"))
    if v.extra_points:
        line(bonus_name(v), card.extra)
    line(t("sheet_total"), card.points)
    if expected is not None and not card.full:
        rows.append(t("sheet_expected", expected=expected))
    return "\n".join(rows)


def line_editing() -> None:
    """Arrow keys and history at the prompts: readline, on a terminal only (elsewhere it may print codes)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        try:
            import readline  # noqa: F401  (input() uses it once imported)
        except ImportError:  # not on every platform
            pass


class PlayLoop:
    def __init__(self, game: Game, advisor: Advisor, save_path: Path):
        self.game = game
        self.advisor = advisor
        self.save_path = save_path
        self.v = game.variant
        self.shown_turn = 0  # the turn whose header was printed
        self.answers = 0  # input lines read: a step that fails without reading one would fail forever

    def say(self, text: str = "") -> None:
        """Print, each line wrapped at 100 columns (a long box name and its bonus can push advice past it)."""
        click.echo("\n".join(fit(line) if len(line) > WIDTH else line for line in text.split("\n")))

    def ask(self, prompt: str) -> str:
        self.answers += 1
        return click.prompt(prompt, default="", show_default=False, prompt_suffix=" ").strip()

    @property
    def saved(self) -> bool:
        """Is there a game at save_path to resume (a resumed game, or a step saved since)?"""
        return bool(self.game.events) and self.save_path.exists()

    def save(self) -> None:
        self.game.save(self.save_path)

    def run(self) -> None:
        line_editing()
        self.say(t("play_start", title=variant_title(self.v), path=self.save_path))
        if self.game.events:
            self.where()
        try:
            while not self.game.finished:
                answers = self.answers
                try:
                    self.step()
                except RuleError as exc:
                    if self.answers == answers:  # nothing typed: the same step would fail again, forever
                        raise
                    self.say(f"  ! {exc}")
        except Quit:  # before the first step nothing was saved: no file to resume
            self.say(t("stopped", path=self.save_path) if self.saved else t("play_interrupted_new"))
            return
        except (KeyboardInterrupt, click.exceptions.Abort):  # Ctrl-C, or the end of input at a prompt
            self.say("\n" + (t("play_interrupted", path=self.save_path) if self.saved else t("play_interrupted_new")))
            raise  # the CLI's own ending: `kniffel: interrupted`, exit code 130
        self.finish()

    def where(self) -> None:
        """Where the game stands (after --resume and undo): turn, roll, dice, card."""
        p = self.game.point()
        turns = len(self.v.boxes)
        if p.card.full:
            return
        turn = self.game.turn_number()
        if p.roll:  # this turn is said here: the next one's header comes when it starts (after an undone box too)
            self.shown_turn = turn
            self.say(t("where_roll", turn=turn, turns=turns, roll=p.roll, dice=dice_text(self.v, p.dice)))
        else:  # before roll 1 the turn's header says where: once, not again at the roll prompt
            self.shown_turn = 0
            self.turn_header(p)
        self.say(t("where_card", card=card_text(p.card), points=p.card.points, count=p.card.points))

    def step(self) -> None:
        p = self.game.point()
        if p.roll == 0 or "keep" in self.game.events[-1]:
            self.roll(p)
        else:
            self.decide(p)

    def command(self, text: str, p, options=()) -> str | None:
        """The commands that work at every prompt: None if `text` is none of them, 'shown' when it only
        printed something, 'moved' when the game changed (undo)."""
        word = text.lower()
        if word in words("words_help"):
            self.say(t("play_help", ordered_help=t("play_help_ordered") if self.v.die_names else ""))
        elif word in words("words_card"):
            self.say(score_sheet(p.card, self.advisor.expected_final(p.card)))
        elif word in words("words_options") and options:
            for i, o in enumerate(options):
                self.say(
                    t(
                        "option_row",
                        text=option_text(self.v, o, p.dice),
                        expected=o.expected_final_score,
                        loss=t("best") if i == 0 else loss_text(o.loss),
                    )
                )
        elif word in words("words_undo"):
            undone = self.game.undo()
            self.say(t("undone") if undone else t("nothing_to_undo"))
            self.save()
            if undone:
                self.where()
            return "moved"
        elif word in words("words_quit"):
            raise Quit
        else:
            return None
        return "shown"

    def turn_header(self, p) -> None:
        """The turn's header: once a turn, not again after a typo."""
        if self.shown_turn == self.game.turn_number():
            return
        self.shown_turn = self.game.turn_number()
        self.say(
            "\n"
            + t(
                "turn_header",
                turn=self.shown_turn,
                turns=len(self.v.boxes),
                points=p.card.points,
                count=p.card.points,
                expected=self.advisor.expected_final(p.card),
            )
        )

    def roll(self, p) -> None:
        n = p.roll + 1
        if p.roll == 0:
            self.turn_header(p)
        if self.game.roll_for_me:
            dice = self.game.next_random_roll()
            self.say(t("rolled", roll=n, dice=dice_text(self.v, dice)))
        else:
            free = [d for d in range(self.v.n_dice) if d not in p.kept_dice]
            if p.kept:
                kept = named_dice(self.v, p.dice, p.kept_dice) if self.v.die_names else faces_text(p.kept)
                rest = self.v.n_dice - len(p.kept)
                order = die_order(self.v, free)
                key = "prompt_roll_rest_one" if rest == 1 else "prompt_roll_rest"
                prompt = t(key, roll=n, kept=kept, count=rest, dice=dice_word(rest), order=order)
            else:
                prompt = t("prompt_roll_all", roll=n, count=self.v.n_dice, order=die_order(self.v))
            text = self.ask(prompt)
            if self.command(text, p):
                return
            dice = parse_roll(self.v, text, p.kept_dice, p.kept, p.dice)
            if self.v.die_names or len(text.replace(" ", "").replace(",", "")) != self.v.n_dice:
                self.say(t("echo_dice", dice=dice_text(self.v, dice)))
        self.game.add_roll(dice)
        self.save()

    def keeps_ranked(self, p, options) -> list:
        """The keep options in the order advised (the first is what Enter takes)."""
        return tie_order(options)

    def box_ranked(self, p) -> list:
        """The box options for the dice shown, in the order advised."""
        return tie_order(self.advisor.box_options(p.card, p.dice, p.roll))

    def advice_lines(self, p, options) -> None:
        best = options[0]
        text = option_text(self.v, best, p.dice)
        if best.kind == "keep" and len(best.keep) == self.v.n_dice:
            then = self.box_ranked(p)[0]
            then_text = option_text(self.v, then, p.dice)
            self.say(t("advice_then", text=text, then=then_text, expected=best.expected_final_score))
        else:
            self.say(t("advice", text=text, expected=best.expected_final_score))
        for o in options[1:ALTERNATIVES_SHOWN]:
            self.say(
                t(
                    "advice_or",
                    text=option_text(self.v, o, p.dice),
                    expected=o.expected_final_score,
                    loss=loss_text(o.loss),
                )
            )
        if best.kind == "box" or len(best.keep) == self.v.n_dice:
            rule = joker_rule(self.v, p.card, p.dice)
            if rule:
                self.say(rule)

    def decide(self, p) -> None:
        action, options = self.advisor.advise(p.card, p.dice, p.roll)
        if action == "box":
            self.choose_box(p)
            return
        options = self.keeps_ranked(p, options)
        self.advice_lines(p, options)
        text = self.ask(t("prompt_keep"))
        if self.command(text, p, options):
            return
        word = text.lower()
        if word == "":
            best = options[0]
            if len(best.keep) == self.v.n_dice:  # the whole advice: stop, and the box it named
                self.score(p, "", self.box_ranked(p))
            else:
                self.keep(p, best)
            return
        if word in words("words_stop"):
            self.choose_box(p)
            return
        is_box, rest = strip_word(text, "words_box")
        if is_box:
            self.score(p, rest, self.box_ranked(p))
            return
        if word in words("words_none"):
            rolled_all = next((o for o in options if not o.keep), None)
            if rolled_all is None:  # the house rule (--keep-one): a die kept before the third roll
                raise RuleError(t("game_keep_one"))
            self.keep(p, rolled_all)
            return
        _, body = strip_word(text, "words_keep")
        try:
            self.keep_typed(p, body, options)
        except RuleError:
            if not (any(c.isalpha() for c in text) and self.is_box(text)):
                raise
            self.score(p, text, self.box_ranked(p))  # a box name: score it now

    def is_box(self, text: str) -> bool:
        try:
            self.v.find_box(text)
        except RuleError:
            return False
        return True

    def keep_typed(self, p, body: str, options) -> None:
        """Keep what was typed: faces by value, dice told apart also by colour or '#n'."""
        chosen, faces = parse_keep(self.v, body, p.dice)
        if self.v.identical_dice:
            faces = faces + [p.dice[d] for d in chosen]
            match = [o for o in options if sorted(o.keep) == sorted(faces)]
        else:
            want = sorted(faces)
            match = [
                o
                for o in options
                if chosen <= set(o.keep_dice)
                and len(o.keep_dice) == len(chosen) + len(faces)
                and sorted(p.dice[d] for d in o.keep_dice if d not in chosen) == want
            ]  # ranked: where two dice show the same face, the better one of them
        if not match:
            shown = dice_text(self.v, p.dice)
            asked = faces_text(sorted(faces + [p.dice[d] for d in chosen]))
            raise RuleError(t("err_keep_faces", faces=asked, dice=shown))
        self.keep(p, match[0])

    def keep(self, p, option) -> None:
        if len(option.keep) == self.v.n_dice:
            self.choose_box(p)
            return
        self.game.add_keep(option.keep, None if self.v.identical_dice else option.keep_dice)
        self.save()
        rest = self.v.n_dice - len(option.keep)
        if not option.keep:
            self.say(t("kept_none", count=rest))
            return
        kept = named_dice(self.v, p.dice, option.keep_dice) if self.v.die_names else faces_text(option.keep)
        self.say(t("kept_echo", kept=kept, count=rest, dice=dice_word(rest)))

    def choose_box(self, p) -> None:
        """The box prompt (after the last roll, or after stopping): advice, then a box name; 'options',
        'card' and 'help' answer and ask again; a refused box says why and asks again."""
        options = self.box_ranked(p)
        self.advice_lines(p, options)
        while True:
            text = self.ask(t("prompt_box"))
            done = self.command(text, p, options)
            if done == "moved":
                return
            if done:
                continue
            _, name = strip_word(text, "words_box")
            try:
                self.score(p, name, options)
                return
            except RuleError as exc:
                self.say(f"  ! {exc}")

    def score(self, p, text: str, options) -> None:
        head = text.split()[0].lower() if text.strip() else ""
        if head in words("words_stop") + words("words_none") + words("words_keep"):  # a roll prompt's command
            boxes = ", ".join(f"{box_name(self.v, b)} ({b + 1})" for b in sorted({o.box for o in options}))
            raise RuleError(t("err_not_box_word", text=text, boxes=boxes))
        if text == "":
            choice = options[0]
        else:
            box = self.v.find_box(text)
            match = [o for o in options if o.box == box]
            if not match:
                raise RuleError(refusal(self.v, p.card, p.dice, box, options))
            choice = match[0]
        self.game.add_box(choice.box, choice.points, choice.extra)
        self.save()
        self.say(t("scored", text=option_text(self.v, choice, p.dice)))
        self.after_score()

    def after_score(self) -> None:
        card = self.game.point().card
        if not card.full:
            self.say(score_sheet(card, self.advisor.expected_final(card)))

    def finish(self) -> None:
        card = self.game.point().card
        losses = decisions(self.game, self.advisor)
        total = sum(d.loss for d in losses)
        self.say("\n" + t("game_over"))
        self.say(score_sheet(card))
        self.say(t("final_score", points=card.points))
        self.say(t("game_loss", loss=signed(total), count=len(losses)))
        self.say(t("review_hint", path=self.save_path))
