# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run piprov with --json and turn its result into module output.

piprov's exit codes (piprov --help, docs/findings.md): 0 ok; 1 the check found
problems; 2 usage error; 3 I/O or device error; 4 verification failed;
130 interrupted. Results go to stdout as JSON, the error line
("piprov: error: ...") to stderr.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json

EXIT_OK = 0
EXIT_FINDINGS = 1

# Options every piprov module takes (merged into each argument_spec).
COMMON_ARGS = dict(
    piprov=dict(type='str', default='piprov'),
)


def error_line(stderr, stdout=''):
    """piprov's one error line: the last 'piprov: error:' line, else the last non-empty line."""
    lines = [line.strip() for line in (stderr or '').splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith('piprov: error:'):
            return line
    if lines:
        return lines[-1]
    return (stdout or '').strip().splitlines()[-1] if (stdout or '').strip() else 'no output'


def parse_json(stdout):
    """The JSON object piprov printed, or None when stdout holds none."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def summary_text(doc):
    """'1 error(s), 2 warning(s), 0 info' from a findings report's summary object; a summary
    sentence as it is (boot patch's "nothing to do: ..."); '' when there is none."""
    s = doc.get('summary')
    if isinstance(s, dict):
        return '%d error(s), %d warning(s), %d info' % (s.get('errors', 0), s.get('warnings', 0), s.get('infos', 0))
    return s if isinstance(s, str) else ''


def first_failing(doc):
    """'rule: message' of the first error, else of the first warning; '' when none."""
    findings = doc.get('findings') or []
    for severity in ('error', 'warning'):
        for f in findings:
            if f.get('severity') == severity:
                return '%s: %s' % (f.get('rule'), f.get('message'))
    return ''


def run_piprov(module, what, args):
    """Runs `piprov ARGS --json` and returns (rc, doc, result).

    `what` names the command in messages ("boot check"). `result` is the
    module's return dict: changed False, rc, cmd, stderr, `result` (piprov's
    JSON) and, for findings reports, `findings` and `summary`. Exit 0 returns;
    exit 1 (findings) returns with result['failed'] = True and a msg naming
    the first error; any other exit code (or no JSON on 0/1) ends the module
    with fail_json and piprov's error line as msg.
    """
    cmd = [module.params['piprov']] + list(args) + ['--json']
    rc, out, err = module.run_command(cmd)
    doc = parse_json(out)
    result = dict(changed=False, rc=rc, cmd=cmd, stderr=err)
    if doc is not None:
        result['result'] = doc
        if 'findings' in doc:
            result['findings'] = doc['findings']
            result['summary'] = doc.get('summary')
    if rc not in (EXIT_OK, EXIT_FINDINGS):
        module.fail_json(msg='piprov %s failed (exit %d): %s' % (what, rc, error_line(err, out)), **result)
    if doc is None:
        module.fail_json(msg='piprov %s printed no JSON result (exit %d): %s' % (what, rc, error_line(err, out)),
                         **result)
    if rc == EXIT_FINDINGS:
        result['failed'] = True
        first = first_failing(doc)
        result['msg'] = 'piprov %s found problems: %s%s' % (what, summary_text(doc), '; first: ' + first if first else '')
    else:
        summary = summary_text(doc)
        result['msg'] = 'piprov %s: ok' % what + (' (%s)' % summary if summary else '')
    return rc, doc, result


def board_args(board):
    """['--board', B] when a board is given."""
    return ['--board', board] if board else []


def finish(module, result):
    """Ends the module: fail_json when `result` failed (findings), else exit_json."""
    if result.pop('failed', False):
        module.fail_json(**result)
    module.exit_json(**result)
