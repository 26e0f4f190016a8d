"""job.py: evoforge.Job, one evoforge job handle (a spec, its overrides,
one run, its results) over the C API, with Ctrl-C as a clean stop."""
import ctypes
import json
import numbers
import os
import signal
import threading
import time
import warnings

from . import _lib, _sparse
from ._errors import EvoforgeWarning, OK, make_error

_c = _lib.lib


def _text(value):
    """A setting's text: booleans as 1/0, floats with every digit."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class _Interrupt:
    """While a run is in progress on the main thread: SIGINT sets a flag
    (instead of raising KeyboardInterrupt in the middle of the callback),
    which the progress callback answers with a non-zero return."""

    def __init__(self):
        self.pending = False
        self._old = None

    def _handler(self, signum, frame):
        self.pending = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        return False


class Job:
    """An evoforge job: Job(spec_text) or Job.from_file(path).

    with evoforge.Job(text, backend="cpu", seed=3) as job:
        job.set("de.population", 40)
        job.run()
        print(job.best, job.result["evaluations"])

    verbose=True prints the run's progress lines, the CLI's stdout lines
    (print to sys.stdout, so they show in a notebook); warnings become
    EvoforgeWarning. Ctrl-C during run() stops the run at its next progress
    line with its best so far (job.stopped, job.stop_reason == "interrupt");
    time_limit= (seconds) does the same at a deadline. checkpoint_every=N
    writes OUTPUT_DIR/checkpoint.bin every N steps, resume=PATH goes on from
    one (set_checkpoint, set_resume). Errors raise EvoforgeError
    (EvoforgeInputError, also a ValueError, for bad specs and values)."""

    def __init__(self, spec=None, *, file=None, backend=None, seed=None, threads=None,
                 output_dir=None, verbose=False, time_limit=None, checkpoint_every=None,
                 resume=None, **overrides):
        if (spec is None) == (file is None):
            raise TypeError("evoforge.Job: give the spec text or file=PATH (one of them)")
        self._h = None
        self._result = None
        self._interrupted_by_user = False
        self._time_limit = None
        self._deadline = None
        self._stop_reason = None
        self._step_hook = None
        self.verbose = verbose
        h = ctypes.c_void_p()
        if spec is not None:
            st = _c.evoforge_job_from_text(str(spec).encode(), ctypes.byref(h))
        else:
            st = _c.evoforge_job_from_file(os.fsencode(file), ctypes.byref(h))
        self._h = h.value
        self._check(st)
        self._install_callbacks()
        if backend is not None:
            self.set_backend(backend)
        if seed is not None:
            self.set_seed(seed)
        if threads is not None:
            self.set_threads(threads)
        if output_dir is not None:
            self.set_output_dir(output_dir)
        if time_limit is not None:
            self.set_time_limit(time_limit)
        if checkpoint_every is not None:
            self.set_checkpoint(checkpoint_every)
        if resume is not None:
            self.set_resume(resume)
        for key, value in overrides.items():
            self.set(key.replace("__", "."), value)

    @classmethod
    def from_file(cls, path, **kw):
        """A job from a spec file (data paths relative to its folder, as the CLI)."""
        return cls(file=path, **kw)

    # ---- errors and callbacks ----
    def _check(self, st):
        if st == OK:
            return
        name = _c.evoforge_status_name(st).decode()
        msg = _c.evoforge_job_error(self._h).decode(errors="replace")
        raise make_error(st, name, msg)

    def _install_callbacks(self):
        # The ctypes callbacks live as long as the job (the C side keeps the pointers).
        self._log_cb = _lib.LOG_FN(self._on_log)
        self._progress_cb = _lib.PROGRESS_FN(self._on_progress)
        self._check(_c.evoforge_job_set_log(self._h, self._log_cb, None))
        self._check(_c.evoforge_job_set_progress(self._h, self._progress_cb, None))
        self._sigint = None

    _STOP_WARNING = "stopped by the progress callback"

    def _note_interrupt(self):
        """A KeyboardInterrupt raised inside a callback (SIGINT under a
        handler other than Python's default): a stop request, not an error."""
        if self._sigint is not None:
            self._sigint.pending = True

    def _on_log(self, level, line, user):
        try:
            text = line.decode(errors="replace")
            if level == 1:
                if self._STOP_WARNING in text and self._stop_reason in ("time_limit", "callback"):
                    return   # a stop that was asked for is not news
                if self._STOP_WARNING in text and self._stop_reason == "interrupt":
                    text = "interrupted (Ctrl-C, SIGINT): " + text
                warnings.warn(text, EvoforgeWarning, stacklevel=2)
            elif self.verbose:
                print(text, flush=True)   # sys.stdout at this moment: a notebook's cell output
        except KeyboardInterrupt:
            self._note_interrupt()
        except BaseException:   # never let an exception cross into C
            pass

    def _on_progress(self, line, user):
        """Non-zero (stop at this step boundary) on a pending Ctrl-C or past
        the time limit; the stop's reason is kept for the warning."""
        try:
            if self._sigint is not None and self._sigint.pending:
                self._stop_reason = "interrupt"
                return 1
            if self._deadline is not None and time.monotonic() > self._deadline:
                self._stop_reason = self._stop_reason or "time_limit"
                return 1
            if self._step_hook is not None and self._step_hook(line.decode(errors="replace")):
                self._stop_reason = self._stop_reason or "callback"
                return 1
            return 0
        except KeyboardInterrupt:   # a SIGINT handled here: stop cleanly
            self._note_interrupt()
            self._stop_reason = "interrupt"
            return 1
        except BaseException as e:
            if self._step_hook is not None:   # the hook's own error: stop, raised after the run
                self._step_error = self._step_error or e
                self._stop_reason = self._stop_reason or "callback"
                return 1
            return 0

    _step_error = None

    def set_step_hook(self, fn):
        """fn(line) on each progress line of a run (evoforge_job_set_progress);
        a true return stops the run there, keeping its best so far
        (job.stop_reason == "callback"). An exception in fn stops the run too
        and is raised by run() after it. None: no hook. For evoforge.minimize's
        callback= (de with report_every = 1: a line a generation)."""
        self._step_hook = fn
        self._step_error = None
        return self

    # ---- settings ----
    def _handle(self):
        if self._h is None:
            raise ValueError("evoforge.Job: the job is closed")
        return self._h

    def set(self, key, value):
        """The CLI's --set section.key=value (value: str, int, float or bool)."""
        self._check(_c.evoforge_job_set(self._handle(), str(key).encode(), _text(value).encode()))
        return self

    def set_backend(self, backend):
        self._check(_c.evoforge_job_set_backend(self._handle(), str(backend).encode()))
        return self

    def set_seed(self, seed):
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"evoforge.Job: seed: expected an integer in [0, 2^64), got {seed!r}")
        self._check(_c.evoforge_job_set_seed(self._handle(), seed))
        return self

    def set_threads(self, threads):
        self._check(_c.evoforge_job_set_threads(self._handle(), int(threads)))
        return self

    def set_table(self, name, X, y=None, colnames=None):
        """Registers X (rows x cols) and y (rows, or None) as the in-memory
        table the spec names "memory:NAME" (evoforge_job_set_table). C-ordered
        float64 (or float32, both) arrays are lent, not copied; others are
        converted once. The job keeps them until it is closed.

        X may be a scipy.sparse matrix (CSR lent as it is; CSC, COO, ...
        converted to CSR once; never densified): then the table is CSR
        (evoforge_job_set_table_csr), which svm's [data] train and test read
        as the LIBSVM file of the same rows; y the labels (None: all 0)."""
        import numpy
        if _sparse.is_sparse(X):
            return self._set_table_csr(name, X, y, colnames)
        f32 = numpy.asarray(X).dtype == numpy.float32 and \
            (y is None or numpy.asarray(y).dtype == numpy.float32)
        dt = numpy.float32 if f32 else numpy.float64
        X = numpy.ascontiguousarray(X, dtype=dt)
        if X.ndim != 2:
            raise ValueError(f"evoforge.Job.set_table: X: expected a 2-D array, got {X.ndim}-D")
        if y is not None:
            y = numpy.ascontiguousarray(y, dtype=dt).reshape(-1)
            if y.shape[0] != X.shape[0]:
                raise ValueError(f"evoforge.Job.set_table: y: expected {X.shape[0]} values, "
                                 f"got {y.shape[0]}")
        names = None
        if colnames is not None:
            names = (ctypes.c_char_p * X.shape[1])(*[str(n).encode() for n in colnames])
        ptr = ctypes.POINTER(ctypes.c_float if f32 else ctypes.c_double)
        fn = _c.evoforge_job_set_table_float if f32 else _c.evoforge_job_set_table
        self._check(fn(self._handle(), str(name).encode(), X.ctypes.data_as(ptr), X.shape[0],
                       X.shape[1], None if y is None else y.ctypes.data_as(ptr), names))
        if not hasattr(self, "_tables"):
            self._tables = {}
        self._tables[str(name)] = (X, y, names)   # lent to the C side until close
        return self

    def _set_table_csr(self, name, X, y, colnames):
        import numpy
        who = "evoforge.Job.set_table"
        if colnames is not None:
            raise ValueError(f"{who}: a sparse table has no column names (svm reads its "
                             "columns in order)")
        csr, indptr, indices, values = _sparse.csr_arrays(X, who)
        if y is not None:
            y = numpy.ascontiguousarray(y, dtype=numpy.float64).reshape(-1)
            if y.shape[0] != csr.shape[0]:
                raise ValueError(f"{who}: y: expected {csr.shape[0]} values, got {y.shape[0]}")
        p, i, v = _sparse.pointers(indptr, indices, values)
        D = ctypes.POINTER(ctypes.c_double)
        self._check(_c.evoforge_job_set_table_csr(self._handle(), str(name).encode(),
                                                  csr.shape[0], csr.shape[1], p, i, v,
                                                  None if y is None else y.ctypes.data_as(D)))
        if not hasattr(self, "_tables"):
            self._tables = {}
        self._tables[str(name)] = (csr, indptr, indices, values, y)   # lent until close
        return self

    def set_checkpoint(self, every):
        """A checkpoint, OUTPUT_DIR/checkpoint.bin, every `every` steps (gp,
        de: generations; aco: iterations; mbp: epochs; svm: SMO iterations);
        0: at most every 60 s (the default); negative: never
        (evoforge_job_set_checkpoint). Set output_dir to keep it."""
        self._check(_c.evoforge_job_set_checkpoint(self._handle(), int(every)))
        return self

    def set_resume(self, path):
        """Go on from a checkpoint (a checkpoint.bin, or the folder holding
        it) of a run of the same spec and overrides; None: none
        (evoforge_job_set_resume)."""
        self._check(_c.evoforge_job_set_resume(
            self._handle(), None if path is None else os.fsencode(path)))
        return self

    def set_time_limit(self, seconds):
        """Stops the run at its first progress line after `seconds` (wall,
        from run()), keeping its best so far (job.stopped); None: no limit.
        Python-side, any kind; kinds' own limits (aco's time_limit) also exist."""
        if seconds is not None and not (isinstance(seconds, numbers.Real) and
                                        not isinstance(seconds, bool) and seconds > 0):
            raise ValueError(f"time_limit: expected seconds > 0 or None, got {seconds!r}")
        self._time_limit = None if seconds is None else float(seconds)
        return self

    def set_objective(self, cfunc):
        """de's `function = callback` objective (evoforge_job_set_objective):
        cfunc an evoforge._lib.OBJECTIVE_FN, kept alive by the job (the C side
        holds the pointer). evoforge.minimize(callable) builds one."""
        self._objective_cb = cfunc
        self._check(_c.evoforge_job_set_objective(self._handle(), cfunc, None))
        return self

    def set_output_dir(self, path):
        self._check(_c.evoforge_job_set_output_dir(self._handle(), os.fsencode(path)))
        return self

    # ---- running and results ----
    def run(self):
        """Runs the job once. Ctrl-C stops it at the next step boundary and
        keeps the results so far (job.stopped, result["interrupted"])."""
        h = self._handle()
        self._deadline = None if self._time_limit is None else time.monotonic() + self._time_limit
        self._stop_reason = None
        with _Interrupt() as guard:
            self._sigint = guard
            try:
                st = _c.evoforge_job_run(h)
            finally:
                self._sigint = None
        self._interrupted_by_user = guard.pending
        if guard.pending and self._stop_reason is None and st == OK and self.stopped:
            self._stop_reason = "interrupt"
        self._check(st)
        if self._step_error is not None:
            e, self._step_error = self._step_error, None
            raise e
        return self

    @property
    def result(self):
        """result.json as a dict (after a run)."""
        if self._result is None:
            text = _c.evoforge_job_result_json(self._handle())
            if text is None:
                self._check(_c.evoforge_job_best(self._h, ctypes.byref(ctypes.c_double())))
                raise make_error(9, "EVOFORGE_ERR_STATE", "no result: the job has not run")
            self._result = json.loads(text.decode())
        return self._result

    @property
    def best(self):
        """The headline number (de best_min, aco best_length, gp best.fitness, ...)."""
        v = ctypes.c_double()
        self._check(_c.evoforge_job_best(self._handle(), ctypes.byref(v)))
        return v.value

    def number(self, path):
        """Any number of result.json by dotted path ("best.fitness")."""
        v = ctypes.c_double()
        self._check(_c.evoforge_job_result_number(self._handle(), str(path).encode(), ctypes.byref(v)))
        return v.value

    @property
    def kind(self):
        k = _c.evoforge_job_kind(self._handle())
        return k.decode() if k is not None else None

    @property
    def output_dir(self):
        d = _c.evoforge_job_output_dir(self._handle())
        return os.fsdecode(d) if d is not None else None

    @property
    def stopped(self):
        """True when the run was stopped early (Ctrl-C or the progress callback)."""
        return bool(_c.evoforge_job_stopped(self._handle()))

    @property
    def stop_reason(self):
        """Why the run stopped early: "interrupt" (Ctrl-C), "time_limit"
        (set_time_limit), "callback" (set_step_hook), or None (it ran to its end)."""
        return self._stop_reason if self.stopped else None

    @property
    def interrupted_by_user(self):
        """True when Ctrl-C (SIGINT) arrived during the run."""
        return self._interrupted_by_user

    def close(self):
        """Frees the handle (and the private results folder)."""
        if self._h is not None:
            _c.evoforge_job_free(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        state = "closed" if self._h is None else (self.kind or "failed spec")
        return f"<evoforge.Job {state}>"
