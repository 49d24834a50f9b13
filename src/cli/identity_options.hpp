#pragma once
// provision's first-boot identity options (--hostname, --user, --ssh-key,
// --password-hash, --timezone, --ip, --gateway, --dns, --wifi-ssid,
// --wifi-psk-file, --user-data, --network-config, --meta-data), added from
// one table bound to provision::IdentityOptions (src/provision/identity.hpp).
#include <CLI/CLI.hpp>

#include "provision/identity.hpp"

namespace piprov::cli {

/// Adds the identity options to `cmd` in the group "First-boot identity
/// (cloud-init)", bound to `opts` (which must outlive parsing).
void add_identity_options(CLI::App* cmd, provision::IdentityOptions& opts);

}  // namespace piprov::cli
