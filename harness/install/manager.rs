//! The package managers installs are made with: npm (the machine's) for
//! `npm view`, `npm pack`, and `npm ci` of a pinned tool or of a pin with
//! only an npm lockfile; pnpm (pinned in `node-probe/pnpm/`, itself from
//! the npm registry with `npm ci`) for `@mastra/core` installs, every one
//! linked from the cache's one store (`store`).
//!
//! In: an install folder, what to run there. Out: `CommandSpec`s with the
//! settings every install gets: no package script ever runs
//! (`--ignore-scripts` and its environment twin), the package managers'
//! state stays inside the cache, and each command ends at the install
//! timeout or when the run is stopped.

use crate::install::layout::{lock_digest, FsError, InstallError, Installs, Tool, COMPLETE};
use crate::observe::proc::CommandSpec;
use std::path::{Path, PathBuf};

impl Installs {
    /// `npm ARGS` in `dir`.
    pub fn npm(&self, args: &[&str], dir: &Path) -> CommandSpec {
        // Installs must not pick up a user's npmrc scripts setting; the
        // cache itself may be shared.
        CommandSpec::new("npm")
            .args(args.iter().copied())
            .dir(dir)
            .timeout(self.install_timeout)
            .cancel_on(self.cancel.clone())
            .env("npm_config_ignore_scripts", "true")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false")
    }

    /// The pnpm binary: `MASTRA_CONFORM_PNPM` when set (the fault suite's
    /// stand-in), else the pinned one from `node-probe/pnpm/`, installed
    /// from the npm registry into the cache with `npm ci`.
    pub fn pnpm(&self) -> Result<PathBuf, InstallError> {
        if let Some(p) = std::env::var_os("MASTRA_CONFORM_PNPM") {
            return Ok(PathBuf::from(p));
        }
        Ok(pnpm_binary_in(&self.npm_tool(Tool::Pnpm, "pnpm")?))
    }

    /// Biome, pinned in `node-probe/biome/` and installed as pnpm is:
    /// `make check` formats and lints the JavaScript with it. Its launcher
    /// runs on the `node` of PATH.
    pub fn biome(&self) -> Result<PathBuf, InstallError> {
        Ok(self
            .npm_tool(Tool::Biome, "biome")?
            .join("node_modules/.bin/biome"))
    }

    /// The project loader's tools, pinned in `node-probe/esbuild/` and
    /// installed as pnpm is: esbuild (which bundles a project's TypeScript
    /// where Node's type stripping cannot run it) and @babel/parser (which
    /// finds where each key is written). The folder whose `node_modules`
    /// holds them.
    pub fn esbuild(&self) -> Result<PathBuf, InstallError> {
        self.npm_tool(Tool::Esbuild, "esbuild")
    }

    /// The tool folder `node-probe/NAME/` (a manifest and its npm
    /// lockfile), installed from the npm registry into the cache once,
    /// with `npm ci`.
    fn npm_tool(&self, tool: Tool, name: &str) -> Result<PathBuf, InstallError> {
        let src = self.probe_dir.join(name);
        let digest = lock_digest(&src)
            .ok_or_else(|| InstallError::NoLockfile(src.join("package-lock.json")))?;
        let dir = self.tool_dir(tool, &digest);
        if !dir.join(COMPLETE).is_file() {
            let binary = |d: &Path| match tool {
                Tool::Pnpm => pnpm_binary_in(d),
                _ => d.join("node_modules/.bin").join(name),
            };
            self.install_npm_locked(&src, &dir, |tmp| says_version(&binary(tmp), tmp))?;
        }
        Ok(dir)
    }

    /// Install a tool folder of `node-probe/` (the pinned Node, pnpm, Biome) into
    /// `dir` with `npm ci` from its committed lockfile, which checks every
    /// package's integrity.
    /// `check` runs on the filled folder before its marker is written: the
    /// marker means the tool runs, not only that npm exited 0.
    pub fn install_npm_locked(
        &self,
        src: &Path,
        dir: &Path,
        check: impl FnOnce(&Path) -> Result<(), InstallError>,
    ) -> Result<(), InstallError> {
        self.install_atomically(dir, "", |tmp| {
            for file in ["package.json", "package-lock.json"] {
                std::fs::copy(src.join(file), tmp.join(file))
                    .map_err(|e| FsError::new("copy", &src.join(file), e))?;
            }
            self.npm(&["ci", "--ignore-scripts"], tmp).run_capture()?;
            check(tmp)
        })
        .map(drop)
    }
}

/// The settings every install gets, in its `pnpm-workspace.yaml`.
pub fn workspace_settings(store: &Path, metadata: &Path) -> String {
    // minimumReleaseAge: pnpm 12 waits a day before it installs a new
    // release; npm does not, and a harness asked for `latest` must not
    // either. The isolated linker is pnpm's default and Node's ESM
    // resolution follows its links (checked on 1.0.4 to 1.71.0).
    format!(
        "# Written by mastra-conform for this install.\n\
         storeDir: {}\n\
         cacheDir: {}\n\
         packageImportMethod: hardlink\n\
         nodeLinker: isolated\n\
         minimumReleaseAge: 0\n\
         ignoreScripts: true\n",
        yaml_str(store),
        yaml_str(metadata)
    )
}

fn yaml_str(p: &Path) -> String {
    let s = p.display().to_string();
    format!("'{}'", s.replace('\'', "''"))
}

/// The CPU as npm's platform packages name it (`x64`, `arm64`): the pinned
/// Node and pnpm are such packages.
pub fn npm_arch() -> String {
    std::env::consts::ARCH
        .replace("x86_64", "x64")
        .replace("aarch64", "arm64")
}

/// The pnpm binary inside the pinned tool install.
/// Whether `binary --version` runs and prints something: the check of a
/// pinned tool before its install is marked complete (`install` names the
/// install in the error).
pub fn says_version(binary: &Path, install: &Path) -> Result<(), InstallError> {
    let out = CommandSpec::new(binary)
        .arg("--version")
        .timeout(std::time::Duration::from_secs(60))
        .run_capture()
        .map_err(|e| InstallError::Unverified {
            dir: install.to_path_buf(),
            what: format!("{} --version: {e}", binary.display()),
        })?;
    if String::from_utf8_lossy(&out.stdout).trim().is_empty() {
        return Err(InstallError::Unverified {
            dir: install.to_path_buf(),
            what: format!("{} --version printed nothing", binary.display()),
        });
    }
    Ok(())
}

pub fn pnpm_binary_in(tool_dir: &Path) -> PathBuf {
    tool_dir
        .join("node_modules")
        .join("@pnpm")
        .join(format!("exe.linux-{}", npm_arch()))
        .join("pnpm")
}

/// `pnpm ARGS` in `dir`, with pnpm's own state kept in `home`.
pub fn pnpm_command(pnpm: &Path, dir: &Path, home: &Path, args: &[&str]) -> CommandSpec {
    xdg_home(
        CommandSpec::new(pnpm).args(args.iter().copied()).dir(dir),
        home,
    )
    .env("npm_config_ignore_scripts", "true")
}

/// `c` with every XDG folder at `home`: pnpm keeps state and metadata
/// there, so with `home` inside the cache a run leaves nothing in the
/// user's home.
pub fn xdg_home(mut c: CommandSpec, home: &Path) -> CommandSpec {
    let home = home.to_string_lossy();
    for var in [
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CONFIG_HOME",
    ] {
        c = c.env(var, &home);
    }
    c
}

/// `pnpm install` in `dir`, running no package script; frozen to its
/// lockfile (which checks every tarball's integrity) when it has one.
pub fn install_args(frozen: bool) -> Vec<&'static str> {
    let mut args = vec!["install", "--ignore-scripts", "--reporter=append-only"];
    if frozen {
        args.push("--frozen-lockfile");
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_quote_paths_for_yaml() {
        let s = workspace_settings(Path::new("/c/it's/store"), Path::new("/c/meta"));
        assert!(s.contains("storeDir: '/c/it''s/store'\n"), "{s}");
        assert!(s.contains("minimumReleaseAge: 0\n"));
        assert!(s.contains("ignoreScripts: true\n"));
    }

    #[test]
    fn a_pinned_install_is_frozen_and_none_runs_scripts() {
        assert_eq!(
            install_args(true),
            [
                "install",
                "--ignore-scripts",
                "--reporter=append-only",
                "--frozen-lockfile"
            ]
        );
        assert!(!install_args(false).contains(&"--frozen-lockfile"));
    }
}
