# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run piprov with --json and turn its result into module output, and the
vocabularies the modules share with piprov's command line.

Results go to stdout as JSON, the error line ("piprov: error: ...") to
stderr. The lists below are piprov's own (`piprov --help` and each command's
--help); the collection's tests compare them with the built piprov
(tests/integration/fleet/module_vocabulary.sh), so a board, profile, boot
mode or exit code added to piprov fails that test until it is added here.
The modules' documentation lists the same choices, and ansible-test's
validate-modules checks that the documentation and these lists agree.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json

# --board of boot check, boot patch, eeprom check.
BOARDS = ['pi4', 'pi400', 'cm4', 'pi5', 'pi500', 'cm5']
# bench --profile.
BENCH_PROFILES = ['pi', 'sync-write', 'throughput', 'quick', 'agnostics']
# eeprom check --want (omitted: piprov takes it from the board).
WANT_BOOT_MODES = ['usb', 'nvme', 'sd', 'network', 'none']

# piprov's exit codes and what each means (piprov --help, docs/findings.md).
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_CODES = {
    0: 'ok',
    1: 'the check found problems',
    2: 'usage error',
    3: 'I/O or device error',
    4: 'verification failed',
    5: 'some targets failed, the others were written',
    130: 'interrupted',
}

# Options every piprov module takes (merged into each argument_spec); documented
# once in the doc fragment piprov.pi.piprov.
COMMON_ARGS = dict(
    piprov=dict(type='path', default='piprov'),
)

# The board option (doc fragment piprov.pi.piprov.board).
BOARD_ARGS = dict(
    board=dict(type='str', choices=BOARDS),
)


def exit_meaning(rc):
    """'I/O or device error' for 3; 'unknown exit code' for a code piprov does not document."""
    return EXIT_CODES.get(rc, 'unknown exit code')


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
    """'rule: message' of the first error, else of the first warning; for a bench report, the
    first target whose agnostics verdict is FAIL and its first failed line; '' when none."""
    findings = doc.get('findings') or []
    for severity in ('error', 'warning'):
        for f in findings:
            if f.get('severity') == severity:
                return '%s: %s' % (f.get('rule'), f.get('message'))
    for t in doc.get('targets') or []:
        agnostics = t.get('agnostics') or {}
        if agnostics.get('overall') == 'FAIL':
            lines = [line for line in agnostics.get('lines') or [] if line.get('result') == 'FAIL']
            what = ''
            if lines:
                what = ': %s %s %s (target %s)' % (lines[0].get('what'), lines[0].get('measured'),
                                                   lines[0].get('unit'), lines[0].get('threshold'))
            return '%s: agnostics FAIL%s' % (t.get('label'), what)
    return ''


def run_piprov(module, what, args):
    """Runs `piprov ARGS --json` and returns (rc, doc, result).

    `what` names the command in messages ("boot check"). `result` is the
    module's return dict: changed False, rc, cmd, stderr, `result` (piprov's
    JSON) and, for findings reports, `findings` and `summary`. Exit 0 returns;
    exit 1 (findings; bench: an agnostics FAIL) returns with result['failed']
    = True and a msg naming the first problem; any other exit code (2 usage,
    3 I/O, 4 verify, 5 some targets failed and the others were written, 130
    interrupted), or no JSON on 0/1, ends the module with fail_json, the
    code's meaning and piprov's error line as msg, and piprov's result when
    it printed one (what finished).
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
        module.fail_json(msg='piprov %s failed (exit %d: %s): %s' % (what, rc, exit_meaning(rc), error_line(err, out)),
                         **result)
    if doc is None:
        module.fail_json(msg='piprov %s printed no JSON result (exit %d): %s' % (what, rc, error_line(err, out)),
                         **result)
    if rc == EXIT_FINDINGS:
        result['failed'] = True
        first = first_failing(doc)
        problems = '; '.join(p for p in (summary_text(doc), 'first: ' + first if first else '') if p)
        result['msg'] = 'piprov %s found problems%s' % (what, ': ' + problems if problems else '')
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
