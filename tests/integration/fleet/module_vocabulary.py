#!/usr/bin/python3
# The piprov.pi collection's vocabularies (plugins/module_utils/piprov.py:
# BOARDS, BENCH_PROFILES, WANT_BOOT_MODES, EXIT_CODES) are piprov's own: each
# list equals the choices the built piprov's --help prints, in its order, and
# every exit code and its meaning equal `piprov --help`'s "Exit codes:" line.
# A board, profile, boot mode or exit code added to piprov fails this test
# until the collection has it (validate-modules then holds the modules'
# documentation to the same lists).
# Usage: module_vocabulary.py PIPROV_BIN SOURCE_DIR
import importlib.util
import re
import subprocess
import sys

name = 'module_vocabulary'
piprov, source = sys.argv[1], sys.argv[2]
utils_path = source + '/ansible/ansible_collections/piprov/pi/plugins/module_utils/piprov.py'
spec = importlib.util.spec_from_file_location('piprov_module_utils', utils_path)
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
failures = []


def help_text(*command):
    r = subprocess.run([piprov, *command, '--help'], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit('%s: FAIL: piprov %s --help exited %d: %s' % (name, ' '.join(command), r.returncode, r.stderr))
    return r.stdout


def option_choices(text, option):
    """The choices --help lists for OPTION: "a | b (what) | c", "(a|b|c)" or CLI11's ":{a,b,c}"."""
    for line in text.splitlines():
        m = re.match(r'^\s*(?:-\w,)?' + re.escape(option) + r'(\s\S*)?\s{2,}(.*)$', line)
        if not m:
            continue
        signature, desc = m.group(1) or '', m.group(2)
        listed = re.search(r':\{([^}]*)\}', signature)
        if listed:
            return listed.group(1).split(',')
        # Each choice is a word, maybe followed by a parenthesis, before a '|'; the last one follows the last '|'.
        words = re.findall(r'([a-z][a-z0-9-]*)(?:\s*\([^)]*\))?\s*\|', desc)
        last = re.search(r'\|\s*([a-z][a-z0-9-]*)[^|]*$', desc)
        return words + ([last.group(1)] if last else [])
    failures.append('%s is not in this --help:\n%s' % (option, text))
    return []


def expect(what, listed, ours, where):
    if listed != ours:
        failures.append('%s: piprov %s lists %s; module_utils/piprov.py has %s' % (what, where, listed, ours))


for command in (('boot', 'check'), ('boot', 'patch'), ('eeprom', 'check')):
    expect('BOARDS', option_choices(help_text(*command), '--board'), utils.BOARDS, ' '.join(command) + ' --board')
expect('BENCH_PROFILES', option_choices(help_text('bench'), '--profile'), utils.BENCH_PROFILES, 'bench --profile')
expect('WANT_BOOT_MODES', option_choices(help_text('eeprom', 'check'), '--want'), utils.WANT_BOOT_MODES,
       'eeprom check --want')

main_help = help_text()
m = re.search(r'^Exit codes:(.*?)(?:\n\s*\n|\Z)', main_help, re.S | re.M)
if not m:
    failures.append('no "Exit codes:" paragraph in piprov --help:\n' + main_help)
else:
    codes = {}
    for part in ' '.join(m.group(1).split()).rstrip('.').split(';'):
        code, _, meaning = part.strip().partition(' ')
        codes[int(code)] = meaning
    expect('EXIT_CODES', codes, utils.EXIT_CODES, '--help "Exit codes:"')

if failures:
    print('\n'.join('%s: FAIL: %s' % (name, f) for f in failures), file=sys.stderr)
    sys.exit(1)
print('%s: OK (%d boards, %d bench profiles, %d boot modes, %d exit codes as piprov --help lists them)' % (
    name, len(utils.BOARDS), len(utils.BENCH_PROFILES), len(utils.WANT_BOOT_MODES), len(utils.EXIT_CODES)))
