"""Suite-wide isolation: no test reads or writes the user's real gpuplan database or data dir."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

# One intra-op thread a process: the README's `pytest -n 2` runs two workers on a 2-core machine,
# each of which would otherwise start an OpenMP pool as wide as the machine (and the torchrun and
# batch scripts the tests launch, theirs), so that a real CPU step spun against the other worker's
# (a measured GPT-2 step ran 1.5x slower beside a busy worker). Set before torch is imported, and
# inherited by the processes the tests start; a developer's own setting is kept.
os.environ.setdefault("OMP_NUM_THREADS", "1")

if TYPE_CHECKING:
    from gpuplan.profile import Profile


@pytest.fixture(autouse=True, scope="session")
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    mp = pytest.MonkeyPatch()
    # platformdirs honours XDG_DATA_HOME on Linux: the default database lands under the temp dir.
    mp.setenv("XDG_DATA_HOME", str(Path(home) / "data"))
    mp.setenv("XDG_CACHE_HOME", str(Path(home) / "cache"))
    mp.delenv("GPUPLAN_DB", raising=False)
    mp.delenv("GPUPLAN_USD_PER_CNY", raising=False)
    # Output in English unless a test asks for Chinese, whatever the developer's locale.
    for key in ("GPUPLAN_LANG", "GPUPLAN_CURRENCY", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        mp.delenv(key, raising=False)
    mp.setenv("LANG", "C.UTF-8")
    yield
    mp.undo()


#: Tests of tracing itself: each of their traces runs the tracer (they patch its parts or its imports).
_TRACES_ITSELF = Path(__file__).parent / "profile"


@pytest.fixture(autouse=True, scope="session")
def _each_workload_traced_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tracer's answer for a workload it has traced before in this run, read back, not traced again.

    A trace takes seconds of CPU (GPT-2 small 3, BERT-large 5, Llama-7B LoRA 12) and many tests
    estimate, plan or deploy the same example workloads, each on a catalog of its own that holds no
    cached profile. The real tracer's Profile for the same workload content and profile key (which
    hashes the files a model is read from) is kept as ``Profile.to_json()`` (lossless:
    test_profile_round_trips_through_json) in a folder pytest-xdist's workers share, one file lock
    per workload; each call parses its own copy. Traced again, as before: where the tracer or one
    of its parts is patched (the test then gets what it patched in), a model from the user's own
    Python code (which a trace runs), a failed trace (nothing is kept), and every test under
    ``tests/profile`` (tracing itself)."""
    import importlib
    import os
    import types

    from gpuplan.profile import key as key_module

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / "traces-by-tracer"
    folder.mkdir(exist_ok=True)
    real_tracer = key_module._tracer
    originals: dict[str, Any] = {}

    def unpatched(module: types.ModuleType, traced: Any) -> bool:
        """Whether ``traced`` and every other function of the tracer module are the ones first
        seen (outside ``tests/profile``) with the module's own ``trace_workload``."""
        if getattr(traced, "__qualname__", "") != "trace_workload" or traced.__module__ != module.__name__:
            return False  # a stand-in for the tracer
        if not originals:
            originals.update({k: v for k, v in vars(module).items() if isinstance(v, types.FunctionType)})
        return all(vars(module).get(k) is v for k, v in originals.items())

    def tracer() -> Callable[..., Any]:
        traced = real_tracer()
        if _TRACE_FRESH[0] or not unpatched(importlib.import_module("gpuplan.profile.tracer"), traced):
            return traced
        return lambda w, key: _read_or_trace(folder, traced, w, key)

    mp = pytest.MonkeyPatch()
    mp.setattr(key_module, "_tracer", tracer)
    yield
    mp.undo()


#: [True] while a test under ``tests/profile`` runs: its traces run the tracer.
_TRACE_FRESH = [False]


@pytest.fixture(autouse=True)
def _trace_fresh_for_tracing_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    _TRACE_FRESH[0] = _TRACES_ITSELF in Path(str(request.node.path)).parents
    yield
    _TRACE_FRESH[0] = False


def _read_or_trace(folder: Path, traced: Callable[..., Any], w: Any, key: str) -> Any:
    """``traced(w, key)``, or the Profile it gave for the same ``w`` and ``key`` before."""
    import hashlib

    from filelock import FileLock

    from gpuplan.profile import Profile

    if w.model.python is not None:
        return traced(w, key)
    content = f"{w.model_dump_json()}\n{key}"
    file = folder / f"{hashlib.sha256(content.encode()).hexdigest()}.json"
    with FileLock(f"{file}.lock"):
        if not file.exists():
            tmp = file.with_suffix(".tmp")
            tmp.write_text(traced(w, key).to_json())
            tmp.replace(file)
        return Profile.from_json(file.read_text())


@pytest.fixture(autouse=True)
def _english_and_dollars() -> Iterator[None]:
    """Each test starts in English with amounts in USD, whatever an earlier test's command set, and
    leaves them so: a module-scoped fixture made before the next test's own reset (deploy's
    injection baselines) had been written in the Chinese a test before it left behind."""
    from gpuplan.i18n import Money, set_language, set_money

    set_language("en")
    set_money(Money.usd())
    yield
    set_language("en")
    set_money(Money.usd())


@pytest.fixture(scope="session")
def catalog_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog created, migrated and seeded with the shipped snapshot once per worker, closed.

    Seeding reads, gates and writes the whole snapshot (about a second of CPU each time); a test
    that needs a seeded catalog of its own takes a copy (:func:`fresh_catalog`, or ``shutil.copy``
    for a module's store) and never writes to this file. A test of creation, migration or seeding
    itself opens a new path instead.
    """
    from gpuplan.catalog import open_store

    path = tmp_path_factory.mktemp("catalog-template") / "seeded.sqlite"
    open_store(str(path)).close()
    return path


@pytest.fixture
def fresh_catalog(catalog_template: Path, tmp_path: Path) -> Path:
    """This test's own seeded catalog: a copy of :func:`catalog_template` at ``tmp_path/catalog.sqlite``."""
    import shutil

    path = tmp_path / "catalog.sqlite"
    shutil.copyfile(catalog_template, path)
    return path


@pytest.fixture(scope="session")
def seeded_copy(catalog_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``seeded_copy("name")``: a new folder's copy of :func:`catalog_template`, for a module's store."""
    import shutil

    def copy(name: str) -> Path:
        path = tmp_path_factory.mktemp(name) / "catalog.sqlite"
        shutil.copyfile(catalog_template, path)
        return path

    return copy


@pytest.fixture(scope="session")
def trace_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Any], Profile]:
    """``trace()`` that traces each workload once per run, for the tests that only read a profile.

    A trace of GPT-2 small takes seconds and a dozen tests trace the same workload; the profiles
    are kept as ``Profile.to_json()`` files (lossless: test_profile_round_trips_through_json) in a
    folder that pytest-xdist's workers share, one file lock per workload so that a second worker
    waits for the first one's trace instead of tracing it again. Each call parses its own copy.
    Keyed by the workload's whole content but its name (which a trace only copies into
    ``workload_name``, as ``profile()``'s cache does) and its profile key (which hashes the files a
    model is read from), so two workloads that differ in any setting are traced apart. A test that
    patches the tracer, or checks what tracing itself does, calls ``trace()``.
    """
    import dataclasses
    import hashlib
    import os

    from filelock import FileLock

    from gpuplan.profile import Profile, trace
    from gpuplan.profile.key import profile_key
    from gpuplan.workload.spec import load_workload

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / "traces"
    folder.mkdir(exist_ok=True)

    def get(workload: Any) -> Profile:
        w = load_workload(workload)
        content = f"{w.model_dump_json(exclude={'name'})}\n{profile_key(w)}"
        file = folder / f"{hashlib.sha256(content.encode()).hexdigest()}.json"
        with FileLock(f"{file}.lock"):
            if not file.exists():
                tmp = file.with_suffix(".tmp")
                tmp.write_text(trace(w).to_json())
                tmp.replace(file)
            return dataclasses.replace(Profile.from_json(file.read_text()), workload_name=w.name)

    return get


@pytest.fixture(scope="module")
def plan_once() -> Callable[..., Any]:
    """``plan_once(workload, store=…, profile=…, **kw)``: ``gpuplan.api.plan``'s plan, made once per
    module for the same workload, store, profile and arguments.

    A service's plan takes seconds and a module's tests often read the same one (one test checks
    its options, another its notes); a plan is frozen, so each test gets the one made first,
    whichever test asks first. A test that patches the planner, or whose plan is refused, calls
    ``plan`` itself (a refusal is not kept: each caller meets it afresh)."""
    from gpuplan.api import plan

    made: dict[tuple[str, str, int, int, str], Any] = {}

    def get(workload: Any, *, store: Any, profile: Any, **kw: Any) -> Any:
        # what the workload states, beside its values: a field set to its default (tensor_parallel: 1)
        # is planned otherwise than one left out
        stated = workload.model_dump_json(exclude_unset=True)
        key = (workload.model_dump_json(), stated, id(store), id(profile), repr(sorted(kw.items())))
        if key not in made:
            made[key] = plan(workload, store=store, profile=profile, **kw)
        return made[key]

    return get
