#!/usr/bin/env node
// The mastra-conform launcher: finds the binary that npm installed for this
// platform (the optional dependency @mastra-conform/OS-CPU, chosen by its
// `os` and `cpu` fields, as esbuild and Biome do) and runs it with this
// package's node-probe/ scripts, passing the arguments, stdio and exit
// status through unchanged.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const platform = `${process.platform}-${process.arch}`;
const pkg = `@mastra-conform/${platform}`;

function binaryPath() {
  try {
    return require.resolve(`${pkg}/bin/mastra-conform`);
  } catch {
    return null;
  }
}

const binary = process.env.MASTRA_CONFORM_BINARY || binaryPath();
if (!binary) {
  process.stderr.write(
    `error: mastra-conform has no binary for ${platform}: ${pkg} is not installed ` +
      '(npm skips optional dependencies with --no-optional or --omit=optional; ' +
      'supported: linux-x64, linux-arm64, darwin-x64, darwin-arm64)\n',
  );
  process.exit(3);
}

const env = { ...process.env };
// The Node scripts the binary drives (project loader, probes, pinned manifests).
env.MASTRA_CONFORM_PROBE_DIR = env.MASTRA_CONFORM_PROBE_DIR || path.join(__dirname, '..', 'node-probe');
// The Node running this launcher is the one the user chose; when it is new
// enough for @mastra/core 1.x (22.13) the binary uses it instead of
// downloading its pinned Node.
const [major, minor] = process.versions.node.split('.').map(Number);
if (!env.MASTRA_CONFORM_NODE && (major > 22 || (major === 22 && minor >= 13))) {
  env.MASTRA_CONFORM_NODE = process.execPath;
}

const child = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit', env });
if (child.error) {
  process.stderr.write(`error: cannot run ${binary}: ${child.error.message}\n`);
  process.exit(3);
}
if (child.signal) process.kill(process.pid, child.signal);
process.exit(child.status ?? 3);
