"""``gpuplan serve``: the team's planning service (API + dashboard) on the catalog database, and
``gpuplan serve token create|list|revoke`` / ``gpuplan serve worker``.

    gpuplan serve token create --name alice --scope plan     # prints the token once
    gpuplan serve --host 127.0.0.1 --port 8000              # API, dashboard and a job worker

FastAPI, uvicorn and huey are imported inside the commands (the ``serve`` extra), so ``gpuplan
--help`` imports none of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Annotated

import typer

from gpuplan.cli._help import SuggestingGroup
from gpuplan.cli._i18n import LangOption, apply_language
from gpuplan.cli._numbers import finite_float, finite_in
from gpuplan.cli._settings import settings
from gpuplan.errors import InputError
from gpuplan.i18n import N_, _

__all__ = ["register"]

serve_app = typer.Typer(
    name="serve",
    help="The team's planning service: REST API, web dashboard, shared catalog, budgets.",
    invoke_without_command=True,
    cls=SuggestingGroup,  # "did you mean" for an unknown command (cli/_help.py)
)
token_app = typer.Typer(
    name="token",
    help="API tokens: create (shown once), list, revoke.",
    no_args_is_help=True,
    cls=SuggestingGroup,
)
serve_app.add_typer(token_app)


def _need_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import huey  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        raise InputError.worded(
            N_("gpuplan serve needs its extra ({missing} is missing): pip install 'gpuplan[serve]'"),
            missing=e.name,
        ) from None


def _config(ctx: typer.Context, **fields: object) -> object:
    from gpuplan.web.config import ServeConfig

    return ServeConfig(db=settings(ctx).db, **fields)  # type: ignore[arg-type]


@serve_app.callback()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 in a container).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=64, help="uvicorn worker processes.")] = 1,
    job_workers: Annotated[
        int,
        typer.Option(
            "--job-workers", min=0, max=64, help="Job threads of the worker process (0: none here)."
        ),
    ] = 1,
    threads: Annotated[
        int,
        typer.Option(
            "--threads", min=1, max=256, help="Requests each uvicorn worker serves at once (its thread pool)."
        ),
    ] = 8,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--cors-origin", help="Allow browsers on this origin to call the API (repeatable; default none)."
        ),
    ] = None,
    max_body_mb: Annotated[
        float,
        typer.Option(
            "--max-body-mb", help="Largest request body (0.01 to 1024).", parser=finite_in(0.01, 1024)
        ),
    ] = 4.0,
    job_stall_s: Annotated[
        float,
        typer.Option(
            "--job-stall-s",
            help="Hand a job out again after this long without a heartbeat (1 to 3600).",
            parser=finite_in(1, 3600),
        ),
    ] = 30.0,
    job_limit_s: Annotated[
        float,
        typer.Option(
            "--job-limit-s",
            help="Stop a job that runs longer than this, and fail it (10 to 86400).",
            parser=finite_in(10, 86400),
        ),
    ] = 600.0,
    api_docs: Annotated[
        bool,
        typer.Option(
            "--api-docs",
            help="Serve the interactive API page at /api/docs (needs the swagger-ui-bundle package).",
        ),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Run the API, the dashboard and a job worker on the catalog database (--db, GPUPLAN_DB)."""
    # ``gpuplan --lang zh serve`` as well as ``gpuplan serve --lang zh``: the service answers a
    # request that names no language (no ?lang=, no Accept-Language) in the one it was started in
    language = apply_language(lang)
    if ctx.invoked_subcommand is not None:
        return
    _need_extra()
    import uvicorn

    from gpuplan.catalog import open_store
    from gpuplan.web.config import ENV, ServeConfig

    config = _config(
        ctx,
        cors_origins=tuple(cors_origin or ()),
        max_body_bytes=int(max_body_mb * 1024 * 1024),
        job_stall_s=job_stall_s,
        job_limit_s=job_limit_s,
        api_docs=api_docs,
        threads=threads,
        default_lang=language.value,
    )
    assert isinstance(config, ServeConfig)
    if api_docs:
        from gpuplan.web.app import swagger_ui_folder

        swagger_ui_folder()  # refused here, in one line, not in each uvicorn worker
    open_store(config.db).close()  # create, migrate and seed once, before the workers start
    env = {**os.environ, ENV: config.to_env()}
    os.environ[ENV] = env[ENV]
    keeper = (
        _WorkerKeeper(
            [sys.executable, "-m", "gpuplan", "serve", "worker", "--threads", str(job_workers)], env
        )
        if job_workers
        else None
    )
    shown = config.database()[0]
    from sqlalchemy.engine import make_url

    typer.echo(
        _("gpuplan serve on http://{host}:{port}/ (catalog {db}); stop with Ctrl-C").format(
            host=host, port=port, db=make_url(shown).render_as_string(hide_password=True)
        ),
        err=True,
    )
    try:
        uvicorn.run(
            "gpuplan.web.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            proxy_headers=False,
            server_header=False,
        )
    finally:
        if keeper is not None:
            keeper.stop()


class _WorkerKeeper:
    """The job worker process beside uvicorn, started again when it dies (a killed worker's job
    is taken over by the next one: ``web.jobs``)."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        import threading

        self._command, self._env = command, env
        self._stopping = threading.Event()
        self._process = subprocess.Popen(command, env=env)
        self._thread = threading.Thread(target=self._watch, name="gpuplan-worker-keeper", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            code = self._process.poll()
            if code in (-signal.SIGTERM, -signal.SIGINT):
                return  # stopped on purpose (the whole service is stopping)
            if code is not None and not self._stopping.is_set():
                typer.echo(
                    _("job worker stopped (exit {code}); starting another").format(
                        code=self._process.returncode
                    ),
                    err=True,
                )
                self._process = subprocess.Popen(self._command, env=self._env)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        self._process.send_signal(signal.SIGTERM)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


@serve_app.command("worker")
def worker_cmd(
    ctx: typer.Context,
    threads: Annotated[int, typer.Option(min=1, max=64, help="Jobs run at once.")] = 1,
    lang: LangOption = None,
) -> None:
    """Run background jobs only (tracing, planning, simulating): one per replica, or more."""
    apply_language(lang)
    _need_extra()
    import threading

    from gpuplan.web.auth import StoreProvider
    from gpuplan.web.config import ENV, ServeConfig
    from gpuplan.web.jobs import JobRunner

    config = ServeConfig.from_env() if os.environ.get(ENV) else _config(ctx)
    assert isinstance(config, ServeConfig)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_args: stop.set())
    parent = os.getppid()

    def orphaned() -> None:
        # Started by `gpuplan serve`: stop with it, even when it was killed without a word.
        while not stop.wait(2.0):
            if os.getppid() != parent:
                stop.set()

    if os.environ.get(ENV):
        threading.Thread(target=orphaned, name="gpuplan-parent-watch", daemon=True).start()
    runner = JobRunner(config, StoreProvider(config).open)
    try:
        runner.work(threads=threads, stop=stop)
    finally:
        runner.close()


@token_app.command("create")
def token_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Option("--name", help="Who holds it (shown in history and the audit log).")],
    scope: Annotated[
        str, typer.Option("--scope", help="read, plan (read + run plans) or admin (all).")
    ] = "read",
    rate: Annotated[int, typer.Option("--rate", min=1, help="Requests per minute.")] = 120,
    expires_days: Annotated[
        float | None,
        typer.Option(
            "--expires-days", help="Expire after this many days (default never).", parser=finite_float
        ),
    ] = None,
    team: Annotated[
        str | None,
        typer.Option(
            "--team",
            help="The holder's team: the plans they save count in that team's monthly budget "
            "(and the whole service's).",
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    """Create a token and print it once (only its hash is stored)."""
    apply_language(lang)
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(settings(ctx).db)
    try:
        token, info = TeamStore(store.engine).create_token(
            name,
            scope.strip().lower(),
            rate_per_minute=rate,
            expires_in_days=expires_days,
            actor="cli",
            team=team,
        )
    finally:
        store.close()
    typer.echo(token)
    holder = _("{name} of team {team}").format(name=info.name, team=info.team) if info.team else info.name
    typer.echo(
        _("token for {name} ({scopes}); it is not shown again: send it as Authorization: Bearer …").format(
            name=holder, scopes=",".join(info.scopes)
        ),
        err=True,
    )


@token_app.command("list")
def token_list(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    lang: LangOption = None,
) -> None:
    """List tokens (never the tokens themselves)."""
    apply_language(lang)
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(settings(ctx).db)
    try:
        found = TeamStore(store.engine).tokens()
    finally:
        store.close()
    if json_out:
        rows = [
            {
                "name": t.name,
                "prefix": t.prefix,
                "scopes": list(t.scopes),
                "rate_per_minute": t.rate_per_minute,
                "created_at": t.created_at,
                "expires_at": t.expires_at,
                "revoked_at": t.revoked_at,
                "team": t.team,
            }
            for t in found
        ]
        typer.echo(json.dumps({"schema_version": 1, "tokens": rows}, indent=2))
        return
    if not found:
        typer.echo(_("no tokens; create one with gpuplan serve token create --name NAME --scope plan"))
    for t in found:
        state = (
            _("revoked {at}").format(at=t.revoked_at)
            if t.revoked_at
            else (_("expires {at}").format(at=t.expires_at) if t.expires_at else _("active"))
        )
        team = _("team {team}").format(team=t.team) if t.team else _("no team")
        typer.echo(
            f"{t.name}\tgpuplan_{t.prefix}_…\t{','.join(t.scopes)}\t{t.rate_per_minute}/min\t{team}\t{state}"
        )


@token_app.command("revoke")
def token_revoke(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The token's name.", metavar="NAME")],
    lang: LangOption = None,
) -> None:
    """Revoke a token: it is refused from the next request on."""
    apply_language(lang)
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(settings(ctx).db)
    try:
        info = TeamStore(store.engine).revoke_token(name, actor="cli")
    finally:
        store.close()
    typer.echo(_("revoked the token of {name}").format(name=info.name))


def register(app: typer.Typer) -> None:
    """Add this group's commands to ``app``."""
    app.add_typer(serve_app)
