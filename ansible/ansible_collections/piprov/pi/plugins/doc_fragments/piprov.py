# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every piprov.pi module documents alike, said once.

extends_documentation_fragment:
  - piprov.pi.piprov        the piprov option, the requirement, how exit codes map to the task
  - piprov.pi.piprov.board  the board option (boot check, boot patch, eeprom check)

The choices here are module_utils/piprov.py's lists (BOARDS); validate-modules
checks that documentation and argument_spec agree.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):

    DOCUMENTATION = r'''
options:
  piprov:
    description:
      - The piprov binary on the node, a path or a name looked up in C(PATH).
    type: path
    default: piprov
requirements:
  - piprov on the node (role piprov.pi.install)
notes:
  - piprov's exit code decides the task's result, as on the command line (C(piprov --help)).
    0 ok. 1, the check found problems (for M(piprov.pi.piprov_bench), a target failed Raspberry Pi's
    SD card test of profile C(agnostics)), fails the task with piprov's result and the first problem
    in C(msg). 2 usage error, 3 I/O or device error, 4 verification failed, 5 some targets failed and
    the others were written, 130 interrupted fail the task with the code's meaning and piprov's error
    line in C(msg), and piprov's result when it printed one (what finished).
'''

    BOARD = r'''
options:
  board:
    description:
      - The Raspberry Pi model the boot partition or bootloader config is for; C(pi4), C(pi400), C(cm4)
        (BCM2711) or C(pi5), C(pi500), C(cm5) (BCM2712).
      - When omitted, piprov decides as on its command line. C(boot check) and C(eeprom check) take the
        Pi they run on (its device tree), C(eeprom check) of an I(image) the image's chip, else C(pi4).
        C(boot patch) then applies a layout's Pi 4 fix without asking; given a Pi 5 family board, it
        refuses a layout that only the Pi 4 fix would make bootable.
    type: str
    choices: [pi4, pi400, cm4, pi5, pi500, cm5]
'''
