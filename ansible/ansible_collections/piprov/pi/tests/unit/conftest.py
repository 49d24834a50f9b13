# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the module tests: the collection on sys.path, a fake piprov
(a small script that records its arguments and answers with a given exit
code, stdout and stderr), and a runner that calls a module's main()."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import stat
import sys
from pathlib import Path

import pytest

# ansible/ (the directory holding ansible_collections/) is the import root.
sys.path.insert(0, str(Path(__file__).resolve().parents[5]))

from ansible.module_utils import basic  # noqa: E402
from ansible.module_utils.common.text.converters import to_bytes  # noqa: E402

FAKE = r'''#!/usr/bin/python3
import json, os, sys
spec = json.load(open(os.environ['FAKE_PIPROV_SPEC']))
with open(os.environ['FAKE_PIPROV_LOG'], 'a') as log:
    log.write(json.dumps(sys.argv[1:]) + '\n')
sys.stdout.write(spec.get('stdout', ''))
sys.stderr.write(spec.get('stderr', ''))
sys.exit(spec.get('rc', 0))
'''


class FakePiprov:
    """A piprov stand-in: answer(rc, doc or text, stderr), then calls() lists the argv of each run."""

    def __init__(self, tmp_path, monkeypatch):
        self.path = tmp_path / 'piprov'
        self.path.write_text(FAKE)
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.spec = tmp_path / 'spec.json'
        self.log = tmp_path / 'calls.log'
        monkeypatch.setenv('FAKE_PIPROV_SPEC', str(self.spec))
        monkeypatch.setenv('FAKE_PIPROV_LOG', str(self.log))
        self.answer(0, {})

    def answer(self, rc, stdout, stderr=''):
        text = stdout if isinstance(stdout, str) else json.dumps(stdout)
        self.spec.write_text(json.dumps(dict(rc=rc, stdout=text, stderr=stderr)))

    def calls(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def piprov(tmp_path, monkeypatch):
    return FakePiprov(tmp_path, monkeypatch)


@pytest.fixture
def run_module(capsys):
    """run_module(module, args, check_mode=False) -> the module's result dict."""

    def run(module, args, check_mode=False):
        a = dict(args)
        a['_ansible_check_mode'] = check_mode
        a['_ansible_remote_tmp'] = os.environ.get('TMPDIR', '/tmp')
        basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': a}))
        with pytest.raises(SystemExit):
            module.main()
        return json.loads(capsys.readouterr().out)

    return run
