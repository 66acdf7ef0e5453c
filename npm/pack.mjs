// Packs the npm packages: the launcher (`mastra-conform`, with node-probe/)
// and one platform package carrying a built binary.
//
//   node npm/pack.mjs --out DIR [--launcher] [--platform OS-CPU --binary PATH]
//
// Each package is staged under DIR/stage/ (removed afterwards) with the version of Cargo.toml
// stamped in (the launcher's optionalDependencies too, so launcher and
// binaries always match), then `npm pack`ed into DIR. Prints the tarballs'
// paths, one a line. Runs on the Node that runs npm (18 or later).

import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

function usage(message) {
  process.stderr.write(
    `error: ${message}\nusage: node npm/pack.mjs --out DIR [--launcher] [--platform OS-CPU --binary PATH]\n`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return null;
  if (i + 1 >= args.length) usage(`${name} needs a value`);
  return args[i + 1];
};
const out = opt('--out') ?? usage('--out DIR is required');
const platform = opt('--platform');
const binary = opt('--binary');
const launcher = args.includes('--launcher');
if (!launcher && !platform) usage('nothing to pack: give --launcher and/or --platform');
if (platform && !binary) usage('--platform needs --binary PATH');
if (platform && !existsSync(path.join(here, 'platforms', platform, 'package.json'))) {
  usage(`--platform ${platform}: no npm/platforms/${platform}/package.json`);
}
if (binary && !existsSync(binary)) usage(`--binary ${binary} does not exist (cargo build --release first)`);

const version = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))?.[1];
if (!version) usage('Cargo.toml has no version');

const outDir = path.resolve(out);
const stageRoot = path.join(outDir, 'stage');
mkdirSync(stageRoot, { recursive: true });

function stamp(manifestPath) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.version = version;
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) manifest.optionalDependencies[name] = version;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

function pack(stage) {
  // npm pack prints the tarball's file name as its last line.
  const printed = execFileSync('npm', ['pack', '--pack-destination', outDir, '--loglevel', 'error'], {
    cwd: stage,
    encoding: 'utf8',
  });
  return path.join(outDir, printed.trim().split('\n').pop());
}

const tarballs = [];

if (launcher) {
  const stage = path.join(stageRoot, 'mastra-conform');
  rmSync(stage, { recursive: true, force: true });
  cpSync(path.join(here, 'mastra-conform'), stage, { recursive: true });
  // The scripts the binary drives, without the fault suite's test doubles
  // and the Biome that checks them.
  const probeDir = path.join(root, 'node-probe');
  const devOnly = new Set(['testing', 'biome', 'node_modules']);
  cpSync(probeDir, path.join(stage, 'node-probe'), {
    recursive: true,
    filter: (src) =>
      path
        .relative(probeDir, src)
        .split(path.sep)
        .every((part) => !devOnly.has(part)),
  });
  stamp(path.join(stage, 'package.json'));
  chmodSync(path.join(stage, 'bin', 'mastra-conform.js'), 0o755);
  tarballs.push(pack(stage));
}

if (platform) {
  const stage = path.join(stageRoot, platform);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'bin'), { recursive: true });
  cpSync(path.join(here, 'platforms', platform, 'package.json'), path.join(stage, 'package.json'));
  cpSync(binary, path.join(stage, 'bin', 'mastra-conform'));
  chmodSync(path.join(stage, 'bin', 'mastra-conform'), 0o755);
  stamp(path.join(stage, 'package.json'));
  tarballs.push(pack(stage));
}

// The staged copies were only a means to the tarballs.
rmSync(stageRoot, { recursive: true, force: true });
process.stdout.write(tarballs.map((t) => `${t}\n`).join(''));
