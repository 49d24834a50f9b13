#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: piprov_boot_patch
short_description: Make a Raspberry Pi boot partition boot from USB with piprov boot patch
description:
  - Runs C(piprov boot patch BOOT_DIR --json) on the node.
  - piprov changes only what the layout needs (Ubuntu 20.04's U-Boot chain gets the USB-boot
    fix; layouts that boot from USB as shipped are left alone) and a second run changes no byte,
    so the module is idempotent. C(changed) is piprov's own C(changed).
  - In check mode the module runs C(piprov boot patch --dry-run) and reports whether it would
    change something, with piprov's diff of config.txt and cmdline.txt.
  - Exit 4 (vmlinuz cannot be decoded) fails the task, and nothing is changed then.
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
    description: The root file system (on a Pi C(/)); piprov installs its apt hook there.
    type: path
  seed_settings:
    description: Also set the optional Pi 4 USB-boot settings (gpu_mem=16, max_framebuffers=2, boot_delay=1, vc4-fkms-v3d).
    type: bool
    default: false
  uas_quirk:
    description: USB IDs (C(VID:PID)) to give C(usb-storage.quirks=VID:PID:u) in cmdline.txt.
    type: list
    elements: str
    default: []
notes:
  - Check mode is supported (C(--dry-run)); diff mode shows piprov's config.txt diff.
'''

EXAMPLES = r'''
- name: Make the Pi 4 keep booting from its USB SSD
  piprov.pi.piprov_boot_patch:
    boot_dir: /boot/firmware
    root_dir: /

- name: What would change?
  piprov.pi.piprov_boot_patch:
    boot_dir: /media/system-boot
  check_mode: true
  register: plan
'''

RETURN = r'''
changed:
  description: Whether piprov changed (in check mode, would change) a file.
  returned: always
  type: bool
rc:
  description: piprov's exit code.
  returned: always
  type: int
cmd:
  description: The command run.
  returned: always
  type: list
  elements: str
actions:
  description: piprov's list of file actions.
  returned: success
  type: list
  elements: str
diff:
  description: config.txt and cmdline.txt as unified diffs (C(prepared)).
  returned: when something changes or would change
  type: dict
result:
  description: piprov's C(boot patch --json) output (schema C(piprov.boot.patch/2), docs/boot.md).
  returned: success
  type: dict
stderr:
  description: piprov's log output.
  returned: always
  type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.piprov.pi.plugins.module_utils.piprov import (
    BOARD_ARGS, COMMON_ARGS, board_args, finish, run_piprov)


def patch_args(p, dry_run):
    args = ['boot', 'patch', p['boot_dir']]
    if p['root_dir']:
        args += ['--root', p['root_dir']]
    args += board_args(p['board'])
    if p['seed_settings']:
        args.append('--seed-settings')
    for usb_id in p['uas_quirk']:
        args += ['--uas-quirk', usb_id]
    if dry_run:
        args.append('--dry-run')
    return args


def main():
    spec = dict(
        boot_dir=dict(type='path', default='/boot/firmware'),
        root_dir=dict(type='path'),
        seed_settings=dict(type='bool', default=False),
        uas_quirk=dict(type='list', elements='str', default=[]),
    )
    spec.update(BOARD_ARGS)
    spec.update(COMMON_ARGS)
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    doc, result = run_piprov(module, 'boot patch', patch_args(module.params, module.check_mode))[1:]
    result['changed'] = bool(doc.get('changed'))
    result['actions'] = doc.get('actions', [])
    diffs = [d for d in (doc.get('config_diff'), doc.get('cmdline_diff')) if d]
    if result['changed'] and diffs:
        result['diff'] = dict(prepared='\n'.join(diffs))
    finish(module, result)


if __name__ == '__main__':
    main()
