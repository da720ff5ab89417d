"""Sharded scoring on Ray (``--ray``, docs/scaling.md): the runner's batches scored by Ray
actors, each with its own judge stack, while :func:`benchmark.scoring.runner.score_task`
still picks the queries, checkpoints and aggregates, so the result files are the ones a
single process writes.  A killed worker is restarted by Ray, which runs its batch again.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmark.core.errors import InputError, usage_error
from benchmark.core.signals import fault_handlers_kept
from benchmark.families.base import prepare
from benchmark.scoring.runner import score_repeats, stats_delta

if TYPE_CHECKING:
    from benchmark.families.base import FamilySettings, Item, MetricFamily, ScoringInputs
    from benchmark.models.cache import CacheStats
    from benchmark.models.profiles import JudgeProfile
    from benchmark.tasks import Task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RayOptions:
    """``address`` ``None`` starts a local Ray instance; ``"auto"`` or ``ray://host:10001``
    joins a running cluster."""

    address: str | None = None
    workers: int | None = None  # default: as many as the cluster's CPUs (or GPUs) allow
    cpus_per_worker: float = 1.0
    gpus_per_worker: float = 0.0
    max_retries: int = 3

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise usage_error("must be at least 1", "--ray-workers")
        if self.cpus_per_worker <= 0:
            raise usage_error("must be above 0", "--ray-cpus-per-worker")
        if self.gpus_per_worker < 0:
            raise usage_error("must be 0 or more", "--ray-gpus-per-worker")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InputError.at(
            "--ray", "needs Ray: pip install 'groundcover[ray]' (on every node of the cluster)"
        ) from None
    return ray


#: what a user without Ray Client's gRPC package is told to install
CLIENT_HINT = "pip install 'ray[client]' (Ray Client needs grpcio, which plain `ray` lacks)"


def check_address(address: str | None) -> None:
    """Fail before any model loads where ``--ray`` cannot work: Ray missing, a ``ray://``
    address without grpcio, ``auto`` with no running cluster.  Nothing is started or joined."""
    import importlib.util
    import os

    _import_ray()
    if address in (None, "auto"):  # ray.init takes RAY_ADDRESS over both
        address = os.environ.get("RAY_ADDRESS") or address
    if address is not None and address.startswith("ray://"):
        if importlib.util.find_spec("grpc") is None:
            raise InputError.at("--ray", f"{address} is a Ray Client address: {CLIENT_HINT}")
        return
    if address != "auto":
        return
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # Ray moved it: ray.init says so when the pool starts
        return
    try:
        canonicalize_bootstrap_address(address)
    except ValueError:  # anything but "no cluster" is ray.init's to report
        return
    except ConnectionError:
        why = (
            "auto found no running Ray cluster on this machine: start one (`ray start --head`), give its "
            "address (ray://HOST:10001, or set RAY_ADDRESS), or pass --ray alone for a local instance"
        )
        raise InputError.at("--ray", why) from None


class ScoringWorker:
    """One Ray actor: a judge stack of the run's profile and the prepared state of the
    (job, family) it is scoring (``prepare`` runs once per (job, family) in each worker)."""

    def __init__(self, profile: JudgeProfile) -> None:
        from benchmark.judging.stack import JudgeStack

        self.judges = JudgeStack.load(profile, progress=False)
        self._key: str | None = None
        self._prepared: Any = None

    def score(
        self,
        key: str,
        family: MetricFamily,
        task: Task,
        inputs: ScoringInputs,
        settings: FamilySettings,
        items: list[Item],
        repeats: int = 1,
        afresh: bool = False,
    ) -> tuple[list[str], list[dict[str, Any]], dict[str, Any]]:
        """The batch's query ids, their traces as JSON rows, and the cache counts it added."""
        if key != self._key:  # a new (job, family): only the current one's state is kept
            self._prepared, self._key = prepare(family, task, self.judges, inputs, settings), key
        before = {k: list(v) for k, v in self.judges.cache.stats.by_stage.items()}
        rows = score_repeats(family, self._prepared, settings, items, repeats, afresh)
        after = self.judges.cache.stats.by_stage
        return [q for q, _, _ in items], rows, stats_delta(before, after)


def merge_counts(stats: CacheStats, counts: dict[str, tuple[int, int, float]]) -> None:
    """Add a worker's per-stage counts (:func:`~benchmark.scoring.runner.stats_delta`) to the driver's."""
    for key, (hits, misses, seconds) in counts.items():
        stage, namespace = key.rsplit("/", 1)
        stats.record(namespace, hits, misses, seconds, stage=stage)


class RayPool:
    """The actors of one run, started on first use and kept for every (task, family) of it."""

    def __init__(self, profile: JudgeProfile, options: RayOptions) -> None:
        check_address(options.address)  # fails before any model loads, not at the first batch
        self.profile = profile
        self.options = options
        self._ray: Any = None
        self._actors: list[Any] = []
        self._started_here = False

    def _start(self) -> None:
        if self._ray is not None:
            return
        ray = _import_ray()
        if not ray.is_initialized():
            try:
                # Ray installs its failure handler over the process's SIGSEGV/SIGBUS handlers;
                # an in-process JVM (Lucene search) dies without its own (core/signals.py)
                with fault_handlers_kept():
                    ray.init(address=self.options.address, include_dashboard=False, log_to_driver=True)
            except ConnectionError as exc:  # the cluster went away since the check
                raise InputError.at("--ray", f"cannot join {self.options.address}: {exc}") from None
            except ValueError as exc:
                if "ray[client]" not in str(exc):
                    raise
                raise InputError.at("--ray", f"{self.options.address}: {CLIENT_HINT}") from None
            self._started_here = True
        resources = ray.cluster_resources()
        n = self.options.workers or self._fitting(resources)
        remote = ray.remote(
            num_cpus=self.options.cpus_per_worker,
            num_gpus=self.options.gpus_per_worker,
            max_restarts=self.options.max_retries,
            max_task_retries=self.options.max_retries,
        )(ScoringWorker)
        self._actors = [remote.remote(self.profile) for _ in range(n)]
        self._ray = ray
        log.info(
            "ray: %d workers (%g CPU, %g GPU each) on a cluster of %g CPUs, %g GPUs",
            n,
            self.options.cpus_per_worker,
            self.options.gpus_per_worker,
            resources.get("CPU", 0),
            resources.get("GPU", 0),
        )

    def _fitting(self, resources: dict[str, float]) -> int:
        """As many workers as the cluster holds at once (GPUs bind first where asked for)."""
        fits = [resources.get("CPU", 1) / self.options.cpus_per_worker]
        if self.options.gpus_per_worker:
            fits.append(resources.get("GPU", 0) / self.options.gpus_per_worker)
        n = math.floor(min(fits))
        if n < 1:
            why = (
                f"the cluster ({resources.get('CPU', 0):g} CPUs, {resources.get('GPU', 0):g} GPUs) cannot "
                f"hold one worker of {self.options.cpus_per_worker:g} CPU and "
                f"{self.options.gpus_per_worker:g} GPU"
            )
            raise InputError.at("--ray", why)
        return n

    def score(
        self,
        key: str,
        family: MetricFamily,
        task: Task,
        inputs: ScoringInputs,
        settings: FamilySettings,
        batches: Sequence[list[Item]],
        *,
        stats: CacheStats | None = None,
        repeats: int = 1,
        afresh: bool = False,
    ) -> Iterator[tuple[list[str], list[dict[str, Any]]]]:
        """Every batch, spread over the workers, yielded as soon as it is done (in any order);
        the workers' cache counts are added to ``stats``.  A worker judges its batch's repeats
        itself (:func:`~benchmark.scoring.runner.score_repeats`), sharing its prepared state."""
        if not batches:
            return
        self._start()
        from ray.util import ActorPool

        ray = self._ray
        shared = [ray.put(x) for x in (family, task, inputs, settings)]
        pool = ActorPool(self._actors)
        for qids, rows, counts in pool.map_unordered(
            lambda actor, items: actor.score.remote(key, *shared, items, repeats, afresh), list(batches)
        ):
            if stats is not None:
                merge_counts(stats, counts)
            yield qids, rows

    def close(self) -> None:
        if self._ray is not None:
            for actor in self._actors:
                self._ray.kill(actor)
            self._actors = []
            if self._started_here:
                with fault_handlers_kept():  # ray.shutdown resets SIGSEGV to the default action
                    self._ray.shutdown()
            self._ray = None
