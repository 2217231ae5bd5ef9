"""The interactive game of `kniffel play`: prompts, advice, the score sheet."""

from __future__ import annotations

from pathlib import Path

import click

from .advisor import Advisor, format_dice, parse_dice
from .cards import Card
from .game import Game, decisions
from .rules import RuleError

HELP = """Commands at any prompt:
  (Enter)          follow the advice
  33 / keep 3 3    keep these dice and roll the others   (after roll 1 or 2)
  keep blue black  Kniffel 7: name the dice to keep (or number them: keep 1 6)
  all / stop       keep every die and choose a box now
  none             reroll every die
  box NAME         score NAME now (name or number, e.g. 'box chance', 'box 13')
  NAME             after roll 3: the box to score
  options          every option with its expected final score
  card             the score sheet
  undo             step back one decision
  help             this text
  quit             stop (the game stays saved; continue with --resume FILE)"""

TOP = 3


class Quit(Exception):
    pass


def score_sheet(card: Card, expected: float | None = None) -> str:
    v = card.variant
    rows = []
    width = max(len(v.box_name(i)) for i in range(len(v.boxes))) + 2

    def line(label, value):
        rows.append(f"  {label:<{width}} {value:>5}")

    for i, box in enumerate(v.boxes):
        if box.is_upper:
            line(v.box_name(i), card.filled.get(i, "-"))
    line("upper total", card.upper_total)
    for b in v.bonuses:
        line(f"bonus {b.threshold}+", b.points if card.upper_total >= b.threshold else 0)
    for i, box in enumerate(v.boxes):
        if not box.is_upper:
            line(v.box_name(i), card.filled.get(i, "-"))
    if v.extra_points:
        line("extra", card.extra)
    line("total", card.points)
    if expected is not None and not card.full:
        rows.append(f"  expected final score: {expected:.2f}")
    return "\n".join(rows)


class PlayLoop:
    def __init__(self, game: Game, advisor: Advisor, save_path: Path):
        self.game = game
        self.advisor = advisor
        self.save_path = save_path
        self.v = game.variant
        self.answers = 0  # input lines read: a step that fails without reading one would fail forever

    def say(self, text: str = "") -> None:
        click.echo(text)

    def ask(self, prompt: str) -> str:
        self.answers += 1
        return click.prompt(prompt, default="", show_default=False, prompt_suffix=" ").strip()

    def save(self) -> None:
        self.game.save(self.save_path)

    def run(self) -> None:
        self.say(f"{self.v.title}. The game is saved to {self.save_path} after every step; type 'help' for commands.")
        try:
            while not self.game.finished:
                answers = self.answers
                try:
                    self.step()
                except RuleError as exc:
                    if self.answers == answers:  # nothing typed: the same step would fail again, forever
                        raise
                    self.say(f"  ! {exc}")
        except Quit:
            self.say(f"Stopped. Continue with: kniffel play --resume {self.save_path}")
            return
        self.finish()

    def step(self) -> None:
        p = self.game.point()
        needs_roll = p.roll == 0 or "keep" in self.game.events[-1]
        if needs_roll:
            self.roll(p)
        else:
            self.decide(p)

    def command(self, text: str, p) -> bool:
        """Handle the commands that work at every prompt; True if `text` was one."""
        word = text.lower()
        if word in ("help", "h", "?"):
            self.say(HELP)
        elif word in ("card", "c", "sheet"):
            self.say(score_sheet(p.card, self.advisor.expected_final(p.card)))
        elif word in ("undo", "u"):
            self.say("  undone" if self.game.undo() else "  nothing to undo")
            self.save()
        elif word in ("quit", "q", "exit"):
            raise Quit
        else:
            return False
        return True

    def roll(self, p) -> None:
        n = p.roll + 1
        if p.roll == 0:
            self.say(
                f"\n== Turn {self.game.turn_number()} of {len(self.v.boxes)} ==   "
                f"({p.card.points} points, expected final {self.advisor.expected_final(p.card):.2f})"
            )
        if self.game.roll_for_me:
            dice = self.game.next_random_roll()
            self.say(f"Roll {n}: {format_dice(self.v, dice)}")
        else:
            kept = f" (kept: {' '.join(map(str, p.kept))})" if p.kept else ""
            if p.kept_dice:
                kept = " (kept: " + ", ".join(f"{self.v.die_names[d]} {p.dice[d]}" for d in p.kept_dice) + ")"
            text = self.ask(f"Roll {n}{kept}, all {self.v.n_dice} dice:")
            if self.command(text, p):
                return
            dice = parse_dice(self.v, text)
        self.game.add_roll(dice)
        self.save()

    def decide(self, p) -> None:
        action, options = self.advisor.advise(p.card, p.dice, p.roll)
        best = options[0]
        if action == "keep" and len(best.keep) == self.v.n_dice:
            then = self.advisor.box_options(p.card, p.dice)[0]
            self.say(f"Advice: {best.text}, then {then.text}  (expected {best.expected_final_score:.2f})")
        else:
            self.say(f"Advice: {best.text}  (expected {best.expected_final_score:.2f})")
        for o in options[1:TOP]:
            self.say(f"   or: {o.text}  ({o.expected_final_score:.2f}, {'tie' if o.loss == 0 else f'-{o.loss:.2f}'})")
        prompt = "Keep which dice? (Enter = advice)" if action == "keep" else "Which box? (Enter = advice)"
        text = self.ask(prompt)
        if self.command(text, p):
            return
        word = text.lower()
        if word in ("options", "o"):
            for o in options:
                self.say(f"  {o.text}  ({o.expected_final_score:.2f}, loss {o.loss:.2f})")
            return
        if action == "box":
            self.score(p, text)
            return
        if word == "":
            if len(best.keep) == self.v.n_dice:
                self.score(p, "")
            else:
                self.game.add_keep(best.keep, None if self.v.identical_dice else best.keep_dice)
                self.save()
            return
        if word in ("all", "stop", "a"):
            self.score(p, self.ask("Which box? (Enter = advice)"))
            return
        if word.startswith("box ") or word.startswith("b "):
            self.score(p, text.split(None, 1)[1])
            return
        body = text.split(None, 1)[1] if word.split()[0] in ("keep", "k") and " " in word else text
        dice: tuple[int, ...] | None = None
        if word in ("none", "-", "0", "reroll"):
            faces: tuple[int, ...] = ()
            dice = None if self.v.identical_dice else ()
        elif not self.v.identical_dice:
            dice = parse_die_names(self.v, body)
            faces = tuple(p.dice[d] for d in dice)
        else:
            faces = parse_faces(body)
        self.game.check_kept(faces)  # before "all dice kept = stop": '11111' needs five 1s
        if len(faces) == self.v.n_dice:
            self.score(p, self.ask("Which box? (Enter = advice)"))
            return
        self.game.add_keep(faces, dice)
        self.save()

    def score(self, p, text: str) -> None:
        options = self.advisor.box_options(p.card, p.dice)
        if self.command(text, p):
            return
        if text == "":
            choice = options[0]
        else:
            box = self.v.find_box(text)
            match = [o for o in options if o.box == box]
            if not match:
                allowed = ", ".join(self.v.box_name(o.box) for o in options)
                raise RuleError(f"{self.v.box_name(box)} cannot be filled with this roll; allowed: {allowed}")
            choice = match[0]
        self.game.add_box(choice.box, choice.points, choice.extra)
        self.save()
        self.say(f"  -> {choice.text}")
        card = self.game.point().card
        if not card.full:
            self.say(score_sheet(card, self.advisor.expected_final(card)))

    def finish(self) -> None:
        card = self.game.point().card
        losses = decisions(self.game, self.advisor)
        total = sum(d.loss for d in losses)
        self.say("\n== Game over ==")
        self.say(score_sheet(card))
        self.say(f"Final score: {card.points}")
        self.say(
            f"Expected-value loss of your choices against optimal play: {total:.2f} points over {len(losses)} decisions"
        )


def parse_die_names(variant, text: str) -> tuple[int, ...]:
    """Dice told apart: 'blue black' or die numbers '1 6' -> die indices."""
    return tuple(sorted({variant.find_die(part) for part in text.replace(",", " ").split()}))


def parse_faces(text: str) -> tuple[int, ...]:
    parts = text.replace(",", " ").split()
    if len(parts) == 1 and parts[0].isascii() and parts[0].isdigit():
        parts = list(parts[0])
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise RuleError(
            f"{text!r} is not a list of dice to keep (e.g. '66 6' or '3 3'); 'help' lists commands"
        ) from None
