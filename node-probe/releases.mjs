// The release table: every behaviour of @mastra/core that changed at a
// release, with its first release and, where it ended, its last. Written
// from harness/model/releases.rs into releases.json beside this file
// (`mastra-conform changes --json`; a unit test there fails when the file is
// stale), so that the probe and the project loader decide by the model's own
// boundaries and need no Rust at run time.
//
// A version is judged as the release it says it is: `1.67.0-alpha.4` and
// `1.67.0+HASH` as 1.67.0. A snapshot build (`0.0.0-TAG-TIMESTAMP`) says
// none: it is judged as the release it was cut from, the first release
// heading of its CHANGELOG.md (as harness/versions/spec.rs
// `first_release_heading`), or null where it has none.

import { readFileSync } from 'node:fs';
import path from 'node:path';

const TABLE = JSON.parse(readFileSync(new URL('./releases.json', import.meta.url), 'utf8'));
const LINES = new Map(TABLE.boundaries.map((b) => [b.name, b]));

/** The line NAME of the table; a name it lacks is this code's fault. */
export function line(name) {
  const b = LINES.get(name);
  if (!b) throw new Error(`node-probe/releases.json has no line ${name}`);
  return b;
}

/** [MAJOR, MINOR, PATCH] of a version's release, or null. */
export function releaseParts(version) {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** Whether the release `version` has line NAME: from its first through its last. */
export function holds(name, version) {
  const b = line(name);
  const v = releaseParts(version);
  if (!v) return false;
  return compare(releaseParts(b.first), v) <= 0 && (b.last === undefined || compare(v, releaseParts(b.last)) <= 0);
}

/** A snapshot build: 0.0.0 with a prerelease tag. */
export function isSnapshot(version) {
  return /^0\.0\.0-/.test(version ?? '');
}

/**
 * The release a package at `pkgDir` of `version` is judged as: its own, or
 * for a snapshot the first release heading of its CHANGELOG.md (a
 * prerelease heading as its release), or null when it has none.
 */
export function releaseOf(version, pkgDir) {
  if (!isSnapshot(version)) return releaseParts(version) ? version : null;
  let text;
  try {
    text = readFileSync(path.join(pkgDir, 'CHANGELOG.md'), 'utf8');
  } catch {
    return null;
  }
  for (const l of text.split('\n')) {
    if (!l.startsWith('## ')) continue;
    const heading = l.slice(3).trim().split(/\s+/)[0];
    const parts = releaseParts(heading);
    if (parts && !isSnapshot(heading)) return parts.join('.');
  }
  return null;
}
