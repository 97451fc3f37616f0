"""The ``tddforge`` command line: the only place that prints or exits.

Exit codes: 0 success; 1 the job completed but its goal was not met (an
invalid RED, tests still red); 2 a usage or input error, reported as one line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.markup import escape

from tddforge import __version__
from tddforge.config import Settings, load_settings
from tddforge.errors import InputError, TddforgeError
from tddforge.outcome import BUDGET, Outcome, Workflow

err = Console(stderr=True, highlight=False)
#: Commands that end with no sandbox notice: sandbox-info reports on every backend itself.
_NO_NOTICE = frozenset({"sandbox-info"})
_invoked: list[str] = []  # the subcommand this process runs
BUILTIN_RERUNS = 5  # shuffled runs every test the builtin generator writes must pass


def _project_dir(value: str) -> Path:
    path = Path(value)
    if not path.is_dir():
        raise InputError(f"project directory not found: {path}")
    return path.resolve()


def _settings(project: Path, **flags: Any) -> Settings:
    return load_settings(project, os.environ, flags)


def _progress(message: str) -> None:
    err.print(f"[dim]·[/dim] {escape(message)}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tddforge")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """LLM-driven TDD in which every claim an agent makes is checked by running code."""
    from tddforge.sandbox.backend import choose_backend, requested_backend

    _invoked.append(ctx.invoked_subcommand or "")
    if ctx.invoked_subcommand not in _NO_NOTICE and requested_backend() is not None:
        choose_backend()  # a backend named in TDDFORGE_SANDBOX that cannot run: one line, exit 2


def llm_options(func: Any) -> Any:
    """The flags every LLM-backed command takes."""
    options = [
        click.option("--model", help="Model name (env TDDFORGE_MODEL)."),
        click.option("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)."),
        click.option("--max-cost", type=float, help="Hard budget cap in dollars."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--project", default=".", show_default=True, help="Project the tests are written into."
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Artifact path (YAML)."
)
@click.option("--json", "as_json", is_flag=True, help="Also write JSON and print it on stdout.")
@click.option("--timeout", type=float, help="Test run timeout in seconds (default 300).")
@click.option(
    "--python", "python", help="Interpreter of the project (default: its .venv, else this one)."
)
@llm_options
def red(
    spec: Path,
    project: str,
    out: Path | None,
    as_json: bool,
    timeout: float | None,
    python: str | None,
    model: str | None,
    base_url: str | None,
    max_cost: float | None,
) -> None:
    """RED stage: turn SPEC into failing tests, run them, validate and trace them."""
    from tddforge.llm import make_client
    from tddforge.orchestration.red_stage import RedOptions, run_red
    from tddforge.runner import interpreter_for
    from tddforge.spec import load_spec

    root = _project_dir(project)
    loaded = load_spec(spec)
    settings = _settings(root, model=model, base_url=base_url, max_cost=max_cost)
    interpreter = interpreter_for(root, python)
    options = RedOptions(
        root, interpreter, out=out.resolve() if out else None, json=as_json, timeout=timeout
    )
    _finish(run_red(loaded, make_client(settings), settings, options, _progress), as_json)


def _finish(outcome: Outcome, as_json: bool) -> NoReturn:
    """Print the workflow's summary, its data as JSON when asked, and exit with its code."""
    _REPORTS[outcome.workflow](outcome)
    if as_json:
        click.echo(json.dumps(outcome.data, indent=2))
    sys.exit(outcome.exit_code)


def _report_red(outcome: Outcome) -> None:
    data, written = outcome.data, outcome.files
    results = data["test_results"]
    verdict = "[green]valid RED[/green]" if data["valid"] else "[red]invalid RED[/red]"
    err.print(
        f"{verdict}: {results['total']} tests, {len(data['failing_tests'])} red for the right reason, "
        f"{len(data['invalid_red'])} broken, {len(data['unexpected_passes'])} passing"
    )
    for item in data["invalid_red"]:
        err.print(f"  [yellow]broken[/yellow] {escape(item['name'])}: {escape(item['reason'])}")
    for item in data["refused_files"]:
        err.print(f"  [yellow]refused[/yellow] {escape(item['path'])}: {escape(item['reason'])}")
    for warning in data["warnings"]:
        err.print(f"  [yellow]warning[/yellow] {escape(warning)}")
    err.print(f"artifact: {escape(', '.join(str(p) for p in written))}")


@cli.command()
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Empty or new directory to run in (default: a new temporary one).",
)
def demo(project: Path | None) -> None:
    """Run the RED stage on the bundled example with no key and no network.

    The model's side is a recorded reply served by tddforge's local
    OpenAI-compatible stub on 127.0.0.1; everything else (the real openai SDK,
    the sandbox, pytest, validation, traceability) runs for real.
    """
    from tddforge.demo import run_demo

    _finish(run_demo(project, _progress), as_json=False)


@cli.command()
@click.argument("kata", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--work-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The session's git repo (created if new).",
)
@click.option("--max-cycles", type=click.IntRange(min=1), help="Stop after N cycles (default 10).")
@click.option("--resume", is_flag=True, help="Continue a killed session from its last phase.")
@click.option("--force", is_flag=True, help="Use a non-empty directory that holds no session.")
@click.option("--json", "as_json", is_flag=True, help="Print the session summary as JSON.")
@click.option("--python", "python", help="Interpreter for the kata's tests (default: this one).")
@click.option("--answer", help="With --resume: the answer to the question the session stopped on.")
@click.option(
    "--answers",
    "answers_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --resume: a text file holding that answer.",
)
@llm_options
def kata(
    kata: Path,
    work_dir: Path,
    max_cycles: int | None,
    resume: bool,
    force: bool,
    as_json: bool,
    python: str | None,
    answer: str | None,
    answers_file: Path | None,
    model: str | None,
    base_url: str | None,
    max_cost: float | None,
) -> None:
    """Kata TDD session: Tester → Implementer → Refactorer cycles, one commit per green cycle.

    When an agent asks for clarification, the session stops (exit 3) and says the
    question; on a terminal it asks you and goes on.
    """
    from tddforge.llm import make_client
    from tddforge.orchestration.kata_session import KataOptions, check_inputs, run_kata

    if answers_file is not None:
        answer = _read_answer(answers_file, answer)
    options = KataOptions(kata, work_dir, max_cycles, resume, force, python, answer)
    check_inputs(options)
    config_dir = work_dir if work_dir.is_dir() else Path.cwd()
    settings = _settings(config_dir, model=model, base_url=base_url, max_cost=max_cost)
    client = make_client(settings)
    outcome = run_kata(options, settings, client, _progress)
    while outcome.question and _interactive():
        given = click.prompt(f"the session asks: {outcome.question}\nyour answer", err=True)
        options = replace(options, resume=True, answer=given)
        outcome = run_kata(options, settings, client, _progress)
    _finish(outcome, as_json)


def _read_answer(path: Path, answer: str | None) -> str:
    if answer is not None:
        raise InputError("give the answer once: --answer or --answers, not both")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the answers file {path}: {exc}") from exc


def _interactive() -> bool:
    """True when a person sits at the terminal to answer a question."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _report_kata(outcome: Outcome) -> None:
    summary = outcome.data
    err.print(
        f"session stopped: {summary['stop_reason']} after {summary['cycles']} cycle(s),"
        f" {summary['green_cycles']} green, {summary['tests']} tests, {len(summary['commits'])}"
        f" commits, ${summary['llm']['cost']:.4f}; run dir {escape(str(summary['run_dir']))}"
    )
    if summary.get("note"):
        err.print(f"  [yellow]note[/yellow] {escape(summary['note'])}")
    if outcome.question:
        err.print(f"  [yellow]question[/yellow] {escape(outcome.question)}", soft_wrap=True)
        err.print(
            f"  answer it with: tddforge kata {escape(summary['kata'])} --work-dir"
            f' {escape(summary["work_dir"])} --resume --answer "..."',
            soft_wrap=True,
        )


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--project", default=".", show_default=True, help="Project to build in (a git repo).")
@click.option("--json", "as_json", is_flag=True, help="Print the three artifacts as JSON.")
@click.option("--python", "python", help="Interpreter of the project (default: its venv).")
@llm_options
def build(
    spec: Path,
    project: str,
    as_json: bool,
    python: str | None,
    model: str | None,
    base_url: str | None,
    max_cost: float | None,
) -> None:
    """Spec pipeline: RED → GREEN → REFACTOR, one commit and one artifact per stage."""
    from tddforge.llm import make_client
    from tddforge.orchestration.build_stage import BuildOptions, run_build
    from tddforge.orchestration.kata_session import make_runner
    from tddforge.runner import interpreter_for
    from tddforge.spec import load_spec

    root = _project_dir(project)
    loaded = load_spec(spec)
    settings = _settings(root, model=model, base_url=base_url, max_cost=max_cost)
    client = make_client(settings)
    options = BuildOptions(root, interpreter_for(root, python))
    runner = make_runner(root, settings, python)
    _finish(run_build(loaded, client, settings, options, runner, _progress), as_json)


def _report_build(outcome: Outcome) -> None:
    for (stage, data), path in zip(outcome.data.items(), outcome.files, strict=True):
        verdict = "[green]ok[/green]" if data["valid"] else "[red]not reached[/red]"
        commit = (data.get("commit") or "no commit")[:12]
        err.print(f"{stage}: {verdict} ({commit}) {escape(str(path))}")
    if outcome.stop_reason == BUDGET:
        err.print("stopped: the max-cost budget was reached (see the stage's artifact)")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--tests",
    "tests",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Test file or directory (repeatable; default: the project's configured suite).",
)
@click.option("--project", default=".", show_default=True, help="Project root (pytest's rootdir).")
@click.option("--workers", type=click.IntRange(min=1), help="Parallel mutants (default: cores).")
@click.option("--since-ref", help="Only mutate lines changed since this git ref.")
@click.option(
    "--scope",
    type=click.Choice(["all", "functions"]),
    help="functions: only code run inside functions, not at import (default: configured, else all).",
)
@click.option("--fail-under", type=click.FloatRange(0, 100), help="Exit 1 if the score is lower.")
@click.option(
    "--verify", is_flag=True, help="Re-run every mutant in a fresh interpreter; report differences."
)
@click.option("--no-cache", is_flag=True, help="Ignore cached verdicts.")
@click.option(
    "--timeout", type=float, default=3600.0, show_default=True, help="Whole-run timeout (s)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option("--all", "every", is_flag=True, help="List every mutant in the JSON report.")
@click.option(
    "--summary",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append the Markdown report to FILE (CI: $GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--python", "python", help="Interpreter of the project (default: its .venv, else this one)."
)
def mutate(
    paths: tuple[Path, ...],
    tests: tuple[Path, ...],
    project: str,
    workers: int | None,
    since_ref: str | None,
    scope: str | None,
    fail_under: float | None,
    verify: bool,
    no_cache: bool,
    timeout: float,
    as_json: bool,
    every: bool,
    summary: Path | None,
    python: str | None,
) -> None:
    """Mutation testing of modules, packages or directories (default: the project's)."""
    from tddforge.orchestration.mutate_run import MutateOptions, MutateRequest, job_for, run_mutate
    from tddforge.runner import interpreter_for

    root = _project_dir(project)
    settings = _settings(root)
    request = MutateRequest(
        root,
        paths,
        tests,
        interpreter_for(root, python),
        workers or os.cpu_count() or 1,
        since_ref,
        timeout,
        not no_cache,
        scope,
    )
    job, single = job_for(request, settings)
    progress = (_counter("mutants"), _counter("ground truth"))
    options = MutateOptions(fail_under, verify, *progress, every, summary)
    _finish(run_mutate(job, settings, options, single), as_json)


def _counter(label: str) -> Any:
    shown = {"last": -1}

    def progress(done: int, total: int) -> None:
        step = max(1, total // 10)
        if done != shown["last"] and (done == total or done // step != shown["last"] // step):
            shown["last"] = done
            err.print(f"[dim]·[/dim] {label}: {done}/{total}")

    return progress


def _report_mutation(outcome: Outcome) -> None:
    from tddforge.orchestration.mutate_run import summary_lines

    for line in summary_lines(outcome):
        err.print(escape(line), soft_wrap=True)


@cli.command()
@click.argument("module", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--project", default=".", show_default=True, help="Project root (pytest's rootdir).")
@click.option(
    "--tests", "tests", help="Test file to write (default tests/test_<module>_tddforge.py)."
)
@click.option("--coverage-target", type=click.FloatRange(0, 100), help="Percent (default 60).")
@click.option("--mutation-target", type=click.FloatRange(0, 100), help="Percent (default 50).")
@click.option("--max-iterations", type=click.IntRange(min=1), help="Attempts in all (default 3).")
@click.option(
    "--engine",
    type=click.Choice(["auto", "llm", "builtin"]),
    default="auto",
    show_default=True,
    help="Who writes the tests.",
)
@click.option("--workers", type=click.IntRange(min=1), help="Parallel mutants (default: cores).")
@click.option(
    "--budget",
    type=click.FloatRange(min=1),
    default=20.0,
    show_default=True,
    help="Seconds the builtin generator may search.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option(
    "--python", "python", help="Interpreter of the project (default: its .venv, else this one)."
)
@llm_options
def cover(
    module: Path,
    project: str,
    tests: str | None,
    coverage_target: float | None,
    mutation_target: float | None,
    max_iterations: int | None,
    engine: str,
    workers: int | None,
    budget: float,
    as_json: bool,
    python: str | None,
    model: str | None,
    base_url: str | None,
    max_cost: float | None,
) -> None:
    """Coverage- and mutation-guided test generation for MODULE.

    With no LLM configured (no --model), the builtin offline generator writes
    the tests: it runs the module's code in the sandbox and asserts what it saw.
    """
    from tddforge.orchestration.cover_loop import CoverOptions, load_target, run_cover
    from tddforge.runner import interpreter_for

    root = _project_dir(project)
    loop = {
        "coverage_target": coverage_target,
        "mutation_target": mutation_target,
        "max_iterations": max_iterations,
    }
    cover_flags = {k: v for k, v in loop.items() if v is not None}
    settings = _settings(
        root, model=model, base_url=base_url, max_cost=max_cost, cover=cover_flags or None
    )
    options = CoverOptions(
        root, module, interpreter_for(root, python), tests, workers or min(4, os.cpu_count() or 1)
    )
    target = load_target(options)
    builtin = engine == "builtin" or (engine == "auto" and not settings.llm_configured)
    if builtin:
        settings = _builtin_settings(settings)
    writer, client = _cover_writer(builtin, settings, options.python, budget)
    _finish(run_cover(target, writer, client, settings, options, _progress), as_json)


def _builtin_settings(settings: Settings) -> Settings:
    """At least 5 shuffled runs per kept test, two at a time; no mypy; aiming for the best.

    The builtin's tests are calls it saw behave the same twice in the sandbox,
    so they rarely touch files; one that does and races the other run fails
    there and is dropped as flaky. mypy would only re-check the literal calls
    the generator saw succeed, at about a second per attempt. The engine costs no money,
    so it keeps improving past the targets while its attempts and ``--budget`` last; the
    targets (60/50 unless set) still decide the exit code.
    """
    update = {
        "reruns": max(settings.cover.reruns, BUILTIN_RERUNS),
        "mypy": False,
        "parallel_reruns": True,
        "aim_for_best": True,
    }
    return settings.model_copy(update={"cover": settings.cover.model_copy(update=update)})


def _cover_writer(
    builtin: bool, settings: Settings, python: Path, budget: float
) -> tuple[Any, Any]:
    if builtin:
        from tddforge.builtin.generator import BuiltinSuiteGenerator

        return BuiltinSuiteGenerator(settings, python, budget=budget, progress=_progress), None
    from tddforge.agents.cover import LLMSuiteGenerator
    from tddforge.llm import make_client

    client = make_client(settings)
    return LLMSuiteGenerator(client, settings), client


def _report_cover(outcome: Outcome) -> None:
    from tddforge.runner.pytest_config import blocked_note

    data = outcome.data
    final = data["final"]

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}%"

    detail = f" ({escape(data['stop_detail'])})" if data["stop_detail"] else ""
    claimed = final["claimed_equivalent"]
    without = (
        f" ({pct(final['mutation_score_without_claimed'])} without the {len(claimed)} mutant(s)"
        " claimed equivalent)"
        if claimed
        else ""
    )
    err.print(
        f"stopped: {data['stop_reason']}{detail} after {len(data['attempts'])} attempt(s); final suite: "
        f"coverage {pct(final['coverage'])} (branches {pct(final['branch_coverage'])}), "
        f"mutation {pct(final['mutation_score'])}{without}, {len(final['tests_kept'])} test(s) kept, "
        f"{len(final['tests_dropped'])} dropped; ${data['cost']['total_llm_cost']:.4f}"
    )
    config = data["pytest_config"]
    if not config["usable"]:
        err.print(
            f"  [yellow]note[/yellow] {escape(config['reason'])}; "
            "ran with a neutral pytest configuration"
        )
    if config["blocked_plugins"]:
        err.print(f"  [yellow]note[/yellow] {escape(blocked_note(config['blocked_plugins']))}")
    for bug in final["suspected_bugs"]:
        err.print(f"  [red]possible bug[/red] {bug['test']}: {escape(bug['message'][:200])}")
    for item in final["tests_dropped"]:
        err.print(f"  [yellow]dropped[/yellow] {item['test']}: {escape(item['reason'][:200])}")
    for claim in claimed:
        err.print(
            f"  [yellow]claimed equivalent[/yellow] {escape(claim['id'])} (line {claim['line']}):"
            f" {escape(claim['reason'][:200])}; in the final suite: {escape(claim['final_verdict'])}"
        )
    if final["likely_equivalent"]:
        err.print(
            f"  {len(final['likely_equivalent'])} surviving mutant(s) likely equivalent"
            " (see likely_equivalent in the report)"
        )
    err.print(
        f"tests: {escape(final['test_file'] or '(none written)')}; run dir {escape(data['run_dir'])}"
    )


@cli.command("sandbox-info")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON on stdout.")
def sandbox_info(as_json: bool) -> None:
    """Which sandbox backend runs generated code here, and what each one guarantees (measured)."""
    from tddforge.sandbox.guarantees import GUARANTEES, survey

    data = survey()
    err.print(f"sandbox backend: [bold]{data['backend']}[/bold] ({escape(data['why'])})")
    err.print(f"sandboxed commands run as {escape(data['runs_as'])}")
    names = [b["backend"] for b in data["backends"]]
    err.print("")
    err.print(f"{'guarantee':<16}" + "".join(f"{n:>12}" for n in names))
    for guarantee in GUARANTEES:
        cells = [_cell(b, guarantee) for b in data["backends"]]
        err.print(f"{guarantee:<16}" + "".join(f"{c:>12}" for c in cells))
    ms = [b["overhead_ms"] for b in data["backends"]]
    err.print(
        f"{'overhead (ms)':<16}" + "".join(f"{'-' if m is None else f'{m:.0f}':>12}" for m in ms)
    )
    err.print("")
    for backend in data["backends"]:
        if backend["problem"]:
            err.print(f"{backend['backend']}: unavailable: {escape(backend['problem'])}")
    for guarantee, meaning in GUARANTEES.items():
        err.print(f"[dim]{guarantee}: {escape(meaning)}[/dim]")
    err.print(
        "[dim]each cell is a probe run just now under that backend; '!' marks one that "
        "differs from what tddforge claims for it; overhead is the median of 5 runs of "
        "`true` against a bare one[/dim]"
    )
    if as_json:
        click.echo(json.dumps(data, indent=2))
    sys.exit(1 if data["mismatches"] else 0)


def _cell(backend: dict[str, Any], guarantee: str) -> str:
    holds = backend["holds"]
    if holds is None:
        return "-"
    text = "yes" if holds[guarantee] else "no"
    return text + ("!" if guarantee in backend["mismatches"] else "")


_REPORTS: dict[Workflow, Callable[[Outcome], None]] = {
    "red": _report_red,
    "kata": _report_kata,
    "build": _report_build,
    "cover": _report_cover,
    "mutate": _report_mutation,
}


def _sandbox_notice() -> None:
    """At most one line per run, after it, when generated code ran under a weaker backend."""
    from tddforge.sandbox import used_backends
    from tddforge.sandbox.guarantees import notice

    if _NO_NOTICE.intersection(_invoked):
        return
    line = notice(used_backends())
    if line:
        err.print(f"[yellow]{escape(line)}[/yellow]", soft_wrap=True)


def main() -> NoReturn:
    """Entry point: run the CLI and turn deliberate errors into one line and exit 2.

    A run whose generated code ran under a weaker sandbox than full confinement
    ends with one notice line; a run that ends in an input error (exit 2) does not.
    """
    try:
        cli.main(standalone_mode=False)
    except SystemExit as exc:
        if exc.code in (0, 1, None):
            _sandbox_notice()
        raise
    except TddforgeError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        sys.exit(2)
    except click.exceptions.Abort:
        err.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        err.print(f"[red]error:[/red] {escape(exc.format_message())} (see --help)", soft_wrap=True)
        sys.exit(2)
    _sandbox_notice()
    sys.exit(0)
