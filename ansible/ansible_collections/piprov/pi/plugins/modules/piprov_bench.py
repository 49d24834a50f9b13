#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: piprov_bench
short_description: Benchmark a node's storage with piprov bench
description:
  - Runs C(piprov bench --json TARGET...) on the node and returns piprov's report (IOPS, MiB/s,
    latency percentiles per test and target).
  - A directory target gets a test file that is removed afterwards; raw devices and existing files
    are written only with I(destructive) (never a mounted or system disk, piprov refuses those).
  - C(changed) is always false. A target failing mid-run is exit 3; the result then holds what finished.
version_added: "1.0.0"
author:
  - piprov developers (@piprov)
extends_documentation_fragment:
  - piprov.pi.piprov
options:
  targets:
    description: Directories on mounted file systems, files or block devices to measure, side by side.
    type: list
    elements: str
    required: true
  profile:
    description:
      - The set of tests (docs/bench.md). C(pi) 4M sequential and 4k sync random reads and writes, SD vs
        USB SSD; C(sync-write) 4k fsync writes at 1, 8 and 20 jobs; C(throughput) 256k random writes,
        deep queue; C(quick) C(pi) at 5 s each; C(agnostics) Raspberry Pi's SD card test, PASS or FAIL
        per target (a FAIL fails the task, like findings).
    type: str
    choices: [pi, sync-write, throughput, quick, agnostics]
    default: pi
  only:
    description: Run only these tests of the profile (e.g. C(seq-read), C(rand-write)).
    type: list
    elements: str
    default: []
  runtime:
    description: Seconds measured per test (overrides the profile).
    type: float
  ramp:
    description: Seconds run before measuring, per test (overrides the profile).
    type: float
  size:
    description: Bytes of each target to use (C(256M), C(1G)).
    type: str
  destructive:
    description: Allow write tests on a block device or an existing file.
    type: bool
    default: false
  extra_args:
    description: More C(piprov bench) options, as a list (e.g. C([--engine, psync])).
    type: list
    elements: str
    default: []
notes:
  - Check mode is supported. A non-destructive run leaves nothing behind and runs in check mode
    too; with I(destructive) nothing is run in check mode.
'''

EXAMPLES = r'''
- name: Compare the node's USB SSD and microSD card
  piprov.pi.piprov_bench:
    targets: [/mnt/ssd, /mnt/sd]
    profile: quick
  register: bench

- name: Raw device, sync writes
  piprov.pi.piprov_bench:
    targets: [/dev/sda]
    profile: sync-write
    destructive: true
'''

RETURN = r'''
rc:
  description: piprov's exit code.
  returned: always
  type: int
cmd:
  description: The command run.
  returned: always
  type: list
  elements: str
result:
  description: piprov's C(bench --json) report (C("piprov_bench"), docs/bench.md).
  returned: when piprov printed a result
  type: dict
stderr:
  description: piprov's log output.
  returned: always
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.piprov.pi.plugins.module_utils.piprov import BENCH_PROFILES, COMMON_ARGS, finish, run_piprov


def bench_args(p):
    args = ['bench', '--no-progress', '--profile', p['profile']]
    if p['only']:
        args += ['--only', ','.join(p['only'])]
    for opt in ('runtime', 'ramp', 'size'):
        if p[opt] is not None:
            args += ['--' + opt, str(p[opt])]
    if p['destructive']:
        args.append('--destructive')
    return args + list(p['extra_args']) + list(p['targets'])


def main():
    spec = dict(
        targets=dict(type='list', elements='str', required=True),
        profile=dict(type='str', choices=BENCH_PROFILES, default='pi'),
        only=dict(type='list', elements='str', default=[]),
        runtime=dict(type='float'),
        ramp=dict(type='float'),
        size=dict(type='str'),
        destructive=dict(type='bool', default=False),
        extra_args=dict(type='list', elements='str', default=[]),
    )
    spec.update(COMMON_ARGS)
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    args = bench_args(p)
    if module.check_mode and p['destructive']:
        module.exit_json(changed=False, skipped=True, cmd=[p['piprov']] + args + ['--json'],
                         msg='check mode: a destructive bench is not run')
    finish(module, run_piprov(module, 'bench', args)[2])


if __name__ == '__main__':
    main()
