"""test_checkpoint.py: evoforge.Job's checkpoint_every= and resume= (the C
API's evoforge_job_set_checkpoint and evoforge_job_set_resume): a run
stopped at its first step boundary leaves OUTPUT_DIR/checkpoint.bin, and the
run resumed from it ends with the uninterrupted run's result; a checkpoint
of another kind is refused with the C message."""
import os
import warnings

import pytest

import evoforge

SPECS = {
    "de": "[problem]\nkind = de\nname = de-small\n[de]\nfunction = rastrigin\ndim = 5\n"
          "problems = 2\ngenerations = 300\n",
    "aco": "[problem]\nkind = aco\nname = aco-small\n[data]\nrandom = 30\nside = 10000\n"
           "[aco]\niterations = 40\n",
    "mbp": "[problem]\nkind = mbp\nname = mbp-xor\n[data]\nsource = xor\n[mbp]\nhidden = 4\n"
           "mode = online\nepochs = 600\n",
}


def _run(spec, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", evoforge.EvoforgeWarning)
        with evoforge.Job(spec, backend="cpu", seed=5, threads=1, **kw) as job:
            job.run()
            return job.best, job.stopped


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_stop_and_resume(kind, tmp_path):
    spec = SPECS[kind]
    whole, stopped = _run(spec, checkpoint_every=-1)
    assert not stopped
    part = tmp_path / "part"
    _, stopped = _run(spec, checkpoint_every=5, output_dir=str(part), time_limit=1e-6)
    assert stopped
    assert os.path.isfile(part / "checkpoint.bin")
    resumed, stopped = _run(spec, checkpoint_every=5, output_dir=str(part), resume=str(part))
    assert not stopped
    assert resumed == whole


def test_resume_other_kind(tmp_path):
    part = tmp_path / "de"
    _run(SPECS["de"], checkpoint_every=5, output_dir=str(part), time_limit=1e-6)
    with pytest.raises(ValueError, match="de"):
        _run(SPECS["aco"], resume=str(part / "checkpoint.bin"))
    with pytest.raises(ValueError):
        evoforge.Job(SPECS["de"], resume="")
