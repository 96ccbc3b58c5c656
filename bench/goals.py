"""bench/goals.py - the speed goals `make bench` judges, each against a
figure measured in the same run, and how they are printed.

A goal names one figure of the run (see bench/run_bench.py for where each
comes from), a comparison, a threshold, the job the figure measures and what
it is compared against (its floor or baseline, measured in the same run);
both are printed beside the goal. A figure the run could not measure leaves
its goal NOT MEASURED, which is never counted as met. `make bench` (and
bench/run_bench.py --check FILE, on a bench.json already written) exits 1
when any goal is not met.
"The baseline" is the baseline build (run_bench.py --baseline, by default
the main of the day the goals were set, Makefile BENCH_BASELINE).
"""

# (figure, op, threshold, the job measured, against what)
GOALS = [
    ("check_spec.one_release.vs_baseline", ">=", 2.5,
     "lctx check-spec at the modelled commit alone (--jax modelled, default "
     "--jobs): operations judged per second",
     "the baseline's lctx check-spec, which judges exactly that release; "
     "per operation, since the domains differ; fastest of >= 5 alternating "
     "runs each"),
    ("check_spec.instr_per_op_one_release", "<=", 1400,
     "check-spec instructions per operation (callgrind), every case of the "
     "bounded domain enumerated and judged at the modelled commit, start-up "
     "subtracted",
     "a fixed budget; the baseline doing the same job is printed as "
     "baseline.check_spec.instr_per_op_one_release"),
    ("check_spec.ops_per_s_all_cores", ">=", 10000000,
     "lctx check-spec's default job: every release the table names, "
     "default --jobs (every core); judged operations per wall second, "
     "absent operations not counted but their time kept",
     "a fixed rate (the baseline judged one release: a different job)"),
    ("wall.conform_plugin_domain.per_s", ">=", 1000000,
     "lctx conform of the example C plugin over the full bounded domain, "
     "default --jobs: cases per second",
     "a fixed rate; the baseline's same run is printed beside it"),
    ("check_spec.jobs2_vs_jobs1", ">=", 1.8,
     "check-spec of the whole domain at the modelled commit, in process "
     "(bench_check_spec): "
     "operations/s at --jobs 2",
     "the same job at --jobs 1, alternating, same run"),
    ("conform_plugin.jobs2_vs_jobs1", ">=", 1.8,
     "plugin conform over the full domain: cases/s at --jobs 2",
     "the same job at --jobs 1, same run"),
    ("jax_adapter.jobs2_vs_jobs1", ">=", 1.8,
     "real-JAX adapter conform: cases/s at --jobs 2",
     "the same job at --jobs 1, same run"),
    ("conform_plugin.jobs2_efficiency", ">=", 0.85,
     "proposed in place of plugin jobs2/jobs1: --jobs 1 already keeps "
     "1.2 cores busy (lctx, worker, judge at once), so 2 cores bound the "
     "ratio near 1.67: --jobs 1's CPU seconds (lctx and every process "
     "under it, counted in a control group: bench/cpu_meter.py)",
     "twice --jobs 2's wall seconds, same run"),
    ("jax_adapter.jobs2_efficiency", ">=", 0.85,
     "the same measure for the real-JAX adapter (each adapter's JAX import "
     "included): --jobs 1's CPU seconds, the adapters' counted in a "
     "control group (they are killed, never reaped, so getrusage missed "
     "them)",
     "twice --jobs 2's wall seconds, same run"),
    ("sweep.vs_floor", ">=", 0.8,
     "lctx sweep --jobs 1 of --subset ci (246 programs, about 670 exports) "
     "through jax_export.py: exports per second, start-up left out",
     "the floor: the same exports and CPU runs of the same programs in a "
     "bare Python loop with JAX alone (bench/sweep_floor.py: the items the "
     "sweep's exporter traced, in its order), its start-up left out, same "
     "run"),
    ("sweep.vs_floor_cpu", ">=", 0.8,
     "the same sweep --jobs 1: CPU seconds per export of lctx and of its "
     "exporter after the hello (steadier than wall time on a shared "
     "machine)",
     "the floor's CPU seconds per export, same exports, same run"),
    ("sweep.jobs2_vs_jobs1", ">=", 1.8,
     "the same sweep at --jobs 2: exports per second, the exporters' "
     "start-up excluded",
     "the same sweep at --jobs 1, start-up excluded, same run"),
    ("fuzz_model.vs_decode_floor", ">=", 0.7,
     "fuzz_model's exec/s (fuzz preset), from one grown corpus",
     "the decode-only floor (fuzz_floor_decode): same flags, same corpus, "
     "alternating"),
    ("fuzz_floor_decode.vs_baseline", ">=", 1.5,
     "the decode floor's exec/s",
     "the baseline's decode floor, same flags and corpus, alternating"),
    ("campaign.vs_baseline", ">=", 1.5,
     "a default lctx fuzz campaign of fuzz_model: exec/s",
     "the baseline lctx's default campaign, alternating"),
    ("campaign_fast.vs_baseline", ">=", 3.0,
     "a fast (--fast) campaign's exec/s",
     "the baseline lctx's default campaign, alternating"),
    ("jax_tests.time_vs_baseline", "<=", 0.5,
     "make test's jax tests (ctest -L jax): seconds",
     "the baseline's ctest -L jax, same share of the domain, alternating"),
]


def _met(value, op, threshold):
    return value >= threshold if op == ">=" else value <= threshold


def _show(v):
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    return "%.3f" % v


def judge(figs):
    """[(figure, op, threshold, job, against, value or None, met)] in GOALS
    order."""
    out = []
    for name, op, threshold, job, against in GOALS:
        value = figs.get(name)
        met = value is not None and _met(value, op, threshold)
        out.append((name, op, threshold, job, against, value, met))
    return out


def missed(figs):
    """The names of the goals not met by `figs` (NOT MEASURED included), in
    GOALS order."""
    return [r[0] for r in judge(figs) if not r[-1]]


def report(figs, write):
    """Prints each goal with its measured value, whether it is met, its job
    and what it is compared against; returns (met, total)."""
    rows = judge(figs)
    write("==> bench: the goals, each measured in this run")
    for name, op, threshold, job, against, value, met in rows:
        if value is None:
            verdict, shown = "NOT MEASURED", "-"
        else:
            verdict, shown = ("met" if met else "NOT met"), _show(value)
        write("  %-12s %-38s %14s  goal %s %s" % (
            verdict, name, shown, op, _show(threshold)))
        write("               job:     %s" % job)
        write("               against: %s" % against)
    met = sum(1 for r in rows if r[-1])
    write("goals met: %d of %d" % (met, len(rows)))
    return met, len(rows)
