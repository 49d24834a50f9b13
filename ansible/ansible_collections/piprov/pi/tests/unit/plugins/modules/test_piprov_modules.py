# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The modules against a fake piprov: arguments passed, exit-code mapping
(0 ok, 1 findings -> failed with findings, other -> failed with the code's
meaning and piprov's error line), changed/ok, check mode."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

from ansible_collections.piprov.pi.plugins.module_utils.piprov import BENCH_PROFILES, EXIT_CODES, WANT_BOOT_MODES
from ansible_collections.piprov.pi.plugins.modules import (
    piprov_bench, piprov_boot_check, piprov_boot_patch, piprov_eeprom_check)

FINDING_ERR = dict(rule='kernel-missing', severity='error', line=3, key='kernel',
                   message='vmlinux does not exist', fix='piprov boot patch /boot/firmware', source='')
FINDING_INFO = dict(rule='firmware', severity='info', line=None, key=None, message='start4.elf of 2022-08-26',
                    fix='', source='')


def check_doc(findings, exit_code):
    errors = sum(1 for f in findings if f['severity'] == 'error')
    infos = sum(1 for f in findings if f['severity'] == 'info')
    return {'schema': 'piprov.boot.check/5', 'ok': exit_code == 0, 'findings': findings,
            'layout': {'id': 'ubuntu-direct', 'release': '24.04'},
            'summary': {'errors': errors, 'warnings': 0, 'infos': infos, 'exit_code': exit_code}}


def test_boot_check_ok_passes_the_options(piprov, run_module):
    piprov.answer(0, check_doc([FINDING_INFO], 0))
    r = run_module(piprov_boot_check, dict(boot_dir='/b', root_dir='/r', board='pi5', usb_id=['152d:0578'],
                                           piprov=str(piprov.path)))
    assert piprov.calls() == [['boot', 'check', '/b', '--root', '/r', '--board', 'pi5', '--usb-id', '152d:0578',
                               '--json']]
    assert not r.get('failed')
    assert r['changed'] is False
    assert r['rc'] == 0
    assert r['findings'] == [FINDING_INFO]
    assert r['summary']['infos'] == 1
    assert r['result']['layout']['id'] == 'ubuntu-direct'


def test_boot_check_findings_fail_with_the_findings(piprov, run_module):
    piprov.answer(1, check_doc([FINDING_ERR, FINDING_INFO], 1))
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['failed'] is True
    assert r['rc'] == 1
    assert r['changed'] is False
    assert r['findings'][0]['rule'] == 'kernel-missing'
    assert 'found problems: 1 error(s), 0 warning(s), 1 info' in r['msg']
    assert 'kernel-missing: vmlinux does not exist' in r['msg']
    assert piprov.calls() == [['boot', 'check', '/b', '--json']]


def test_usage_error_fails_with_piprovs_error_line(piprov, run_module):
    piprov.answer(2, '', 'warning: something\npiprov: error: /b: no config.txt here (is this a boot partition?)\n')
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['failed'] is True
    assert r['rc'] == 2
    assert r['msg'] == 'piprov boot check failed (exit 2: usage error): piprov: error: /b: no config.txt here ' \
                       '(is this a boot partition?)'
    assert 'findings' not in r


def test_io_error_exit_3_fails(piprov, run_module):
    piprov.answer(3, '', 'piprov: error: cannot read /b/config.txt: Permission denied (EACCES)\n')
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['failed'] is True and r['rc'] == 3
    assert r['msg'].startswith('piprov boot check failed (exit 3: I/O or device error): ')
    assert 'EACCES' in r['msg']


def test_every_exit_code_of_piprov_has_its_meaning_in_the_message(piprov, run_module):
    for rc, meaning in EXIT_CODES.items():
        if rc in (0, 1):
            continue
        piprov.answer(rc, '', 'piprov: error: something\n')
        r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
        assert r['failed'] is True and r['rc'] == rc
        assert r['msg'] == 'piprov boot check failed (exit %d: %s): piprov: error: something' % (rc, meaning)
    assert EXIT_CODES[5] == 'some targets failed, the others were written'
    piprov.answer(7, '', 'piprov: error: what\n')
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['msg'] == 'piprov boot check failed (exit 7: unknown exit code): piprov: error: what'


def test_exit_0_without_json_fails(piprov, run_module):
    piprov.answer(0, 'boot check: OK\n')
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['failed'] is True
    assert 'printed no JSON' in r['msg']


def test_missing_binary_fails(tmp_path, run_module):
    r = run_module(piprov_boot_check, dict(boot_dir='/b', piprov=str(tmp_path / 'no-such-piprov')))
    assert r['failed'] is True


def patch_doc(changed, dry_run):
    return {'schema': 'piprov.boot.patch/1', 'boot_dir': '/b', 'root_dir': None, 'dry_run': dry_run,
            'changed': changed, 'actions': ['write vmlinux'] if changed else [],
            'config_diff': '--- config.txt\n+++ config.txt\n-kernel=uboot_rpi_4.bin\n+kernel=vmlinux\n'
            if changed else '', 'cmdline_diff': '', 'notes': []}


def test_boot_patch_changed_then_ok(piprov, run_module):
    piprov.answer(0, patch_doc(True, False))
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', root_dir='/r', piprov=str(piprov.path)))
    assert r['changed'] is True
    assert r['actions'] == ['write vmlinux']
    assert '+kernel=vmlinux' in r['diff']['prepared']
    piprov.answer(0, patch_doc(False, False))
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', root_dir='/r', piprov=str(piprov.path)))
    assert r['changed'] is False
    assert not r.get('failed')
    assert 'diff' not in r
    assert piprov.calls() == [['boot', 'patch', '/b', '--root', '/r', '--json']] * 2


def test_boot_patch_v2_summary_sentence_is_the_message(piprov, run_module):
    doc = patch_doc(False, False)
    doc.update(schema='piprov.boot.patch/2', layout={'id': 'ubuntu-direct', 'release': 'Ubuntu 24.04'},
               summary='nothing to do: Ubuntu 24.04 boots from USB as shipped')
    piprov.answer(0, doc)
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['changed'] is False and not r.get('failed')
    assert r['msg'] == 'piprov boot patch: ok (nothing to do: Ubuntu 24.04 boots from USB as shipped)'
    assert r['result']['layout']['id'] == 'ubuntu-direct'


def test_boot_patch_check_mode_is_a_dry_run(piprov, run_module):
    piprov.answer(0, patch_doc(True, True))
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', seed_settings=True, uas_quirk=['174c:55aa'],
                                           piprov=str(piprov.path)), check_mode=True)
    assert piprov.calls() == [['boot', 'patch', '/b', '--seed-settings', '--uas-quirk', '174c:55aa', '--dry-run',
                               '--json']]
    assert r['changed'] is True
    piprov.answer(0, patch_doc(False, True))
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', piprov=str(piprov.path)), check_mode=True)
    assert r['changed'] is False


def test_boot_patch_verify_failure_fails(piprov, run_module):
    piprov.answer(4, '', 'piprov: error: /b/vmlinuz: not a gzip kernel (config.txt not changed)\n')
    r = run_module(piprov_boot_patch, dict(boot_dir='/b', piprov=str(piprov.path)))
    assert r['failed'] is True and r['rc'] == 4
    assert r['changed'] is False
    assert 'config.txt not changed' in r['msg']


def eeprom_doc(exit_code):
    f = dict(rule='boot-order-missing-mode', severity='error', line=3, key='BOOT_ORDER',
             message='BOOT_ORDER=0x1 never tries USB mass storage (4)', fix='set BOOT_ORDER=0xf14', source='')
    return {'schema': 'piprov.eeprom.check/1', 'board': 'pi4', 'boot_order': {'value': '0x1'},
            'findings': [f] if exit_code else [],
            'summary': {'errors': 1 if exit_code else 0, 'warnings': 0, 'infos': 0, 'strict': False,
                        'exit_code': exit_code}}


def test_eeprom_check_config_file(piprov, run_module):
    piprov.answer(0, eeprom_doc(0))
    r = run_module(piprov_eeprom_check, dict(config_file='/c.txt', board='pi4', piprov=str(piprov.path)))
    assert piprov.calls() == [['eeprom', 'check', '/c.txt', '--board', 'pi4', '--json']]
    assert not r.get('failed')
    assert r['result']['boot_order']['value'] == '0x1'


def test_eeprom_check_image_strict_and_findings(piprov, run_module):
    piprov.answer(1, eeprom_doc(1))
    r = run_module(piprov_eeprom_check, dict(image='/pieeprom.bin', want='nvme', strict=True,
                                             piprov=str(piprov.path)))
    assert piprov.calls() == [['eeprom', 'check', '--image', '/pieeprom.bin', '--want', 'nvme', '--strict',
                               '--json']]
    assert r['failed'] is True
    assert 'boot-order-missing-mode' in r['msg']
    assert r['summary']['errors'] == 1


def test_eeprom_check_live_not_a_pi(piprov, run_module):
    piprov.answer(2, '', 'piprov: error: --live: this is not a Raspberry Pi 4 or 5 (no /proc/device-tree/model)\n')
    r = run_module(piprov_eeprom_check, dict(live=True, piprov=str(piprov.path)))
    assert piprov.calls() == [['eeprom', 'check', '--live', '--json']]
    assert r['failed'] is True and r['rc'] == 2
    assert 'not a Raspberry Pi' in r['msg']


def test_eeprom_check_want_is_passed_only_when_given(piprov, run_module):
    # Unset, piprov takes it from the board (a Pi 5 booting NVMe passes as on the command line).
    piprov.answer(0, eeprom_doc(0))
    run_module(piprov_eeprom_check, dict(config_file='/c.txt', board='pi5', piprov=str(piprov.path)))
    for want in WANT_BOOT_MODES:
        run_module(piprov_eeprom_check, dict(config_file='/c.txt', want=want, piprov=str(piprov.path)))
    assert piprov.calls() == [['eeprom', 'check', '/c.txt', '--board', 'pi5', '--json']] + [
        ['eeprom', 'check', '/c.txt', '--want', w, '--json'] for w in WANT_BOOT_MODES]


def test_eeprom_check_needs_exactly_one_source(piprov, run_module):
    r = run_module(piprov_eeprom_check, dict(config_file='/c', image='/i', piprov=str(piprov.path)))
    assert r['failed'] is True and 'mutually exclusive' in r['msg']
    r = run_module(piprov_eeprom_check, dict(piprov=str(piprov.path)))
    assert r['failed'] is True
    assert piprov.calls() == []


def bench_doc(error=''):
    return {'piprov_bench': 1, 'interrupted': False,
            'targets': [{'label': '/dev/loop9', 'path': '/dev/loop9', 'errno': 5 if error else 0, 'error': error,
                         'jobs': []}]}


def test_bench_options(piprov, run_module):
    piprov.answer(0, bench_doc())
    r = run_module(piprov_bench, dict(targets=['/dev/loop9', '/mnt/sd'], profile='quick', only=['seq-read',
                                      'rand-read'], runtime=0.5, ramp=0, size='16M', destructive=True,
                                      extra_args=['--engine', 'psync'], piprov=str(piprov.path)))
    assert piprov.calls() == [['bench', '--no-progress', '--profile', 'quick', '--only', 'seq-read,rand-read',
                               '--runtime', '0.5', '--ramp', '0.0', '--size', '16M', '--destructive', '--engine',
                               'psync', '/dev/loop9', '/mnt/sd', '--json']]
    assert r['changed'] is False and not r.get('failed')
    assert r['result']['targets'][0]['label'] == '/dev/loop9'


def test_bench_target_failure_keeps_the_partial_result(piprov, run_module):
    piprov.answer(3, bench_doc('Input/output error'), 'piprov: error: /dev/loop9: read: Input/output error (EIO)\n')
    r = run_module(piprov_bench, dict(targets=['/dev/loop9'], piprov=str(piprov.path)))
    assert r['failed'] is True and r['rc'] == 3
    assert 'EIO' in r['msg']
    assert r['result']['targets'][0]['error'] == 'Input/output error'


def test_bench_every_profile_is_passed(piprov, run_module):
    piprov.answer(0, bench_doc())
    for profile in BENCH_PROFILES:
        r = run_module(piprov_bench, dict(targets=['/mnt/sd'], profile=profile, piprov=str(piprov.path)))
        assert not r.get('failed')
    assert [c[3] for c in piprov.calls()] == BENCH_PROFILES
    assert 'agnostics' in BENCH_PROFILES


def test_bench_agnostics_fail_fails_naming_the_target_and_line(piprov, run_module):
    doc = bench_doc()
    doc['targets'][0]['agnostics'] = {'overall': 'FAIL', 'lines': [
        {'job': 'seq-write', 'what': 'Sequential write speed', 'unit': 'KiB/s', 'threshold': 10000,
         'measured': 25876, 'result': 'PASS'},
        {'job': 'rand-4k-write', 'what': 'Random write speed', 'unit': 'IOPS', 'threshold': 500,
         'measured': 163, 'result': 'FAIL'}]}
    piprov.answer(1, doc)
    r = run_module(piprov_bench, dict(targets=['/dev/loop9'], profile='agnostics', destructive=True,
                                      piprov=str(piprov.path)))
    assert r['failed'] is True and r['rc'] == 1
    assert r['msg'] == 'piprov bench found problems: first: /dev/loop9: agnostics FAIL: Random write speed 163 ' \
                       'IOPS (target 500)'
    assert r['result']['targets'][0]['agnostics']['overall'] == 'FAIL'


def test_bench_check_mode(piprov, run_module):
    r = run_module(piprov_bench, dict(targets=['/dev/loop9'], destructive=True, piprov=str(piprov.path)),
                   check_mode=True)
    assert piprov.calls() == []
    assert r['skipped'] is True and r['changed'] is False
    piprov.answer(0, bench_doc())
    r = run_module(piprov_bench, dict(targets=['/mnt/ssd'], piprov=str(piprov.path)), check_mode=True)
    assert len(piprov.calls()) == 1
    assert not r.get('failed')
