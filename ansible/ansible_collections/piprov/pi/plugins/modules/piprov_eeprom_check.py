#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: piprov_eeprom_check
short_description: Check a Raspberry Pi 4/5 bootloader EEPROM config with piprov eeprom check
description:
  - Runs C(piprov eeprom check --json) on the node, on a saved config (C(vcgencmd bootloader_config)
    output), a C(pieeprom.bin) image, or the running Pi's bootloader (I(live)).
  - Never changes anything. Fails when the check finds errors (with I(strict), also warnings); the
    findings are in the result either way. I(live) on a machine that is not a Pi is a usage error (exit 2).
version_added: "1.0.0"
author:
  - piprov developers (@piprov)
extends_documentation_fragment:
  - piprov.pi.piprov
  - piprov.pi.piprov.board
options:
  config_file:
    description: A bootloader config as C(vcgencmd bootloader_config) or C(rpi-eeprom-config) prints it.
    type: path
  image:
    description: A C(pieeprom.bin) bootloader image; its C(bootconf.txt) and build date are checked.
    type: path
  live:
    description: Check the running Pi's bootloader (C(vcgencmd bootloader_config)).
    type: bool
    default: false
  want:
    description:
      - The boot mode that BOOT_ORDER must try (C(none) turns that check off).
      - When omitted, piprov takes it from the board, as on its command line. C(usb) on a Pi 4B or
        Pi 400; on a CM4 and the Pi 5 family, the first of USB and NVMe that BOOT_ORDER tries.
    type: str
    choices: [usb, nvme, sd, network, none]
  strict:
    description: Fail on warnings too.
    type: bool
    default: false
notes:
  - Exactly one of I(config_file), I(image), I(live) is given.
  - Check mode is supported (the check is read-only).
'''

EXAMPLES = r'''
- name: Will this Pi boot from its USB SSD?
  piprov.pi.piprov_eeprom_check:
    live: true
    want: usb

- name: Check a saved config for a Pi 5 booting from NVMe
  piprov.pi.piprov_eeprom_check:
    config_file: /root/bootconf.txt
    board: pi5
    want: nvme
'''

RETURN = r'''
rc:
  description: piprov's exit code (0 ok, 1 findings).
  returned: always
  type: int
cmd:
  description: The command run.
  returned: always
  type: list
  elements: str
result:
  description: piprov's C(eeprom check --json) output (schema C(piprov.eeprom.check/1), docs/eeprom.md).
  returned: when piprov printed a result
  type: dict
findings:
  description: The findings (docs/findings.md).
  returned: when piprov printed a result
  type: list
  elements: dict
summary:
  description: Counts by severity, strict, and piprov's exit code.
  returned: when piprov printed a result
  type: dict
stderr:
  description: piprov's log output.
  returned: always
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.piprov.pi.plugins.module_utils.piprov import (
    BOARD_ARGS, COMMON_ARGS, WANT_BOOT_MODES, board_args, finish, run_piprov)


def main():
    spec = dict(
        config_file=dict(type='path'),
        image=dict(type='path'),
        live=dict(type='bool', default=False),
        want=dict(type='str', choices=WANT_BOOT_MODES),
        strict=dict(type='bool', default=False),
    )
    spec.update(BOARD_ARGS)
    spec.update(COMMON_ARGS)
    module = AnsibleModule(
        argument_spec=spec,
        supports_check_mode=True,
        mutually_exclusive=[('config_file', 'image', 'live')],
        required_one_of=[('config_file', 'image', 'live')],
    )
    p = module.params
    if p['live'] is False and not p['config_file'] and not p['image']:
        module.fail_json(msg='one of config_file, image or live=true is required')
    args = ['eeprom', 'check']
    if p['config_file']:
        args.append(p['config_file'])
    if p['image']:
        args += ['--image', p['image']]
    if p['live']:
        args.append('--live')
    args += board_args(p['board'])
    if p['want']:
        args += ['--want', p['want']]
    if p['strict']:
        args.append('--strict')
    finish(module, run_piprov(module, 'eeprom check', args)[2])


if __name__ == '__main__':
    main()
