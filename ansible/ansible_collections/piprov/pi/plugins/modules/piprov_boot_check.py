#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: piprov_boot_check
short_description: Check a Raspberry Pi boot partition with piprov boot check
description:
  - Runs C(piprov boot check BOOT_DIR --json) on the node and returns its result.
  - The check reads the boot partition (and, with I(root_dir), the root file system's apt hook)
    and reports findings on the kernel the firmware will load, whether it is fresh, config.txt
    and cmdline.txt problems, the boot layout.
  - Never changes anything (C(changed) is always false). Fails when the check finds problems
    (errors or warnings); the findings are in the result either way.
version_added: "1.0.0"
author:
  - piprov developers (@piprov)
extends_documentation_fragment:
  - piprov.pi.piprov
  - piprov.pi.piprov.board
options:
  boot_dir:
    description: The mounted boot partition (on a Pi C(/boot/firmware)).
    type: path
    default: /boot/firmware
  root_dir:
    description: The root file system the boot partition belongs to (on a Pi C(/)); the apt hook is checked there.
    type: path
  usb_id:
    description: USB IDs (C(VID:PID)) of the USB-SATA bridge the node boots from, checked against known UAS quirks.
    type: list
    elements: str
    default: []
notes:
  - Check mode is supported; the module runs the (read-only) check in check mode too.
'''

EXAMPLES = r'''
- name: Re-check the boot partition after a kernel update
  piprov.pi.piprov_boot_check:
    boot_dir: /boot/firmware
    root_dir: /
  register: boot

- name: Check an SSD's boot partition mounted on the workstation, for a Pi 5
  piprov.pi.piprov_boot_check:
    boot_dir: /media/system-boot
    root_dir: /media/writable
    board: pi5
'''

RETURN = r'''
rc:
  description: piprov's exit code (0 ok, 1 findings).
  returned: always
  type: int
  sample: 0
cmd:
  description: The command run.
  returned: always
  type: list
  elements: str
result:
  description: piprov's C(boot check --json) output (schema C(piprov.boot.check/5), docs/boot.md; C(/2) to C(/4) from older piprov).
  returned: when piprov printed a result
  type: dict
findings:
  description: The findings (rule, severity, line, key, message, fix, source; docs/findings.md).
  returned: when piprov printed a result
  type: list
  elements: dict
summary:
  description: Counts by severity and piprov's exit code.
  returned: when piprov printed a result
  type: dict
  sample: {"errors": 0, "warnings": 0, "infos": 2, "exit_code": 0}
stderr:
  description: piprov's log output.
  returned: always
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.piprov.pi.plugins.module_utils.piprov import (
    BOARD_ARGS, COMMON_ARGS, board_args, finish, run_piprov)


def main():
    spec = dict(
        boot_dir=dict(type='path', default='/boot/firmware'),
        root_dir=dict(type='path'),
        usb_id=dict(type='list', elements='str', default=[]),
    )
    spec.update(BOARD_ARGS)
    spec.update(COMMON_ARGS)
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    args = ['boot', 'check', p['boot_dir']]
    if p['root_dir']:
        args += ['--root', p['root_dir']]
    args += board_args(p['board'])
    for usb_id in p['usb_id']:
        args += ['--usb-id', usb_id]
    finish(module, run_piprov(module, 'boot check', args)[2])


if __name__ == '__main__':
    main()
