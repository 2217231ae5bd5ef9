"""`kniffel serve`: the advice page and its JSON API."""

from __future__ import annotations

import click

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.presets import find_variant
from .base import _settings, cli

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.pass_context
def serve(ctx, host, port):
    """The advice page and its JSON API in the browser: http://HOST:PORT/ (needs the web extra)."""
    try:
        import uvicorn

        from ..web.app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise KniffelError(t("serve_web_extra", name=exc.name)) from None
    loopback = host in LOOPBACK or host.startswith("127.")
    if not loopback:
        click.echo("kniffel: warning: " + t("serve_open_host", host=host), err=True)
    page_variant = find_variant("kniffel")  # the page opens on it: its advice is made ready at start-up

    def say(text: str) -> None:
        click.echo("kniffel: " + text, err=True)

    app = create_app(
        _settings(ctx).tables_dir,
        allowed_hosts=[*LOOPBACK_HOSTS, host] if loopback else None,
        warm_up=page_variant,
        on_slow=lambda: say(t("serve_warming", variant=page_variant.name)),
        on_ready=lambda seconds: say(t("serve_ready", seconds=seconds)),
    )
    shown = f"[{host}]" if ":" in host else host
    say(t("serve_serving", url=f"http://{shown}:{port}/"))
    uvicorn.run(app, host=host, port=port, log_level="warning")
