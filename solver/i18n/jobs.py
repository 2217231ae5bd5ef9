# ruff: noqa: E501  (messages are data: one line each reads best)
"""The messages of layer-parallel builds (solver/jobs, `kniffel solve --workers/--scheduler/--job-dir/--status`),
for solver/i18n/texts.py. Same form as catalogue.py."""

EN_JOBS = {
    "opt_solve_workers": "Build layer by layer on a Dask LocalCluster of N one-thread workers (pip install 'kniffel[cluster]').",
    "opt_solve_scheduler": "Build on the Dask scheduler at ADDRESS (tcp://HOST:8786); its workers share the job folder.",
    "opt_solve_job_dir": "The job folder of such a build (resumable: a rerun continues); default: <tables>/jobs/<variant>.",
    "opt_solve_status": "Say how far the build in the job folder DIR is (layers done, chunks left, time left).",
    "word_job": "job manifest",
    "job_none": "{path} is not a job folder (no job.json); name the folder a `kniffel solve ... --job-dir` made",
    "job_other": "job folder {path} holds a build of {found}, not of {wanted}: name another --job-dir, or delete this one",
    "job_damaged": "job folder: {path} does not match the manifest's checksum; delete the job folder and start again",
    "job_no_dask": "--workers and --scheduler need Dask distributed: pip install 'kniffel[cluster]'",
    "job_scheduler": "no Dask scheduler answers at {address} within {seconds} s ({error}); start one (`dask scheduler`) or check the address",
    "job_chunk_failed": "chunk {chunk} of layer {layer} failed on the workers ({error}); the same command continues where the build stopped",
    "job_one_variant": "--workers, --scheduler and --job-dir build one VARIANT at a time",
    "opt_solve_from_filled": "Kniffel 7's target table by job: only the layers with at least K boxes filled (default 10: the end game).",
    "opt_solve_n_max": "Kniffel 7's target table by job: the needs 1..N stored for every card (default: the highest score).",
    "job_identical": "{variant}: a job builds the tables of identical dice and the target table of dice told apart (`--target`); its value table: `kniffel solve {variant}`",
    "job_ordered_only": "--from-filled and --n-max are for the target table of dice told apart: `kniffel solve kniffel7 --target --job-dir DIR --from-filled K`",
    "job_ordered_done": "{variant}: target table's layers with {filled} or more boxes filled, needs 1..{n}: {size} values in {path} ({seconds} s)",
    "job_both": "give --workers or --scheduler, not both",
    "progress_job": "{variant}: {kind} job",
    "job_status": "{path}: {variant} {kind}{n}, {layers_done}/{layers} layers done, {chunks_left} chunks of {chunks} left in the next layers",
    "job_status_time": "  about {minutes} minutes left at the pace so far ({rate} us of wall time a cost unit)",
    "job_status_no_time": "  no layer finished yet: no estimate",
    "job_status_none": "{path} holds no job folder",
}
