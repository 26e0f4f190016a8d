/* evoforge.h: evoforge's public C API -- jobs from spec text or files, run in
 * this process, results as values (docs/c-api.md).
 *
 * A job is an opaque handle: made from a spec (the INI text `evoforge run`
 * reads), adjusted with overrides (what the CLI's --set, --backend, --seed,
 * --threads and -o do), run once, then asked for its results; freed by
 * evoforge_job_free. Every function returns an evoforge_status; a failing
 * one leaves its message on the job (evoforge_job_error), the same text the
 * CLI prints after "evoforge: error: " (with "FILE:LINE:" for spec errors).
 *
 * The library never prints, never exits, never installs signal handlers:
 * the progress and warning lines the CLI prints go to the job's callbacks
 * (or nowhere). Child processes it may start (the C compiler for de's C
 * objectives, gnuplot for svm's grid picture) inherit the process's
 * standard output and error.
 *
 * Threads: a job handle must be used by one thread at a time. Separate
 * handles may be made, set and freed from separate threads, but the engine
 * keeps process-wide state (the log and progress hooks, the stop flag, the
 * CPU thread pool and its size, the GPU context, the run's timeline), so
 * evoforge_job_run holds a process-wide lock: ONE JOB RUNS AT A TIME PER
 * PROCESS, and a second thread's evoforge_job_run waits for the first.
 * Callbacks are called while that lock is held, one call at a time, from
 * the thread that called evoforge_job_run -- or, for a few warnings, from
 * the engine's CPU worker threads (svm trains cross-validation models in
 * parallel); they must not call evoforge_job_run themselves.
 *
 * Strings returned by the library are owned by the job (or static) and stay
 * valid until the job is freed (or the next call on that job that says it
 * replaces them); the caller never frees them.
 *
 * Valid C99 and C++. Every exported symbol starts with evoforge_. */
#ifndef EVOFORGE_H
#define EVOFORGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: bumped on any incompatible change of this header. */
#define EVOFORGE_API_VERSION 1

#if defined(EVOFORGE_BUILDING) && defined(__GNUC__)
#define EVOFORGE_API __attribute__((visibility("default")))
#else
#define EVOFORGE_API
#endif

/* A job: one spec, its overrides, one run and its results. Opaque. */
typedef struct evoforge_job evoforge_job;

/* What a call did. EVOFORGE_ERR_INPUT is what the CLI exits 2 for; the
 * other errors, exit 1. */
typedef enum evoforge_status {
	EVOFORGE_OK = 0,
	EVOFORGE_ERR_ARGUMENT = 1,    /* a NULL or invalid argument to this API */
	EVOFORGE_ERR_INPUT = 2,       /* bad spec, data or value: the user's to fix */
	EVOFORGE_ERR_SYSTEM = 3,      /* I/O or out of memory */
	EVOFORGE_ERR_NOGPU = 4,       /* backend gpu asked for and no driver or device */
	EVOFORGE_ERR_CUDA = 5,        /* a CUDA driver call failed */
	EVOFORGE_ERR_NVRTC = 6,       /* NVRTC failed (its log in the message) */
	EVOFORGE_ERR_UNSUPPORTED = 7, /* something this build or kind does not do */
	EVOFORGE_ERR_INTERNAL = 8,    /* a broken invariant: a bug in evoforge */
	EVOFORGE_ERR_STATE = 9        /* called out of order (results before a run,
	                                 a second run, a job whose spec failed) */
} evoforge_status;

/* What a log line is. */
typedef enum evoforge_log_level {
	EVOFORGE_LOG_INFO = 0,    /* progress and results (the CLI's stdout lines) */
	EVOFORGE_LOG_WARNING = 1  /* the CLI's "evoforge: warning: ..." lines, without that prefix */
} evoforge_log_level;

/* Receives one line (no newline; valid during the call only). */
typedef void (*evoforge_log_fn)(evoforge_log_level level, const char *line, void *user);

/* Receives each progress/info line of a run (the lines the CLI prints to
 * stdout: the kinds' per-step lines such as gp's "gen 10 best ...", de's
 * "de: gen 50/1000 ...", aco's "aco: iter ...", mbp's "mbp: epoch ...", and
 * the start and end lines). Returns 0 to go on; non-zero asks the run to
 * stop at its next step boundary, as SIGINT does the CLI: the results so far
 * are written, result.json marked "interrupted": true, "stopped_by":
 * "callback", and evoforge_job_run returns EVOFORGE_OK with
 * evoforge_job_stopped(job) == 1. */
typedef int (*evoforge_progress_fn)(const char *line, void *user);

/* An objective that evaluates a whole population (kind de, with
 * `[de] function = callback`): X holds np x dim doubles, row-major (trial
 * individual i, component j at X[i * dim + j]; valid during the call only);
 * the callback writes np values into fx and returns 0. The population is
 * held in floats: X's values are floats widened, and each fx value is
 * rounded to float (NaN counts as +inf, the worst). A non-zero return stops
 * the run: evoforge_job_run returns EVOFORGE_ERR_INPUT with a message that
 * names the callback, its return value, the problem and the generation. */
typedef int (*evoforge_objective_fn)(const double *X, int np, int dim, double *fx, void *user);

/* ---- the library ----------------------------------------------------------- */

/* evoforge's version ("0.1.0"); static, never freed. Thread-safe. */
EVOFORGE_API const char *evoforge_version(void);
/* EVOFORGE_API_VERSION of the library actually loaded. Thread-safe. */
EVOFORGE_API int evoforge_api_version(void);
/* The status's name ("EVOFORGE_ERR_INPUT"); static. Thread-safe. */
EVOFORGE_API const char *evoforge_status_name(evoforge_status status);

/* ---- making a job ----------------------------------------------------------- */

/* A job from INI text (copied; the caller keeps ini_text). Relative data
 * paths in it are looked up from the current folder, then as the CLI does
 * (data/, $EVOFORGE_DATA). On EVOFORGE_OK or EVOFORGE_ERR_INPUT (a syntax
 * error: "(spec text):LINE: ...") *out is a job the caller must free with
 * evoforge_job_free -- after an error it holds only the message and refuses
 * everything else with the same status. *out is NULL only when out of
 * memory (EVOFORGE_ERR_SYSTEM) or when an argument is NULL. */
EVOFORGE_API evoforge_status evoforge_job_from_text(const char *ini_text, evoforge_job **out);
/* The same from a spec file (path copied); relative data paths are looked
 * up from the file's folder first, as `evoforge run PATH` does. */
EVOFORGE_API evoforge_status evoforge_job_from_file(const char *path, evoforge_job **out);

/* Frees the job, its strings and, unless evoforge_job_set_output_dir named
 * a folder, the private results folder with everything in it. NULL: nothing. */
EVOFORGE_API void evoforge_job_free(evoforge_job *job);

/* ---- settings (before evoforge_job_run) --------------------------------------- */

/* Overrides one spec value, as the CLI's --set SECTION.KEY=VALUE: key is
 * "section.key" (e.g. "gp.population"), value its text (both copied).
 * EVOFORGE_ERR_INPUT for a malformed key; a key no kind knows is found when
 * the job runs (EVOFORGE_ERR_INPUT, "command line (--set gp.x): unknown
 * key ..."), as in the CLI. */
EVOFORGE_API evoforge_status evoforge_job_set(evoforge_job *job, const char *key, const char *value);
/* Where to run: "cpu", "gpu" or "auto" (the default: the GPU when a driver
 * and a device answer, else the CPU). */
EVOFORGE_API evoforge_status evoforge_job_set_backend(evoforge_job *job, const char *backend);
/* The random seed (default: the spec's [problem] seed, else 1). */
EVOFORGE_API evoforge_status evoforge_job_set_seed(evoforge_job *job, uint64_t seed);
/* CPU threads, 1..256; 0 (the default): every core this process may use. */
EVOFORGE_API evoforge_status evoforge_job_set_threads(evoforge_job *job, int threads);
/* The folder the run writes result.json, history.csv, ... into (copied;
 * created; kept on free). Default: a private folder under $TMPDIR (else
 * /tmp) that the job makes at the run and removes on free. */
EVOFORGE_API evoforge_status evoforge_job_set_output_dir(evoforge_job *job, const char *dir);
/* Log lines (info and warnings) to fn(level, line, user); NULL fn: none
 * (the default: the library prints nothing). */
EVOFORGE_API evoforge_status evoforge_job_set_log(evoforge_job *job, evoforge_log_fn fn, void *user);
/* Progress lines to fn(line, user), whose non-zero return stops the run
 * cleanly (evoforge_progress_fn); NULL fn: none. */
EVOFORGE_API evoforge_status evoforge_job_set_progress(evoforge_job *job, evoforge_progress_fn fn,
						     void *user);

/* The objective of a de job whose spec says `[de] function = callback`:
 * per generation, fn(X, np, dim, fx, user) is called once per problem with
 * the whole trial population (once more for the initial one), then the
 * usual selection follows. Called from the thread that called
 * evoforge_job_run, one call at a time, never from the engine's worker
 * threads. Every strategy: rand/1/bin, best/1/bin and the adaptive and
 * mixed ones (jade, shade, lshade, jso: np is the current, shrinking
 * population size; sade; code: 3 x np rows, three trials an individual).
 * Both backends: "auto" runs such a job on the CPU; with "gpu" each
 * generation's trials are copied to the host once and the values back once,
 * the calls as on the CPU, the run the same. EVOFORGE_ERR_UNSUPPORTED for a kind
 * other than de; NULL fn: none (a spec naming function = callback then
 * fails at the run with EVOFORGE_ERR_INPUT). */
EVOFORGE_API evoforge_status evoforge_job_set_objective(evoforge_job *job, evoforge_objective_fn fn,
						      void *user);

/* ---- data from memory (before evoforge_job_run) ------------------------------------ */

/* Registers an in-memory table under name (letters, digits, '_', '-', '.';
 * up to 64), which the spec then names as a data file "memory:NAME"
 * anywhere a CSV file goes: gp's and mbp's [data] file (and gp's test),
 * svm's [data] train and test (e.g. "[data]\nfile = memory:train\n"), and
 * aco's [data] file: a table of n rows and 2 columns is the cities'
 * coordinates (EUC_2D: TSPLIB's nint of the Euclidean distance), one of n
 * rows and n columns the full matrix of lengths (whole numbers 0..1e9,
 * symmetric: aco solves symmetric instances only, and an asymmetric matrix
 * is EVOFORGE_ERR_INPUT naming the first pair that differs; the diagonal
 * is checked, then read as 0), without y; the instance's name is NAME;
 * matrices are limited to 4096 cities here.
 *
 * X: rows x cols values, dense, row-major (X[r * cols + c]); y: rows
 * values (regression targets, or class labels as numbers: gp's and svm's
 * classes are the numbers, as in a CSV file's numeric label column; mbp
 * takes a numeric label as a regression target), or NULL for none; colnames:
 * cols names, or NULL for x1..xn. The table reads as the CSV file of
 * columns colnames..., then "y" (when y is given), so the spec's label
 * defaults to y (the last column) and may name another column; svm's
 * label = first/last/N and gp's ignore = ... work as for a file.
 *
 * Borrowed, not copied: the job keeps the pointers X and y (it copies name
 * and colnames); they must stay valid and unchanged until evoforge_job_run
 * returns (or the job is freed). Each load of the table in the run converts
 * it once, straight into evoforge's column-major float table (values
 * rounded to float, as a CSV file's are). Checked now, whole:
 * EVOFORGE_ERR_INPUT for rows or cols < 1 (cols up to 4096, 4095 with y),
 * a NaN, an infinity or a value beyond a float's range in X or y (the
 * first named by row and column, 1-based), an empty, repeated or
 * comma-holding column name, or a bad table name; EVOFORGE_ERR_ARGUMENT
 * for a NULL X or name. Giving a name again replaces that table. A spec
 * naming "memory:NAME" that no table has fails the run with
 * EVOFORGE_ERR_INPUT naming it (unless a file of that name exists, which
 * is then read, as by the CLI). */
EVOFORGE_API evoforge_status evoforge_job_set_table(evoforge_job *job, const char *name,
						  const double *X, long rows, int cols,
						  const double *y, const char *const *colnames);
/* The same for float data (X and y float; no rounding at the conversion). */
EVOFORGE_API evoforge_status evoforge_job_set_table_float(evoforge_job *job, const char *name,
							const float *X, long rows, int cols,
							const float *y,
							const char *const *colnames);

/* A sparse table in CSR form (scipy.sparse.csr_matrix's layout) under name,
 * which svm's [data] train and test name as "memory:NAME": it reads
 * exactly as the LIBSVM file of the same rows would ("LABEL i:v ..." with
 * i = column + 1), through svm's sparse path (never densified by this call;
 * [data] storage = auto/dense/sparse decides as for a file), with the
 * features counted as cols (as `[data] features = cols` does for a file).
 * Row r's entries are k = indptr[r] .. indptr[r + 1] - 1: column
 * indices[k] (0-based, strictly ascending within the row) holding
 * values[k]; labels: rows class labels as numbers, or NULL (all 0: a table
 * for predictions). Other kinds refuse a CSR table (EVOFORGE_ERR_INPUT at
 * the run).
 *
 * Borrowed, not copied, like evoforge_job_set_table's X: indptr, indices,
 * values and labels must stay valid and unchanged until evoforge_job_run
 * returns; each load converts them once into svm's own sparse arrays
 * (values rounded to float). Checked now, whole: EVOFORGE_ERR_INPUT for
 * rows or cols < 1, indptr[0] != 0 or a decreasing indptr (a row that ends
 * before it starts), a column index outside 0..cols-1, indices not
 * ascending or repeated within a row, a NaN, infinite or beyond-float value
 * or label (the first bad one named by row), a bad table name;
 * EVOFORGE_ERR_ARGUMENT for a NULL name or indptr. */
EVOFORGE_API evoforge_status evoforge_job_set_table_csr(evoforge_job *job, const char *name,
						      long rows, int cols, const int64_t *indptr,
						      const int32_t *indices, const double *values,
						      const double *labels);

/* ---- checkpoints (before evoforge_job_run) ----------------------------------------- */

/* How often the run writes its checkpoint, OUTPUT_DIR/checkpoint.bin (the
 * output folder: evoforge_job_set_output_dir's, else the private one, which
 * is removed on free -- set a folder to keep it): every > 0, every that
 * many steps (gp, de: generations; aco: iterations; mbp: epochs; svm: SMO
 * iterations); 0 (the default), at most every 60 s; < 0, never (a stop by
 * the progress callback still writes one). As the CLI's --checkpoint-every. */
EVOFORGE_API evoforge_status evoforge_job_set_checkpoint(evoforge_job *job, long every);
/* Goes on from a checkpoint: path is a checkpoint file or a folder holding
 * checkpoint.bin (copied; NULL: none), written by a run of the same spec
 * and overrides (a checkpoint of another kind or spec fails the run with
 * EVOFORGE_ERR_INPUT saying which). Every kind; the resumed run ends where
 * the uninterrupted one would, with the same results. As the CLI's
 * --resume. */
EVOFORGE_API evoforge_status evoforge_job_set_resume(evoforge_job *job, const char *path);

/* ---- running ------------------------------------------------------------------ */

/* Runs the job in this thread, once (a second call: EVOFORGE_ERR_STATE);
 * waits for any other thread's run first (one run at a time per process).
 * The kinds read the tuning database as `evoforge run` does. On
 * EVOFORGE_OK the results below are available. */
EVOFORGE_API evoforge_status evoforge_job_run(evoforge_job *job);

/* ---- results (after an EVOFORGE_OK run) -------------------------------------------- */

/* The run's result.json text; owned by the job; NULL before a run that
 * succeeded. */
EVOFORGE_API const char *evoforge_job_result_json(evoforge_job *job);
/* The run's headline number into *value:
 *   gp   best.fitness (the best program's fitness: MSE, or errors)
 *   de   best_min (the lowest best over the job's problems)
 *   aco  best_length (the best tour's length)
 *   mbp  best_train_rms (the best network's training RMS)
 *   svm  cv_accuracy when cross-validating or searching a grid, else
 *        test_accuracy when a test set is given, else train_accuracy
 *        (a fraction in [0, 1]; higher is better, unlike the others)
 * EVOFORGE_ERR_STATE before a successful run. */
EVOFORGE_API evoforge_status evoforge_job_best(evoforge_job *job, double *value);
/* Any number of result.json by its dotted path ("best.fitness",
 * "evaluations"); EVOFORGE_ERR_INPUT when absent or not a number. */
EVOFORGE_API evoforge_status evoforge_job_result_number(evoforge_job *job, const char *path,
						      double *value);
/* The job's kind ("gp", "de", "aco", "mbp", "svm"), known once the spec is
 * read; NULL for a job whose spec failed. Owned by the library. */
EVOFORGE_API const char *evoforge_job_kind(evoforge_job *job);
/* The folder the run wrote into (set or private); owned by the job; NULL
 * before the run. */
EVOFORGE_API const char *evoforge_job_output_dir(evoforge_job *job);
/* 1 when the progress callback stopped the run (its results are those so
 * far, marked "interrupted"), else 0. */
EVOFORGE_API int evoforge_job_stopped(evoforge_job *job);

/* ---- predictions for new data (after an EVOFORGE_OK run) ------------------------- */

/* A job from a finished run's result.json (gp, svm, mbp: the file beside
 * it the model needs -- svm's model.txt, mbp's network.net -- read from the
 * same folder), as if it had just run: the results above answer, and
 * evoforge_job_predict predicts; settings and evoforge_job_run are refused
 * (EVOFORGE_ERR_STATE), except evoforge_job_set_backend (where predictions
 * run). Errors as evoforge_job_from_text: *out is a job holding the
 * message (free it), NULL only when out of memory or an argument is NULL. */
EVOFORGE_API evoforge_status evoforge_job_from_result(const char *result_path, evoforge_job **out);

/* The run's best model (gp's best program, or the argmax of its one-vs-rest
 * programs; svm's model; mbp's network) on X (rows x cols doubles,
 * row-major, rounded to float as a CSV file's values are), one value per row
 * into out[rows]: exactly what `evoforge eval RESULT DATA` writes for the
 * same rows -- gp's prediction (regression), class (as the number its data
 * named it: 0..K-1 from memory) or 0/1 output (Boolean); svm's label; mbp's
 * first output (regression) or class (a run from spec text or memory names
 * its classes 0..K-1 in the order they first appear in the data). A class
 * named by text is EVOFORGE_ERR_UNSUPPORTED; a gp class that is NaN (no
 * class) is NaN. colnames: cols names matched against the model's inputs
 * (gp and mbp find their inputs by name; svm reads the columns in order),
 * or NULL: gp's run's own input names in order (data.input_names), x1..xn
 * for mbp. Checked as evoforge_job_set_table's X (finite, float range).
 * The job's backend (evoforge_job_set_backend) says where: cpu, gpu, auto.
 * Runs under the process-wide run lock; prints nothing (warnings go to the
 * log callback); X is read during the call only. Uses a temporary file
 * under $TMPDIR (else /tmp), removed before it returns. */
EVOFORGE_API evoforge_status evoforge_job_predict(evoforge_job *job, const double *X, long rows,
						  int cols, const char *const *colnames,
						  double *out);

/* evoforge_job_predict for svm on CSR rows (rows x cols, as
 * evoforge_job_set_table_csr's, no labels; checked as it checks them): one
 * label per row into out[rows], exactly as for the dense rows of the same
 * values. EVOFORGE_ERR_UNSUPPORTED for gp and mbp (dense only). */
EVOFORGE_API evoforge_status evoforge_job_predict_csr(evoforge_job *job, long rows, int cols,
						      const int64_t *indptr, const int32_t *indices,
						      const double *values, double *out);

/* The message of the job's last failed call ("" when none); owned by the
 * job, replaced by its next failing call. NULL job: a static message. */
EVOFORGE_API const char *evoforge_job_error(evoforge_job *job);

#ifdef __cplusplus
}
#endif

#endif
