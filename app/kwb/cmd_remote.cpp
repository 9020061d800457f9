// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb remote install HOST`: a self-contained kwb onto an ssh destination (docs/remote.md).
#include "commands.h"
#include "remote_install.h"

#include <memory>

namespace kwb::cli {

void add_remote_command(CLI::App& app, Action& action)
{
    auto* remote = app.add_subcommand("remote", "kwb on other machines over ssh (docs/remote.md)");
    remote->require_subcommand(1);
    auto* install = remote->add_subcommand("install",
        "Copy a self-contained kwb (the program, the GPU plugin, the libraries they link, the report fonts) to "
        "HOST, check that it runs, and use it for kwb run --host HOST and kwb devices --host HOST from then on");
    auto o = std::make_shared<RemoteInstallOptions>();
    install->add_option("host", o->host, "The ssh destination (as your ssh understands it)")->required();
    install->add_option("--dir", o->dir,
        "Where on HOST (relative: under the remote home; default .local/share/kernel-workbench/kwb-VERSION)");
    install->add_flag("--json", o->json, "Print what was installed where as JSON");
    install->callback([&action, o] { action = [o] { return remote_install(*o); }; });

    auto* bundle = remote->add_subcommand("bundle",
        "Write the same self-contained kwb into a local folder, for a host ssh does not reach (copy it there "
        "and run DIR/bin/kwb)");
    auto dir = std::make_shared<std::string>();
    bundle->add_option("dir", *dir, "A folder that does not exist yet")->required();
    bundle->callback([&action, dir] { action = [dir] { return write_bundle(*dir); }; });
}

} // namespace kwb::cli
