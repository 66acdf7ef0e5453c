// How the project loader (project.mjs) gets a project's TypeScript into Node.
//
// Two ways, the first where it is enough:
//
//   node      Node's own type stripping, with extensionless and directory
//             relative imports resolved as a bundler would (`./x` ->
//             `./x.ts`, `./x/index.ts`, `./x.js` -> `./x.ts`): every file
//             stays itself, so `import.meta.url` is its own.
//   esbuild   the project's own files bundled into one ES module by the
//             pinned esbuild, as Mastra's own tooling does (`mastra dev`
//             bundles the project before it runs it): enums, namespaces,
//             decorators, a type imported without `import type`, tsconfig
//             `paths`, JSON imports and CommonJS files of the project all
//             work. Packages under node_modules stay outside the bundle,
//             imported by their resolved path, so the project's own
//             @mastra/core is the one that runs; a linked workspace package
//             (not under node_modules) is bundled like the project's files.
//             The bundle is served to Node from memory under the entry's own
//             URL, so nothing is written anywhere.

import { existsSync, statSync } from 'node:fs';
import { registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TS_EXTENSIONS = ['.ts', '.mts', '.tsx', '.js', '.mjs'];

function resolveLikeABundler(specifier, parentURL) {
  if (!parentURL?.startsWith('file:') || !(specifier.startsWith('./') || specifier.startsWith('../'))) return null;
  const base = fileURLToPath(new URL(specifier, parentURL));
  const candidates = [];
  if (/\.(c|m)?js$/.test(base)) candidates.push(base.replace(/js$/, 'ts'));
  for (const ext of TS_EXTENSIONS) candidates.push(base + ext);
  for (const ext of TS_EXTENSIONS) candidates.push(path.join(base, `index${ext}`));
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  return hit ? pathToFileURL(hit).href : null;
}

/** The `node` way: relative imports resolved as a bundler would. */
export function registerBundlerResolution() {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (e) {
        if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw e;
        const url = resolveLikeABundler(specifier, context.parentURL);
        if (!url) throw e;
        return { url, shortCircuit: true };
      }
    },
  });
}

/** A problem esbuild found in the project, as `file:line:col: text`. */
function describe(message, projectDir) {
  const l = message.location;
  const where = l ? `${path.relative(projectDir, path.resolve(projectDir, l.file))}:${l.line}:${l.column + 1}: ` : '';
  return `${where}${message.text}`;
}

/**
 * The `esbuild` way: bundle ENTRY's own files (packages stay outside, by
 * their resolved path) and serve the result as ENTRY's URL. Returns that
 * URL, or throws { missing, text } for an import that resolves to nothing
 * and { text } for code esbuild cannot read.
 */
export async function bundleEntry(esbuild, projectDir, entry) {
  const outside = {
    name: 'mastra-conform-packages-outside',
    setup(build) {
      build.onResolve({ filter: /^[^./]|^\.[^./]|^\.\.[^/]/ }, async (args) => {
        if (args.pluginData?.inner || args.path.startsWith('node:')) return undefined;
        const r = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { inner: true },
        });
        if (r.errors.length > 0) {
          return { errors: r.errors.map((e) => ({ ...e, detail: { missing: args.path } })) };
        }
        if (r.external || r.path.split(path.sep).includes('node_modules')) {
          return { path: r.external ? args.path : r.path, external: true };
        }
        return r;
      });
    },
  };
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: projectDir,
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [outside],
      // CommonJS files of the project call require(); the bundle is a
      // module, where require has to be made.
      banner: {
        js: "import { createRequire as __mastraConformRequire } from 'node:module'; const require = __mastraConformRequire(import.meta.url);",
      },
    });
  } catch (e) {
    const first = e?.errors?.[0];
    if (!first) throw e;
    const missing = first.detail?.missing ?? null;
    return { error: { missing, text: describe(first, projectDir) } };
  } finally {
    await esbuild.stop?.();
  }
  const code = result.outputFiles[0].text;
  const url = `${pathToFileURL(entry).href}?mastra-conform=esbuild`;
  registerHooks({
    load(u, context, nextLoad) {
      if (u === url) return { format: 'module', source: code, shortCircuit: true };
      return nextLoad(u, context);
    },
  });
  // Errors thrown by the project point at its own files, not the bundle.
  process.setSourceMapsEnabled(true);
  return { url };
}
