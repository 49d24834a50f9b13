# shellcheck shell=bash
# shellcheck disable=SC2154  # w, piprov, bt_user, bt_key, layouts: set by boot-test.sh; vm_timeout: boot-vm.sh
# The fleet steps of scripts/boot-test.sh (sourced by boot-test-steps.sh): the
# collection piprov.pi (ansible/) driven from this host with Debian's
# ansible-core over SSH against the nodes the lanes left running, as a user
# runs it against their Pis (docs/fleet.md):
#   inventory   the nodes that are up (host, SSH port, the provisioned user and
#               key, board), each with its bootloader config saved on the node
#               (a Pi's `vcgencmd bootloader_config` output; QEMU has none)
#   first run   site.yml: the role piprov.pi.install puts the arm64 .deb on
#               every node, then the playbook piprov.pi.fleet_report (boot
#               check --root /, eeprom check of the saved config, bench quick
#               of the second disk) prints one table; every node ok, focal's
#               vmlinux fresh after its kernel updates, the Pi 5 node clean
#   second run  the same site.yml after focal was broken on purpose (its path
#               unit stopped, a kernel written without apt: vmlinux stale):
#               changed=0 for every host, focal's row FAILED (vmlinux-stale)
#               and the play failed for focal alone
# PIPROV_BOOT_BREAK=vmlinux breaks focal before the first run: the run must
# then fail.

# fleet_node_board LAYOUT: the board a node stands for (pi5: the NVMe node).
fleet_node_board() { cat "$w/vm-$1/board"; }

# fleet_bootconf LAYOUT: the bootloader config of the node's Pi, as
# `vcgencmd bootloader_config` prints it: USB first on the USB-booting noble
# node, NVMe first on the Pi 5 (0xf416: NVMe, SD, USB, restart; rpi-eeprom
# issue 618), SD then USB on the others.
fleet_bootconf() {
  case $1 in
    pi5) printf '[all]\nBOOT_UART=1\nPOWER_OFF_ON_HALT=0\nBOOT_ORDER=0xf416\n' ;;
    noble) printf '[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=0\nBOOT_ORDER=0xf14\n' ;;
    *) printf '[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=0\nBOOT_ORDER=0xf41\n' ;;
  esac
}

# fleet_nodes: the layouts whose node is up (boot and identity passed), in $layouts' order.
fleet_nodes() {
  local l
  for l in $layouts; do [ -f "$w/vm-$l/up" ] && echo "$l"; done
  return 0
}

# fleet_inventory: $w/fleet/inventory.yml and site.yml, and each node's saved bootloader config.
fleet_inventory() {
  local f=$w/fleet l deb_file
  mkdir -p "$f"
  deb_file=$(get_deb) || return 1
  : > "$f/known_hosts"
  {
    echo "# The boot test's nodes: QEMU forwards each node's SSH port from 127.0.0.1."
    echo "pis:"
    echo "  hosts:"
    for l in $(fleet_nodes); do
      fleet_bootconf "$l" | vm_ssh "$w/vm-$l" "cat > bootconf.txt" || { echo "  cannot save bt-$l's bootloader config"; return 1; }
      printf '    bt-%s:\n      ansible_host: 127.0.0.1\n      ansible_port: %s\n      piprov_board: %s\n' \
        "$l" "$(cat "$w/vm-$l/port")" "$(fleet_node_board "$l")"
    done
    cat <<YAML
  vars:
    ansible_user: $bt_user
    ansible_ssh_private_key_file: $bt_key
    # Every node is 127.0.0.1 on its own port, with host keys made on first boot.
    ansible_ssh_common_args: -o UserKnownHostsFile=$f/known_hosts -o StrictHostKeyChecking=accept-new
    ansible_python_interpreter: /usr/bin/python3
    ansible_become: true
    piprov_root_dir: /
    piprov_eeprom_config: /home/$bt_user/bootconf.txt
    piprov_bench_targets: [/dev/disk/by-id/virtio-piprov-bench]
    piprov_bench_destructive: true
    # Short: the figures of an emulated disk under TCG say nothing of a Pi's.
    piprov_bench_runtime: 1
    piprov_bench_ramp: 0
    piprov_bench_size: 16M
YAML
  } > "$f/inventory.yml"
  cat > "$f/site.yml" <<YAML
---
- name: Install piprov on every node
  hosts: pis
  gather_facts: true
  gather_subset: ['!all', '!min', distribution]  # the role reads os_family
  roles:
    - role: piprov.pi.install
      vars:
        piprov_install_deb: $deb_file

- name: Check every node and print the fleet
  ansible.builtin.import_playbook: piprov.pi.fleet_report
YAML
  sed 's/^/  /' "$f/inventory.yml"
}

# fleet_play N: runs site.yml (run N), its output in $w/fleet/run-N.log; prints
# the report task and the recap; sets fleet_rc to ansible-playbook's exit code.
fleet_play() {
  local f=$w/fleet n=$1
  fleet_rc=0
  # SSH's connection timeout 60 s (Ansible's default, 10 s, is short for a VM
  # under TCG sharing the cores with four others); the run bounded as every wait.
  (export ANSIBLE_COLLECTIONS_PATH=$PWD/ansible && cd "$f" && ANSIBLE_HOME=$f/ansible-home ANSIBLE_PIPELINING=True \
    ANSIBLE_FORKS=8 ANSIBLE_TIMEOUT=60 ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False \
    timeout "$vm_timeout" ansible-playbook -i inventory.yml site.yml -e fleet_report_dir="$f/report" \
    -e fleet_report_piprov="$piprov") > "$f/run-$n.log" 2>&1 || fleet_rc=$?
  # Failed tasks (of a check, ignored, or of the run), the table and the recap.
  awk '/^TASK \[Show the report\]/ { on = 1 } /^PLAY \[Fail the nodes/ { on = 0 }
    /^PLAY RECAP/ { on = 1 } on || /^(fatal|failed): |UNREACHABLE/' "$f/run-$n.log" | cut -c1-400 | sed 's/^/  /'
  echo "  ansible-playbook exit $fleet_rc (its whole output: $f/run-$n.log)"
  local l
  for l in $(fleet_nodes); do
    kill -0 "$(cat "$w/vm-$l/qemu.pid")" 2>/dev/null || { echo "  bt-$l's QEMU has ended"; vm_console_tail "$w/vm-$l"; }
  done
}

# fleet_recap N HOST: HOST's recap counters of run N ("ok=.. changed=.. ...").
fleet_recap() { awk -v h="$2" '/^PLAY RECAP/ { on = 1; next } on && $1 == h { $1 = ""; $2 = ""; print }' "$w/fleet/run-$1.log" | xargs; }

# fleet_expect_recap N HOST CHANGED FAILED: HOST's changed= and failed= counters of run N.
fleet_expect_recap() {
  expect "$2 in run $1's recap" "$(fleet_recap "$1" "$2")" "changed=$3 unreachable=0 failed=$4 "
}

# fleet_json HOST CHECK FILTER: jq FILTER of HOST's fetched CHECK result (boot, eeprom, bench).
fleet_json() { jq -r "$3" "$w/fleet/report/results/$1.$2.json" 2>&1; }

# fleet_first: the first run: every node gets piprov and is reported ok.
fleet_first() {
  local l h rc=0 nodes
  nodes=$(fleet_nodes | xargs)
  [ "${PIPROV_BOOT_BREAK:-}" != vmlinux ] || [[ " $nodes " != *" focal "* ]] || fleet_break_focal || return 1
  fleet_play 1
  expect "ansible-playbook exit" "$fleet_rc" '^0$' || rc=1
  expect "report summary" "$(tail -n 1 "$w/fleet/report/report.txt")" "^report: $(wc -w <<<"$nodes") host\\(s\\), all ok\$" || rc=1
  for l in $nodes; do
    h=bt-$l
    expect "$h's row" "$(grep "^$h " "$w/fleet/report/report.txt")" "^$h +ok " || rc=1
    expect "$h's bench row" "$(grep "^$h " "$w/fleet/report/report.txt" | sed -n 2p)" \
      "^$h +/dev/[^ ]+( +[0-9]+(\\.[0-9]+)?){4}\$" || rc=1
    # The role copied the .deb and installed it: the first run changes each node.
    expect "$h in run 1's recap" "$(fleet_recap 1 "$h")" 'changed=[1-9][0-9]* unreachable=0 failed=0 ' || rc=1
    expect "$h: piprov installed" "$(vm_ssh "$w/vm-$l" 'dpkg-query -W -f "\${Status} \${Version}" piprov')" '^install ok installed ' || rc=1
  done
  case " $nodes " in *" focal "*)
    expect "bt-focal: layout" "$(fleet_json bt-focal boot .layout.id)" '^piprov$' || rc=1
    expect "bt-focal: vmlinux after the kernel updates" "$(fleet_json bt-focal boot .vmlinux_state)" '^fresh$' || rc=1 ;;
  esac
  case " $nodes " in *" resolute "*)
    expect "bt-resolute: layout" "$(fleet_json bt-resolute boot .layout.id)" '^ubuntu-ab$' || rc=1
    expect "bt-resolute: kernel" "$(fleet_json bt-resolute boot .layout.kernel)" '^current/vmlinuz$' || rc=1 ;;
  esac
  case " $nodes " in *" pi5 "*)
    expect "bt-pi5: boot check board, kernel" "$(fleet_json bt-pi5 boot '"\(.layout.board) \(.layout.kernel) \(.layout.initramfs)"')" \
      '^pi5 kernel_2712\.img initramfs_2712$' || rc=1
    expect "bt-pi5: boot check --board pi5 errors/warnings" "$(fleet_json bt-pi5 boot '"\(.summary.errors)/\(.summary.warnings)"')" '^0/0$' || rc=1
    expect "bt-pi5: eeprom check --board pi5 BOOT_ORDER, exit" \
      "$(fleet_json bt-pi5 eeprom '"\(.boot_order.value) \(.summary.exit_code)"')" '^0xf416 0$' || rc=1 ;;
  esac
  return $rc
}

# fleet_break_focal: focal's vmlinux made stale: the path unit stopped, then a
# new kernel build (the running one with a new build string) written to
# /boot/firmware/vmlinuz without apt, so the apt hook does not run either.
fleet_break_focal() {
  # shellcheck disable=SC2016  # expanded on the guest
  vm_ssh "$w/vm-focal" 'set -e
    sudo -n systemctl stop piprov-kernel-sync.path
    sudo -n sed "s/piprov-t02/piprov-t03/" "/boot/vmlinuz-$(uname -r)" | gzip -1 -n > /tmp/vmlinuz
    [ "$(stat -c %s /tmp/vmlinuz)" -gt 1000000 ]
    ! sudo -n cmp -s /tmp/vmlinuz /boot/firmware/vmlinuz
    sudo -n cp /tmp/vmlinuz /boot/firmware/vmlinuz.new
    sudo -n mv /boot/firmware/vmlinuz.new /boot/firmware/vmlinuz' || { echo "  cannot write focal's vmlinuz"; return 1; }
  echo "  bt-focal: piprov-kernel-sync.path stopped, /boot/firmware/vmlinuz replaced without apt"
}

# fleet_second: the second run, focal broken: nothing changes, focal alone fails.
fleet_second() {
  local l h rc=0 nodes n
  nodes=$(fleet_nodes | xargs)
  n=$(wc -w <<<"$nodes")
  fleet_play 2
  expect "localhost in run 2's recap" "$(fleet_recap 2 localhost)" 'changed=0 unreachable=0 failed=0 ' || rc=1
  if [[ " $nodes " != *" focal "* ]]; then
    expect "ansible-playbook exit" "$fleet_rc" '^0$' || rc=1
    for l in $nodes; do fleet_expect_recap 2 "bt-$l" 0 0 || rc=1; done
    return $rc
  fi
  expect "ansible-playbook exit (a host failed)" "$fleet_rc" '^2$' || rc=1
  for l in $nodes; do
    h=bt-$l
    if [ "$l" = focal ]; then
      fleet_expect_recap 2 "$h" 0 1 || rc=1
      expect "$h's row" "$(grep "^$h " "$w/fleet/report/report.txt" | sed -n 1p)" "^$h +FAILED .* boot check: vmlinux-stale: " || rc=1
      expect "$h: vmlinux" "$(fleet_json "$h" boot .vmlinux_state)" '^stale$' || rc=1
    else
      fleet_expect_recap 2 "$h" 0 0 || rc=1
      expect "$h's row" "$(grep "^$h " "$w/fleet/report/report.txt" | sed -n 1p)" "^$h +ok " || rc=1
    fi
  done
  expect "report summary" "$(tail -n 1 "$w/fleet/report/report.txt")" "^report: $n host\\(s\\), 1 failed: bt-focal\$" || rc=1
  return $rc
}

# fleet_focal_tools: the .deb's other commands on focal (installed by the role):
# devices lists the disks, eeprom check refuses an SD-only BOOT_ORDER (exit 1).
fleet_focal_tools() {
  local v=$w/vm-focal out rc=0
  out=$(vm_ssh "$v" 'sudo -n piprov devices') || { echo "  piprov devices failed"; return 1; }
  echo "$out" | sed 's/^/  /'
  expect "piprov devices lists the bench disk" "$out" 'vd[a-z]' || return 1
  vm_ssh "$v" 'printf "[all]\nBOOT_ORDER=0x1\n" > /tmp/bad.conf; piprov eeprom check /tmp/bad.conf --board pi4 >/dev/null' || rc=$?
  expect "eeprom check of BOOT_ORDER=0x1 (SD only) exit" "$rc" '^1$'
}

# fleet_stop: ends every node's QEMU (vm_stop), but the raspios node's when
# the keep steps run: they power it off (boot-test-keep.sh).
fleet_stop() {
  local l rc=0
  for l in $(fleet_nodes); do
    if [ "$l" = raspios ] && keep_enabled; then continue; fi
    vm_stop "$l" || rc=1
  done
  return $rc
}

layout_fleet() {
  local nodes
  nodes=$(fleet_nodes | xargs)
  [ -n "$nodes" ] || { echo "[fleet] no node is up: no Ansible run"; return 1; }
  echo "[fleet] nodes up: $nodes"
  step fleet "inventory of the nodes that are up" fleet_inventory || return 1
  local rc=0 keep_pid=
  # The keep steps on the raspios node start once the role has installed the
  # .deb there, and run beside the rest of the fleet (boot-test-keep.sh).
  if keep_enabled && [[ " $nodes " == *" raspios "* ]]; then
    mkdir -p "$w/keep"
    keep_on_node > "$w/keep/on-node.log" 2>&1 &
    keep_pid=$!
  fi
  if ! step fleet "ansible 1: install role, fleet report" fleet_first; then
    [ -z "$keep_pid" ] || wait "$keep_pid" || true
    fleet_stop
    return 1
  fi
  if [[ " $nodes " == *" focal "* ]]; then
    step fleet "focal: piprov devices, eeprom check" fleet_focal_tools || rc=1
    step fleet "focal broken: vmlinux stale" fleet_break_focal || rc=1
  fi
  step fleet "ansible 2: changed=0, focal fails alone" fleet_second || rc=1
  if [ -n "$keep_pid" ]; then
    wait "$keep_pid" || true
    echo "== keep steps on bt-raspios (ran beside the fleet's steps above):"
    cat "$w/keep/on-node.log"
  fi
  step fleet "stop the nodes" fleet_stop || rc=1
  return $rc
}
