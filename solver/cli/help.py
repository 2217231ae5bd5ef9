"""--help in the player's language: every text of it comes from the catalogue (solver/i18n/help.py) by key,
when the help is shown, in the language a usage error of the same command line would speak: --lang, else the
locale variables, else the language of the variant named (or of the command's default variant), else English.

Keys: `help_<command>` and `short_<command>` ('group' for `kniffel` itself), an option's help
`opt_<command>_<option>` or the shared `opt_<option>`; the variants line is made from the presets."""

from __future__ import annotations

import textwrap

import click

from ..advice.explain import unbreakable
from ..i18n.texts import ARGUMENT_METAVARS, CATALOGUES, language, set_language, t
from .settings import Settings, _usage_language

ARGS_KEY = "kniffel.args"  # ctx.meta: the whole command line, for the language of its help

# click's placeholders for its value types, and the arguments' own, by catalogue key
_TYPE_METAVARS = {
    "integer": "integer",
    "integer range": "integer",
    "text": "text",
    "file": "file",
    "directory": "directory",
}


def command_key(command: click.Command) -> str:
    return "group" if isinstance(command, click.Group) else str(command.name)


def option_key(command: click.Command, param: click.Parameter) -> str:
    """The catalogue key of an option's help, by its long name: its command's own, else the shared one."""
    name = max(param.opts, key=len).lstrip("-").replace("-", "_")
    own = f"opt_{command_key(command)}_{name}"
    return own if own in CATALOGUES["en"] else f"opt_{name}"


def variants_line(width: int = 100) -> str:
    """'Variants: kniffel, ...' wrapped under its label."""
    from ..rules.presets import PRESETS

    label = t("help_variants_label")
    label += " " * max(1, 10 - len(label))
    lines = textwrap.wrap(", ".join(PRESETS), width - 2 - len(label), break_on_hyphens=False)
    return "\n".join((label if i == 0 else " " * len(label)) + line for i, line in enumerate(lines))


def show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """--version: one line in the language its help would speak ('kniffel, versión 0.1.0')."""
    if not value or ctx.resilient_parsing:
        return
    from ..version import __version__

    before = language()
    set_language(_help_language(ctx))
    try:
        click.echo(t("version_line", version=__version__))
    finally:
        set_language(before)
    ctx.exit()


def _help_language(ctx: click.Context) -> str:
    settings = ctx.find_object(Settings)
    if settings is not None and settings.lang:
        return settings.lang
    return _usage_language(ctx.meta.get(ARGS_KEY, []))


def _metavar(param: click.Parameter, ctx: click.Context) -> str | None:
    """The placeholder in the current language (None: click's own, e.g. a choice [de|en])."""
    if isinstance(param, click.Argument):
        metavar = param.metavar or ""
        bare = metavar.strip("[]")
        if bare in ARGUMENT_METAVARS:  # '[VARIANT]' (optional) keeps its brackets
            return metavar.replace(bare, t(f"metavar_{ARGUMENT_METAVARS[bare]}"))
        if param.nargs == -1:
            return t("metavar_variants")
        return None
    name = getattr(param.type, "name", "")
    return t(f"metavar_{_TYPE_METAVARS[name]}") if name in _TYPE_METAVARS else None


class CatalogueHelp(click.Command):
    """A command whose --help comes from the catalogue, in the player's language."""

    def get_help(self, ctx: click.Context) -> str:
        before = language()
        set_language(_help_language(ctx))
        try:
            return super().get_help(ctx)
        finally:
            set_language(before)

    def get_short_help_str(self, limit: int = 45) -> str:
        return t(f"short_{command_key(self)}")

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [t("metavar_options")]
        for param in self.get_params(ctx):
            if isinstance(param, click.Argument):
                pieces.append(_metavar(param, ctx) or param.make_metavar(ctx))
        return pieces

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)), t("help_usage") + " ")

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(
                unbreakable(t(f"help_{command_key(self)}"))
                + ("\n" + variants_line() if self.names_variants(ctx) else "")
            )

    def names_variants(self, ctx: click.Context) -> bool:
        """Whether the help lists the variants: for a command that takes a VARIANT (or several), and kniffel itself."""
        return isinstance(self, click.Group) or any(
            isinstance(p, click.Argument) and p.name is not None and p.name.startswith("variant_name")
            for p in self.get_params(ctx)
        )

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for param in self.get_params(ctx):
            if not isinstance(param, click.Option) or param.hidden:
                continue
            saved = param.help, param.metavar
            param.help, param.metavar = unbreakable(t(option_key(self, param))), _metavar(param, ctx) or param.metavar
            try:
                record = param.get_help_record(ctx)
            finally:
                param.help, param.metavar = saved
            if record is not None:
                rows.append((record[0], _extras(record[1])))
        with formatter.section(t("help_options")):
            formatter.write_dl(rows)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The arguments are explained in the help text and its examples."""


def _extras(text: str) -> str:
    """click's '[default: 1; 1<=x<=3; required]' in the current language."""
    return text.replace("[default: ", f"[{t('help_default')}: ").replace("required]", f"{t('help_required')}]")


class CatalogueGroup(CatalogueHelp, click.Group):
    """`kniffel` itself: its help and its list of commands from the catalogue; the command line kept for
    the language of every --help below it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta.setdefault(ARGS_KEY, list(args))
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [t("metavar_options"), t("metavar_command")]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        CatalogueHelp.format_options(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = sorted(self.list_commands(ctx))
        commands = [(name, self.get_command(ctx, name)) for name in names]
        rows = [(name, cmd.get_short_help_str()) for name, cmd in commands if cmd is not None and not cmd.hidden]
        if rows:
            with formatter.section(t("help_commands")):
                formatter.write_dl(rows)
