// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

// The commit a commit arm runs (docs/git-arms.md), as plain data: the study's Arm holds it
// (schema 8, Arm::git) and study/git_arm.h reads and writes it. Before schema 8 it lived in the
// arm's environment as KWB_GIT_* (study_file.cpp's migration moves it); kwb still hands those
// variables to the program it runs, at launch (git_environment), so the program knows its commit.
namespace kwb {

struct Toolchain {
    std::string compiler; // first line of `${CXX:-c++} --version`
    std::string cuda; // nvcc's release line; empty: no nvcc
    std::string driver; // the NVIDIA driver version; empty: none here

    bool operator==(const Toolchain&) const = default;
};

struct GitArm {
    std::string repo; // the repository's top level, absolute
    std::string ref; // as given ("HEAD~1", "main", "WORKTREE")
    std::string sha; // the full commit id; for WORKTREE, HEAD's
    std::string diff_sha256; // WORKTREE only: sha256 of `git diff --binary HEAD` when kwb new ran
    std::string build; // the build command, run by /bin/sh -c in the worktree
    Toolchain toolchain;

    bool operator==(const GitArm&) const = default;
};

} // namespace kwb
