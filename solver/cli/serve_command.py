"""`kniffel serve`: the advice page and its JSON API."""

from __future__ import annotations

import errno
import ipaddress
import socket

import click

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.presets import find_variant
from . import waits
from .base import _settings, cli, lang_option
from .streams import error_line


def is_loopback(host: str) -> bool:
    """Does `host` reach this machine only: localhost, 127.0.0.0/8, ::1?"""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shown_host(host: str) -> str:
    """The host as a message shows it: quoted where it is empty or holds blanks or other unseen characters
    ('' rather than an empty gap)."""
    return host if host and host.isprintable() and not any(c.isspace() for c in host) else repr(host)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port, before the server is announced: a bad address or a busy port is one
    line (KniffelError) rather than uvicorn's error after "serving"."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (OSError, UnicodeError):  # socket.gaierror: no such address or name
        raise KniffelError(t("serve_bad_host", host=shown_host(host))) from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a port left in TIME_WAIT is free
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise KniffelError(t("serve_port_busy", host=shown_host(host), port=port)) from None
        if exc.errno == errno.EACCES:
            raise KniffelError(t("serve_port_denied", port=port)) from None
        # EADDRNOTAVAIL: another machine's address
        raise KniffelError(t("serve_bad_host", host=shown_host(host))) from None
    return sock


def served_job(job_dir: str | None):
    """Kniffel 7's target-table job whose layers answer the page's target requests (--job-dir), or None."""
    if job_dir is None:
        return None
    if job_dir == "":
        raise KniffelError(t("option_empty_job", option="--job-dir"))
    from pathlib import Path

    from ..chances.ordered_job import ServedJob, open_target_job

    variant = find_variant("kniffel7")  # the one variant whose dice are told apart: its table is a job
    return ServedJob(variant, open_target_job(variant, Path(job_dir)))


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--job-dir", type=click.Path(file_okay=False), default=None)  # a str: '' is refused (a Path would be '.')
@lang_option
@click.pass_context
def serve(ctx, host, port, job_dir):
    """The advice page and its JSON API in the browser: http://HOST:PORT/ (needs the web extra)."""
    try:
        import uvicorn

        from ..web.app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise KniffelError(t("serve_web_extra", name=exc.name)) from None
    target_job = served_job(job_dir)  # a wrong or damaged folder: one line, before the port is taken
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1] as in a URL
    sock = listen(host, port)
    loopback = is_loopback(host)
    if not loopback:
        click.echo(error_line(t("serve_open_host", host=shown_host(host)), kind="warning_line"), err=True)
    page_variant = find_variant("kniffel")  # the page opens on it: its advice is made ready at start-up

    stderr = click.get_text_stream("stderr")  # this command's, also for the warm-up thread's late lines

    def say(text: str) -> None:
        try:
            click.echo("kniffel: " + text, file=stderr)
        except ValueError:  # the stream was closed (an in-process caller that has moved on): nobody to tell
            pass

    if waits.prewarm_others(("solve", "advice")):  # the page's other answers (chart, odds, targets) compile meanwhile
        say(t("wait_prewarm"))
    app = create_app(
        _settings(ctx).tables_dir,
        allowed_hosts=[*LOOPBACK_HOSTS, host] if loopback else None,
        warm_up=page_variant,
        on_slow=lambda: say(t("serve_warming", variant=page_variant.name)),
        on_ready=lambda seconds: say(t("serve_ready", seconds=seconds)),
        target_job=target_job,
    )
    shown = f"[{host}]" if ":" in host else host
    say(t("serve_serving", url=f"http://{shown}:{port}/"))
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
