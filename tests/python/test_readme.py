"""The README's Python example runs as shown and prints what it says."""
import contextlib
import io
import os
import re

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def python_blocks():
    text = open(README, encoding="utf-8").read()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_readme_python_example():
    pytest.importorskip("sklearn")
    blocks = python_blocks()
    assert len(blocks) == 1, "the README has one Python example"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert float(lines[0]) > 0.999999            # R² 1.0, as the comment says
    said = re.search(r"print\(model.simplified_\)\s+# (.*)", blocks[0]).group(1)
    assert lines[1] == said.strip()
