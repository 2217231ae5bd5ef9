# ruff: noqa: E501  (messages are data: one line each reads best)
"""The messages of layer-parallel builds (solver/jobs, `kniffel solve --workers/--scheduler/--job-dir/--status`),
for solver/i18n/texts.py. Same form as catalogue.py."""

EN_JOBS = {
    "word_job": "job manifest",
    "job_none": "{path} is not a job folder (no job.json); name the folder a `kniffel solve ... --job-dir` made",
    "job_other": "job folder {path} holds a build of {found}, not of {wanted}: name another --job-dir, or delete this one",
    "job_damaged": "job folder: {path} does not match the manifest's checksum; delete the job folder and start again",
    "job_no_dask": "--workers and --scheduler need Dask distributed: pip install 'kniffel[cluster]'",
    "job_scheduler": "no Dask scheduler answers at {address} within {seconds} s ({error}); start one (`dask scheduler`) or check the address",
    "job_one_variant": "--workers, --scheduler and --job-dir build one VARIANT at a time",
    "job_identical": "{variant}: a job builds the tables of identical dice; its value table: `kniffel solve {variant}`",
    "job_both": "give --workers or --scheduler, not both",
    "progress_job": "{variant}: {kind} job",
    "job_status": "{path}: {variant} {kind}{n}, {layers_done}/{layers} layers done, {chunks_left} chunks of {chunks} left in the next layers",
    "job_status_time": "  about {minutes} CPU-minutes left ({rate} us a cost unit so far)",
    "job_status_no_time": "  no layer finished yet: no estimate",
    "job_status_none": "{path} holds no job folder",
}

DE_JOBS = {
    "word_job": "Auftragsbeschreibung",
    "job_none": "{path} ist kein Auftragsordner (kein job.json); bitte den Ordner nennen, den `kniffel solve ... --job-dir` angelegt hat",
    "job_other": "Auftragsordner {path} enthält eine Berechnung von {found}, nicht von {wanted}: bitte ein anderes --job-dir nennen oder diesen löschen",
    "job_damaged": "Auftragsordner: {path} passt nicht zur Prüfsumme der Auftragsbeschreibung; bitte den Auftragsordner löschen und neu beginnen",
    "job_no_dask": "--workers und --scheduler brauchen Dask distributed: pip install 'kniffel[cluster]'",
    "job_scheduler": "unter {address} antwortet binnen {seconds} s kein Dask-Scheduler ({error}); bitte einen starten (`dask scheduler`) oder die Adresse prüfen",
    "job_one_variant": "--workers, --scheduler und --job-dir berechnen eine VARIANTE auf einmal",
    "job_identical": "{variant}: ein Auftrag berechnet die Tabellen gleicher Würfel; ihre Wertetabelle: `kniffel solve {variant}`",
    "job_both": "bitte --workers oder --scheduler angeben, nicht beides",
    "progress_job": "{variant}: Auftrag {kind}",
    "job_status": "{path}: {variant} {kind}{n}, {layers_done}/{layers} Schichten fertig, {chunks_left} von {chunks} Stücken offen in den nächsten Schichten",
    "job_status_time": "  noch etwa {minutes} CPU-Minuten ({rate} µs je Kosteneinheit bisher)",
    "job_status_no_time": "  noch keine Schicht fertig: keine Schätzung",
    "job_status_none": "{path} enthält keinen Auftragsordner",
}
