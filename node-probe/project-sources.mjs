// Where a project writes its tool keys, read from its syntax trees, for the
// project loader (project.mjs).
//
// Every source file of the project (not node_modules, dotfolders or build
// output) is parsed with @babel/parser (the pinned copy in the loader's tools)
// before any of the project's code runs. From the trees come:
//
//   - the agents written as `new Agent({ ... })`, each with its `id` and
//     `name` literals and the binding it is assigned to;
//   - the MCP clients written as `new MCPClient({ servers: { ... } })`, with
//     where each server key is written;
//   - where a registered key is written: as a property key of the record
//     the agent's option holds (`tools`, `agents`, `workflows`), plain,
//     quoted, shorthand (`{ weatherTool }`), computed (`[weatherTool.id]`,
//     whose id literal is read through the binding) or inside a spread record
//     (`{ ...common }`), following bindings across the project's own imports;
//   - the inline suppressions (`// mastra-conform-ignore RULE`);
//   - what Node's type stripping cannot run (enums, namespaces, decorators,
//     parameter properties, a type imported without `import type`, a JSON
//     import without its attribute, a tsconfig `paths` alias), which sends the
//     load to esbuild instead.
//
// A location is only ever where the key or its string is written: a key that
// is built at run time, comes from another package, or is written in more
// places than one that the agent's own record cannot tell apart has none.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const FUNCTIONS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);
// The agent methods that run the model, 0.x's `VNext` and `Legacy` siblings too.
const RUN_METHODS = new Set(['generate', 'stream', 'generateVNext', 'streamVNext', 'generateLegacy', 'streamLegacy']);
const SOURCE_EXTENSIONS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'out', '.mastra', 'coverage']);
const RESOLVE_EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.js', '.mjs', '.jsx', '/index.ts', '/index.tsx', '/index.js'];

/**
 * An inline suppression: `mastra-conform-ignore [RULE[, RULE]] [-- why]`;
 * no rule named means every rule.
 */
const IGNORE = /mastra-conform-ignore(-next-line)?(?![\w-])([^\n]*)/;

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (entry.isFile() && SOURCE_EXTENSIONS.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function pluginsFor(file) {
  const decorators = 'decorators-legacy';
  if (/\.(ts|mts|cts)$/.test(file)) return ['typescript', decorators];
  if (file.endsWith('.tsx')) return ['typescript', 'jsx', decorators];
  return ['jsx', decorators];
}

/** Children of a node that are nodes, with the key they are under. */
function* children(node) {
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const v of value) if (v && typeof v.type === 'string') yield [key, v];
    } else if (value && typeof value.type === 'string') yield [key, value];
  }
}

/** Visit every node under `root` with its parent chain. */
function walk(root, visit, parents = []) {
  visit(root, parents);
  parents.push(root);
  for (const [, child] of children(root)) walk(child, visit, parents);
  parents.pop();
}

/** A property key's name when it is written as one: `k`, `'k'`, `1`. */
function staticKeyName(prop) {
  if (prop.computed) return literalString(prop.key);
  const k = prop.key;
  if (k.type === 'Identifier') return k.name;
  if (k.type === 'StringLiteral') return k.value;
  if (k.type === 'NumericLiteral') return String(k.value);
  return null;
}

/** The string a literal expression is: `'k'`, `` `k` `` without substitutions. */
function literalString(node) {
  if (!node) return null;
  if (node.type === 'StringLiteral') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked ?? null;
  return null;
}

/** Through the wrappers that do not change a value: parentheses, `as`, `satisfies`, `!`, `await`. */
function unwrap(node) {
  let n = node;
  while (
    n &&
    [
      'TSAsExpression',
      'TSSatisfiesExpression',
      'TSNonNullExpression',
      'TSTypeAssertion',
      'ParenthesizedExpression',
      'AwaitExpression',
    ].includes(n.type)
  ) {
    n = n.expression ?? n.argument;
  }
  return n;
}

function calleeName(node) {
  const c = node.callee;
  if (c?.type === 'Identifier') return c.name;
  if (c?.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier') return c.property.name;
  return null;
}

/** `{ key: value }` members of an object literal, by their written name. */
function propertyOf(object, name) {
  if (object?.type !== 'ObjectExpression') return null;
  for (const p of object.properties) {
    if ((p.type === 'ObjectProperty' || p.type === 'ObjectMethod') && staticKeyName(p) === name) return p;
  }
  return null;
}

/** Node types whose whole subtree is a type, never a value. */
const TYPE_ONLY = new Set(['TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'TSDeclareFunction', 'TSDeclareMethod']);
const TYPE_KEYS = new Set([
  'typeAnnotation',
  'returnType',
  'typeParameters',
  'typeArguments',
  'superTypeParameters',
  'superTypeArguments',
  'implements',
]);

/** What in one file Node's type stripping cannot run, as `reason at line`. */
function strippingObstacles(file, ast, aliases) {
  if (!/\.(ts|mts|cts|tsx)$/.test(file)) return [];
  const found = [];
  const at = (what, node) => found.push(`${what} (${node.loc.start.line}:${node.loc.start.column + 1})`);
  if (file.endsWith('.tsx')) found.push('JSX in a .tsx file');
  const valueRefs = new Set();
  const imported = [];
  const visit = (node, _parent, key) => {
    if (TYPE_ONLY.has(node.type) || node.declare === true || TYPE_KEYS.has(key)) return;
    switch (node.type) {
      case 'TSEnumDeclaration':
        at('an enum', node);
        break;
      case 'TSModuleDeclaration':
        at('a namespace', node);
        break;
      case 'TSParameterProperty':
        at('a parameter property', node);
        break;
      case 'TSImportEqualsDeclaration':
        if (node.importKind !== 'type') at('import = require', node);
        break;
      case 'TSExportAssignment':
        at('export =', node);
        break;
      case 'Decorator':
        at('a decorator', node);
        break;
      case 'ImportDeclaration': {
        const source = node.source.value;
        if (source.endsWith('.json') && !(node.attributes?.length || node.assertions?.length)) {
          at('a JSON import without `with { type: "json" }`', node);
        }
        if (aliases.some((a) => a.test(source))) at(`the tsconfig paths alias ${source}`, node);
        if (node.importKind !== 'type') {
          for (const s of node.specifiers) {
            if (s.importKind !== 'type') imported.push(s);
          }
        }
        return;
      }
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
        if (node.source && aliases.some((a) => a.test(node.source.value))) {
          at(`the tsconfig paths alias ${node.source.value}`, node);
        }
        break;
      case 'CallExpression':
        if (node.callee.type === 'Import' && aliases.some((a) => a.test(literalString(node.arguments[0]) ?? ''))) {
          at('a tsconfig paths alias', node);
        }
        break;
      case 'Identifier':
        valueRefs.add(node.name);
        break;
      case 'ObjectProperty':
      case 'ClassProperty':
      case 'ObjectMethod':
      case 'ClassMethod':
        if (node.computed) visit(node.key, node, 'key');
        for (const [k, c] of children(node)) if (k !== 'key') visit(c, node, k);
        return;
      case 'MemberExpression':
      case 'OptionalMemberExpression':
        visit(node.object, node, 'object');
        if (node.computed) visit(node.property, node, 'property');
        return;
      case 'TSAsExpression':
      case 'TSSatisfiesExpression':
      case 'TSNonNullExpression':
      case 'TSTypeAssertion':
      case 'TSInstantiationExpression':
        visit(node.expression, node, 'expression');
        return;
      default:
        if (node.type.startsWith('TS') && node.type.endsWith('Type')) return;
        if (node.type === 'TSTypeReference' || node.type === 'TSQualifiedName') return;
    }
    for (const [k, c] of children(node)) visit(c, node, k);
  };
  visit(ast.program, null, null);
  for (const s of imported) {
    // A binding used only as a type: type stripping keeps the import, and
    // the module it names may export no such value.
    if (!valueRefs.has(s.local.name)) at(`${s.local.name} imported without \`import type\``, s);
  }
  return found;
}

// JSON with comments and trailing commas (tsconfig's dialect) as JSON.
// Comments are found outside strings only: in `"@/*": ["./src/*"]` and
// `"include": ["src/**/*"]` the slash-stars are strings, not a comment.
function withoutComments(text) {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Each tsconfig `paths` pattern of the project as a RegExp over specifiers. */
function tsconfigAliases(projectDir) {
  const file = path.join(projectDir, 'tsconfig.json');
  if (!existsSync(file)) return [];
  let config;
  try {
    config = JSON.parse(withoutComments(readFileSync(file, 'utf8')));
  } catch {
    return [];
  }
  const options = config?.compilerOptions ?? {};
  // Targets are relative to baseUrl, or to the tsconfig's folder without one.
  const base = path.resolve(projectDir, typeof options.baseUrl === 'string' ? options.baseUrl : '.');
  return Object.entries(options.paths ?? {}).map(([pattern, targets]) => {
    const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '(.*)');
    const alias = new RegExp(`^${escaped}$`);
    // Where the alias leads, for finding the file an import names: each
    // target with the part `*` matched put in.
    alias.targetsOf = (source) => {
      const m = alias.exec(source);
      if (!m || !Array.isArray(targets)) return [];
      return targets.filter((t) => typeof t === 'string').map((t) => path.resolve(base, t.replace('*', m[1] ?? '')));
    };
    return alias;
  });
}

/** The source index of a project: parsed once, asked many times. */
export class SourceIndex {
  constructor(projectDir, parser) {
    this.projectDir = projectDir;
    this.aliases = tsconfigAliases(projectDir);
    this.files = [];
    this.unparsed = [];
    for (const file of sourceFiles(projectDir).sort()) {
      const text = readFileSync(file, 'utf8');
      try {
        const ast = parser.parse(text, {
          sourceType: 'unambiguous',
          plugins: pluginsFor(file),
          errorRecovery: true,
          allowAwaitOutsideFunction: true,
          allowReturnOutsideFunction: true,
          allowImportExportEverywhere: true,
        });
        this.files.push({ file, rel: path.relative(projectDir, file), ast, text });
      } catch (e) {
        this.unparsed.push(`${path.relative(projectDir, file)}: ${e.message}`);
      }
    }
    this.bindings = new Map();
    this.agents = [];
    this.mcpClients = [];
    this.suppressions = [];
    for (const f of this.files) this.#index(f);
  }

  #index(f) {
    f.imports = new Map();
    for (const node of f.ast.program.body) {
      if (node.type === 'ImportDeclaration') {
        for (const s of node.specifiers) {
          const imported = s.type === 'ImportSpecifier' ? (s.imported.name ?? s.imported.value) : 'default';
          f.imports.set(s.local.name, { source: node.source.value, imported, at: place(f, s) });
        }
      }
    }
    walk(f.ast.program, (node, parents) => {
      // Module-level bindings only: a function's locals are not a record's.
      if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init) {
        if (!parents.some((p) => FUNCTIONS.has(p.type)))
          this.bindings.set(`${f.file}\0${node.id.name}`, { file: f, init: node.init });
      }
      // A module-level function is bound to itself: a helper that asks an
      // MCP client for its tools, a function that returns the instructions.
      if (node.type === 'FunctionDeclaration' && node.id && !parents.some((p) => FUNCTIONS.has(p.type))) {
        this.bindings.set(`${f.file}\0${node.id.name}`, { file: f, init: node });
      }
      if (node.type === 'NewExpression' && node.arguments[0]?.type === 'ObjectExpression') {
        const name = calleeName(node);
        const binding = bindingNameOf(parents);
        if (name === 'Agent') this.agents.push({ file: f, object: node.arguments[0], binding });
        if (name === 'MCPClient') this.mcpClients.push({ file: f, object: node.arguments[0], binding });
      }
    });
    for (const c of f.ast.comments ?? []) {
      const m = IGNORE.exec(c.value);
      if (!m) continue;
      const rules = m[2]
        .split('--')[0]
        .replace(/\*\/.*$/, '')
        .split(/[\s,]+/)
        .filter(Boolean);
      const line = c.loc.start.line;
      // A comment alone on its line (or `-next-line`) covers the line below.
      f.lines ??= f.text.split('\n');
      const alone = f.lines[line - 1].trim().startsWith(c.type === 'CommentLine' ? '//' : '/*');
      const lines = m[1] || alone ? [line, line + 1] : [line];
      for (const l of lines) this.suppressions.push({ file: f.rel, line: l, rules: rules.length ? rules : null });
    }
  }

  /** What NAME in file F is bound to: its initialiser and file, across the project's own imports. */
  resolve(f, name, depth = 0) {
    if (depth > 8) return null;
    const own = this.bindings.get(`${f.file}\0${name}`);
    if (own) return own;
    const imp = f.imports?.get(name);
    if (!imp || imp.imported === 'default') return null;
    const target = this.#importedFile(f, imp.source);
    if (target) return this.resolve(target, imp.imported, depth + 1) ?? this.#reexported(target, imp.imported, depth);
    return null;
  }

  #reexported(f, name, depth) {
    for (const node of f.ast.program.body) {
      if (node.type === 'ExportNamedDeclaration' && node.source) {
        for (const s of node.specifiers) {
          if ((s.exported.name ?? s.exported.value) === name) {
            const target = this.#importedFile(f, node.source.value);
            const local = s.local?.name ?? name;
            if (target) return this.resolve(target, local, depth + 1);
          }
        }
      }
      if (node.type === 'ExportAllDeclaration') {
        const target = this.#importedFile(f, node.source.value);
        const hit = target && this.resolve(target, name, depth + 1);
        if (hit) return hit;
      }
    }
    return null;
  }

  /** The project's file an import of SOURCE in F names: a relative path, or a tsconfig `paths` alias. */
  #importedFile(f, source) {
    const targets = source.startsWith('.')
      ? [path.resolve(path.dirname(f.file), source)]
      : this.aliases.flatMap((a) => a.targetsOf(source));
    for (const base of targets) {
      const bases = [base, base.replace(/\.(c|m)?js$/, '.ts'), base.replace(/\.(c|m)?js$/, '.tsx')];
      for (const b of bases) {
        for (const ext of RESOLVE_EXTENSIONS) {
          const candidate = b + ext;
          const hit = this.files.find((x) => x.file === candidate);
          if (hit && existsSync(candidate) && statSync(candidate).isFile()) return hit;
        }
      }
    }
    return null;
  }

  /** The `new Agent({...})` literal an agent was made from, by its id, name or binding. */
  agentDefinition(agent) {
    const literal = (def, prop) => literalString(propertyOf(def.object, prop)?.value);
    const by = (pred) => this.agents.filter(pred);
    for (const hits of [
      agent.id ? by((d) => literal(d, 'id') === agent.id) : [],
      agent.name ? by((d) => literal(d, 'name') === agent.name) : [],
      by((d) => d.binding === agent.registeredAs),
    ]) {
      if (hits.length === 1) return hits[0];
    }
    return null;
  }

  /** Where the project imports NAME from a package (not its own files): `FILE:LINE:COL`, or null. */
  packageImportOf(name) {
    for (const f of this.files) {
      for (const imp of f.imports?.values() ?? []) {
        if (imp.imported === name && !imp.source.startsWith('.') && !this.aliases.some((a) => a.test(imp.source))) {
          return `${imp.at.file}:${imp.at.line}:${imp.at.column} (from '${imp.source}')`;
        }
      }
    }
    return null;
  }

  /** Where AGENT's option OPTION (`tools`, `agents`, `workflows`) writes KEY. */
  keyLocation(agent, option, key) {
    const def = this.agentDefinition(agent);
    if (def) {
      const prop = propertyOf(def.object, option);
      if (prop?.type === 'ObjectProperty') {
        const hit = this.#findKey(def.file, prop.value, key, 0);
        if (hit) return hit;
      }
    }
    // The agent's own record did not say: a key written once, in one
    // `OPTION: { ... }` record anywhere in the project that is not another
    // agent's, is that key.
    return this.#onlyWriting(agent, def, option, (f, value) => this.#findKey(f, value, key, 0));
  }

  /**
   * The one place FIND finds in the value of an `OPTION: ...` property
   * anywhere in the project but in another agent's literal, or null when it
   * finds none or more than one: the search every locator falls back on when
   * the agent's own literal does not say.
   */
  #onlyWriting(agent, def, option, find) {
    const others = new Set(this.agents.filter((d) => d !== def && !this.#couldBe(d, agent)).map((d) => d.object));
    const hits = [];
    for (const f of this.files) {
      walk(f.ast.program, (node, parents) => {
        if (node.type !== 'ObjectProperty' || staticKeyName(node) !== option) return;
        if (others.has(parents[parents.length - 1])) return;
        const hit = find(f, node.value);
        if (hit) hits.push(hit);
      });
    }
    const unique = new Map(hits.map((h) => [`${h.file}:${h.line}:${h.column}`, h]));
    return unique.size === 1 ? [...unique.values()][0] : null;
  }

  /** Whether a `new Agent({...})` literal may be AGENT's: no id or name literal says otherwise. */
  #couldBe(def, agent) {
    const id = literalString(propertyOf(def.object, 'id')?.value);
    const name = literalString(propertyOf(def.object, 'name')?.value);
    return (id === null || id === agent.id) && (name === null || name === agent.name);
  }

  /** Where an expression that evaluates to a record writes KEY. */
  #findKey(f, expr, key, depth) {
    if (depth > 6 || !expr) return null;
    const node = unwrap(expr);
    switch (node?.type) {
      case 'ObjectExpression':
        // The last writing of a key wins in JavaScript, and so here.
        for (const p of [...node.properties].reverse()) {
          if (p.type === 'SpreadElement') {
            const hit = this.#findKey(f, p.argument, key, depth + 1);
            if (hit) return hit;
            continue;
          }
          if (p.type !== 'ObjectProperty' && p.type !== 'ObjectMethod') continue;
          if (!p.computed && staticKeyName(p) === key) return place(f, p.key);
          // A computed key is written from its bracket: `[tool.id]`.
          if (p.computed && this.#computedKey(f, p.key, depth) === key) return place(f, p);
        }
        return null;
      case 'Identifier': {
        const b = this.resolve(f, node.name);
        return b ? this.#findKey(b.file, b.init, key, depth + 1) : null;
      }
      case 'ArrowFunctionExpression':
      case 'FunctionExpression':
      case 'FunctionDeclaration': {
        if (node.body.type !== 'BlockStatement') return this.#findKey(f, node.body, key, depth + 1);
        for (const ret of returns(node.body)) {
          const hit = this.#findKey(f, ret, key, depth + 1);
          if (hit) return hit;
        }
        return null;
      }
      case 'ConditionalExpression':
        return this.#findKey(f, node.consequent, key, depth + 1) ?? this.#findKey(f, node.alternate, key, depth + 1);
      case 'LogicalExpression':
        return this.#findKey(f, node.left, key, depth + 1) ?? this.#findKey(f, node.right, key, depth + 1);
      case 'CallExpression':
        // Object.assign({}, a, b): the later argument wins.
        if (calleeName(node) === 'assign') {
          for (const a of [...node.arguments].reverse()) {
            const hit = this.#findKey(f, a, key, depth + 1);
            if (hit) return hit;
          }
        }
        return null;
      default:
        return null;
    }
  }

  /** The value of a computed key when it can be read: a literal, a const, a tool's `id` or `name` literal. */
  #computedKey(f, keyNode, depth) {
    const node = unwrap(keyNode);
    const direct = literalString(node);
    if (direct !== null) return direct;
    if (node.type === 'Identifier') {
      const b = this.resolve(f, node.name);
      return b ? literalString(unwrap(b.init)) : null;
    }
    if (node.type === 'MemberExpression' && node.object.type === 'Identifier' && depth < 6) {
      const field = node.computed ? literalString(node.property) : node.property.name;
      const b = this.resolve(f, node.object.name);
      const made = b && unwrap(b.init);
      // createTool({ id: 'x' }), new Tool({ id }), or a plain { id: 'x' }.
      const object =
        made?.type === 'ObjectExpression'
          ? made
          : (made?.type === 'CallExpression' || made?.type === 'NewExpression') &&
              made.arguments[0]?.type === 'ObjectExpression'
            ? made.arguments[0]
            : null;
      return object ? literalString(propertyOf(object, field)?.value) : null;
    }
    return null;
  }

  /**
   * Where a string literal NAME is written under AGENT's default options
   * (the option OPTION: `defaultOptions`, or a 0.x core's
   * `defaultGenerateOptions` / `defaultVNextStreamOptions`), at PATH
   * (`toolChoice.toolName`, `activeTools[]`).
   */
  optionLocation(agent, pathInOptions, name, option = 'defaultOptions') {
    const def = this.agentDefinition(agent);
    const inOptions = (f, options) => {
      let node = unwrap(options);
      for (const step of pathInOptions) {
        if (!node) return null;
        if (step === '[]') {
          if (node.type !== 'ArrayExpression') return null;
          const el = node.elements.find((e) => literalString(e) === name);
          return el ? place(f, el) : null;
        }
        node = unwrap(propertyOf(node, step)?.value);
      }
      return literalString(node) === name ? place(f, node) : null;
    };
    const inAny = (f, options) => {
      for (const object of this.#objectsOf(f, options, 0)) {
        const hit = inOptions(object.file, object.node);
        if (hit) return hit;
      }
      return null;
    };
    if (def) {
      const options = propertyOf(def.object, option)?.value;
      const hit = options && inAny(def.file, options);
      if (hit) return hit;
    }
    return this.#onlyWriting(agent, def, option, inAny);
  }

  /**
   * The object literals an expression evaluates to, each with its file:
   * itself, through a binding, what a function returns, either branch of a
   * condition. Default options are written as an object or as a function
   * returning one.
   */
  #objectsOf(f, expr, depth) {
    const node = unwrap(expr);
    if (!node || depth > 6) return [];
    switch (node.type) {
      case 'ObjectExpression':
        return [{ file: f, node }];
      case 'Identifier': {
        const b = this.resolve(f, node.name);
        return b ? this.#objectsOf(b.file, b.init, depth + 1) : [];
      }
      case 'ArrowFunctionExpression':
      case 'FunctionExpression':
      case 'FunctionDeclaration':
        if (node.body.type !== 'BlockStatement') return this.#objectsOf(f, node.body, depth + 1);
        return returns(node.body).flatMap((r) => this.#objectsOf(f, r, depth + 1));
      case 'ConditionalExpression':
        return [...this.#objectsOf(f, node.consequent, depth + 1), ...this.#objectsOf(f, node.alternate, depth + 1)];
      case 'LogicalExpression':
        return [...this.#objectsOf(f, node.left, depth + 1), ...this.#objectsOf(f, node.right, depth + 1)];
      default:
        return [];
    }
  }

  /**
   * The `requireToolApproval` AGENT's default options (OPTION) hold, as
   * written: `{ at, file, value }` of the property, or null.
   */
  #policyProperty(agent, option) {
    const def = this.agentDefinition(agent);
    const inAny = (f, options) => {
      for (const object of this.#objectsOf(f, options, 0)) {
        const prop = propertyOf(object.node, 'requireToolApproval');
        if (prop) {
          const at = place(object.file, prop.key);
          return { ...at, property: { file: object.file, value: prop.type === 'ObjectMethod' ? prop : prop.value } };
        }
      }
      return null;
    };
    if (def) {
      const options = propertyOf(def.object, option)?.value;
      const hit = options && inAny(def.file, options);
      if (hit) return hit;
    }
    return this.#onlyWriting(agent, def, option, inAny);
  }

  /** Where AGENT's default options (OPTION) write `requireToolApproval`. */
  policyLocation(agent, option) {
    const hit = this.#policyProperty(agent, option);
    return hit && { file: hit.file, line: hit.line, column: hit.column };
  }

  /**
   * Where the approval policy of AGENT's OPTION writes the string NAME: in
   * the function itself, or in a module-level value it reads (a `Set`, an
   * array, a map), or null.
   */
  policyNameLocation(agent, option, name) {
    const hit = this.#policyProperty(agent, option);
    return hit ? this.#nameIn(hit.property, name) : null;
  }

  /** The `requireToolApproval` property of MCP server NAME in an MCPClient's `servers`, if one literal writes it. */
  #serverPolicyProperty(name) {
    const hits = [];
    for (const c of this.mcpClients) {
      const servers = unwrap(propertyOf(c.object, 'servers')?.value);
      if (servers?.type !== 'ObjectExpression') continue;
      for (const p of servers.properties) {
        if (p.type !== 'ObjectProperty' || staticKeyName(p) !== name) continue;
        const config = unwrap(p.value);
        const prop = config?.type === 'ObjectExpression' ? propertyOf(config, 'requireToolApproval') : null;
        if (prop) {
          const value = prop.type === 'ObjectMethod' ? prop : prop.value;
          hits.push({ ...place(c.file, prop.key), property: { file: c.file, value } });
        }
      }
    }
    return hits.length === 1 ? hits[0] : null;
  }

  /** Where MCP server NAME's own `requireToolApproval` is written. */
  serverPolicyLocation(name) {
    const hit = this.#serverPolicyProperty(name);
    return hit && { file: hit.file, line: hit.line, column: hit.column };
  }

  /** Where MCP server SERVER's own `requireToolApproval` writes the string NAME, as `policyNameLocation`. */
  serverPolicyNameLocation(server, name) {
    const hit = this.#serverPolicyProperty(server);
    return hit ? this.#nameIn(hit.property, name) : null;
  }

  /** Where the policy value PROPERTY ({ file, value }) writes the string NAME, following names it reads. */
  #nameIn(property, name) {
    let { file, value } = property;
    const seen = new Set();
    const search = (f, root, depth) => {
      let found = null;
      walk(root, (node) => {
        if (found) return;
        if (node.type === 'StringLiteral' && node.value === name) found = place(f, node);
        else if (node.type === 'TemplateLiteral' && literalString(node) === name) found = place(f, node);
        else if (node.type === 'Identifier' && depth < 4 && !seen.has(`${f.file}\0${node.name}`)) {
          seen.add(`${f.file}\0${node.name}`);
          const b = this.resolve(f, node.name);
          if (b) found = search(b.file, b.init, depth + 1);
        }
      });
      return found;
    };
    if (value?.type === 'Identifier') {
      const b = this.resolve(file, value.name);
      if (!b) return null;
      ({ file, init: value } = b);
    }
    return value ? search(file, value, 0) : null;
  }

  /**
   * Where AGENT's instructions TEXT is written: the string or template
   * literal (in `instructions`, through a binding or what a function
   * returns) whose text is TEXT, with `template` true when its lines are
   * the source's lines. Null when no literal is the whole text.
   */
  instructionsLocation(agent, text) {
    const def = this.agentDefinition(agent);
    const prop = def && propertyOf(def.object, 'instructions');
    if (!prop) return null;
    const seen = new Set();
    const find = (f, expr, depth) => {
      const node = unwrap(expr);
      if (!node || depth > 6) return null;
      if (literalString(node) === text) return { ...place(f, node), template: node.type === 'TemplateLiteral' };
      if (node.type === 'Identifier' && !seen.has(`${f.file}\0${node.name}`)) {
        seen.add(`${f.file}\0${node.name}`);
        const b = this.resolve(f, node.name);
        return b ? find(b.file, b.init, depth + 1) : null;
      }
      if (FUNCTIONS.has(node.type) && node.body) {
        const bodies = node.body.type === 'BlockStatement' ? returns(node.body) : [node.body];
        for (const r of bodies) {
          const hit = find(f, r, depth + 1);
          if (hit) return hit;
        }
      }
      if (node.type === 'ConditionalExpression') {
        return find(f, node.consequent, depth + 1) ?? find(f, node.alternate, depth + 1);
      }
      return null;
    };
    const value = prop.type === 'ObjectMethod' ? prop : prop.value;
    if (value.type === 'ObjectMethod') {
      for (const r of returns(value.body)) {
        const hit = find(def.file, r, 0);
        if (hit) return hit;
      }
      return null;
    }
    return find(def.file, value, 0);
  }

  /**
   * Every string the project's code compares a `toolName` with: `x.toolName
   * === 'k'` (and `==`, `!==`, `!=`), `switch (toolName) { case 'k': }`,
   * `['k'].includes(toolName)` and `SET.has(toolName)` over a literal
   * `Set` or array: `[{ name, at }]`, each at its string.
   */
  /**
   * The strings NODE of file F holds: a string written there, the strings
   * of an array or of a `new Set([...])`, or those of a name bound in the
   * same file; each at where it is written.
   */
  stringsIn(f, node, depth = 0) {
    const n = unwrap(node);
    if (!n || depth > 4) return [];
    const s = literalString(n);
    if (s !== null) return [{ name: s, at: place(f, n) }];
    if (n.type === 'ArrayExpression') return n.elements.flatMap((e) => (e ? this.stringsIn(f, e, depth + 1) : []));
    if (n.type === 'NewExpression' && calleeName(n) === 'Set') return this.stringsIn(f, n.arguments[0], depth + 1);
    if (n.type === 'Identifier') {
      const b = this.bindings.get(`${f.file}\0${n.name}`);
      return b && b.file === f ? this.stringsIn(f, b.init, depth + 1) : [];
    }
    return [];
  }

  toolNameComparisons() {
    const out = [];
    const isToolName = (node) => {
      const n = unwrap(node);
      if (n?.type === 'Identifier') return n.name === 'toolName';
      if ((n?.type === 'MemberExpression' || n?.type === 'OptionalMemberExpression') && !n.computed) {
        return n.property.type === 'Identifier' && n.property.name === 'toolName';
      }
      return false;
    };
    for (const f of this.files) {
      const strings = (node) => this.stringsIn(f, node);
      // A comparison or a case is with the string written there, not a binding's.
      const literal = (node) => {
        const n = unwrap(node);
        const s = literalString(n);
        return s === null ? [] : [{ name: s, at: place(f, n) }];
      };
      walk(f.ast.program, (node) => {
        if (node.type === 'BinaryExpression' && ['===', '==', '!==', '!='].includes(node.operator)) {
          if (isToolName(node.left)) out.push(...literal(node.right));
          else if (isToolName(node.right)) out.push(...literal(node.left));
        } else if (node.type === 'SwitchStatement' && isToolName(node.discriminant)) {
          for (const c of node.cases) if (c.test) out.push(...literal(c.test));
        } else if (
          (node.type === 'CallExpression' || node.type === 'OptionalCallExpression') &&
          ['includes', 'has'].includes(calleeName(node)) &&
          isToolName(node.arguments[0]) &&
          (node.callee.type === 'MemberExpression' || node.callee.type === 'OptionalMemberExpression')
        ) {
          out.push(...strings(node.callee.object));
        }
      });
    }
    return out;
  }

  /**
   * Each tool name the project's code hands a part of Mastra or the AI SDK
   * that compares it with the name a tool was called by, which is the name
   * it was sent under: `new ToolCallFilter({ exclude: [...] })` (it drops a
   * stored call whose `toolName` is listed), `hasToolCall('k')` in
   * `stopWhen` (the last step's calls' `toolName`), and
   * `createToolCallAccuracyScorerCode({ expectedTool, expectedToolOrder })`
   * (the `toolName`s of the run's tool invocations).
   * `[{ surface, name, at }]`, `surface` one of `toolCallFilter`,
   * `hasToolCall`, `expectedTool`; a list may be a literal or a name bound
   * to one in the same file.
   */
  sentNameUses() {
    const out = [];
    for (const f of this.files) {
      const strings = (node) => this.stringsIn(f, node);
      const option = (call, name) => propertyOf(unwrap(call.arguments[0]), name)?.value;
      const push = (surface, node) => {
        for (const u of strings(node)) out.push({ surface, ...u });
      };
      walk(f.ast.program, (node) => {
        const isCall = node.type === 'CallExpression' || node.type === 'OptionalCallExpression';
        if (node.type === 'NewExpression' && calleeName(node) === 'ToolCallFilter') {
          push('toolCallFilter', option(node, 'exclude'));
        } else if (isCall && calleeName(node) === 'hasToolCall') {
          push('hasToolCall', node.arguments[0]);
        } else if (isCall && calleeName(node) === 'createToolCallAccuracyScorerCode') {
          push('expectedTool', option(node, 'expectedTool'));
          push('expectedTool', option(node, 'expectedToolOrder'));
        }
      });
    }
    return out;
  }

  /**
   * Every `requireToolApproval` the project's code passes to a call of
   * `generate` or `stream` (and their 0.x `VNext` and `Legacy` siblings)
   * as a function or as `true`: `X.generate(p, { requireToolApproval: FN })`,
   * the options written in the call or bound to a module-level name in the
   * same file, FN a function written there or a name bound to one in the
   * same file. `[{ method, receiver, policy, agent, at }]`, at the
   * `requireToolApproval` key; `policy` is `function` or `always`; the
   * receiver is the callee's object when it is a name (`supportAgent`;
   * `mastra.getAgent('a')` gives none), and `agent` the registered agent
   * AGENT_OF finds for `{ object }` (the `new Agent({...})` literal the
   * name is bound to) or `{ key }` (`getAgent('KEY')`). The functions are
   * the policies a resumed run loses; the default options' are asked by
   * the walk instead (`approvalPolicies`).
   */
  approvalCalls(agentOf = () => null) {
    const out = [];
    this.#eachRunCall((f, node, bound) => {
      const c = node.callee;
      const isFunction = (prop) => prop.type === 'ObjectMethod' || FUNCTIONS.has(bound(prop.value)?.type);
      const isTrue = (prop) =>
        prop.type === 'ObjectProperty' && bound(prop.value)?.type === 'BooleanLiteral' && bound(prop.value).value;
      for (const arg of node.arguments) {
        const prop = propertyOf(bound(arg), 'requireToolApproval');
        if (!prop) continue;
        const policy = isFunction(prop) ? 'function' : isTrue(prop) ? 'always' : null;
        if (!policy) continue;
        const receiver = c.object.type === 'Identifier' ? c.object.name : null;
        const agent = agentOf(this.#calledAgent(f, c.object));
        out.push({ method: c.property.name, receiver, policy, agent, at: place(f, prop.key) });
      }
    });
    return out;
  }

  /**
   * Every MCP toolset the project's code passes to one call of `generate`
   * or `stream` (and their 0.x siblings): `X.generate(p, { toolsets: await
   * C.listToolsets() })`, the options written in the call or bound to a
   * module-level name in the same file, C a name bound to a `new
   * MCPClient({...})` (across the project's own imports). Mastra's docs
   * pass toolsets there. `[{ method, receiver, callee, at, servers,
   * toolChoice, activeTools }]`: `callee` as `#calledAgent` gives it, `at`
   * the `toolsets` key, `servers` the client's server keys, and the call's
   * own named `toolChoice` (`{ tool, at }`) and `activeTools` (`[{ name, at
   * }]`) literals, or null.
   */
  callToolsets() {
    const out = [];
    this.#eachRunCall((f, node, bound) => {
      const c = node.callee;
      for (const arg of node.arguments) {
        const options = bound(arg);
        const prop = propertyOf(options, 'toolsets');
        const servers = prop?.type === 'ObjectProperty' ? this.#listedToolsets(f, prop.value) : null;
        if (!servers) continue;
        const choice = unwrap(propertyOf(unwrap(propertyOf(options, 'toolChoice')?.value), 'toolName')?.value);
        const active = unwrap(propertyOf(options, 'activeTools')?.value);
        out.push({
          method: c.property.name,
          receiver: c.object.type === 'Identifier' ? c.object.name : null,
          callee: this.#calledAgent(f, c.object),
          at: place(f, prop.key),
          servers,
          toolChoice: literalString(choice) === null ? null : { tool: literalString(choice), at: place(f, choice) },
          activeTools:
            active?.type === 'ArrayExpression'
              ? active.elements
                  .filter((e) => literalString(e) !== null)
                  .map((e) => ({ name: literalString(e), at: place(f, e) }))
              : null,
        });
      }
    });
    return out;
  }

  /**
   * Calls VISIT(f, node, bound) for every call of `generate` or `stream`
   * (and their 0.x siblings) as `X.method(...)` in the project's files;
   * `bound` follows a name to the value it is bound to in the same file,
   * so options written in the call and options bound to a name read alike.
   */
  #eachRunCall(visit) {
    for (const f of this.files) {
      const bound = (node) => {
        const n = unwrap(node);
        if (n?.type !== 'Identifier') return n;
        const b = this.bindings.get(`${f.file}\0${n.name}`);
        return b && b.file === f ? unwrap(b.init) : null;
      };
      walk(f.ast.program, (node) => {
        if (node.type !== 'CallExpression' && node.type !== 'OptionalCallExpression') return;
        const c = node.callee;
        if ((c.type !== 'MemberExpression' && c.type !== 'OptionalMemberExpression') || c.computed) return;
        if (c.property.type !== 'Identifier' || !RUN_METHODS.has(c.property.name)) return;
        visit(f, node, bound);
      });
    }
  }

  /** The server keys of the MCPClient whose `listToolsets()` EXPR awaits, or null. */
  #listedToolsets(f, expr) {
    const call = unwrap(expr);
    if (call?.type !== 'CallExpression' || calleeName(call) !== 'listToolsets') return null;
    const object = unwrap(call.callee.object);
    if (object?.type !== 'Identifier') return null;
    const made = unwrap(this.resolve(f, object.name)?.init);
    const client = this.mcpClients.find((m) => m.object === made?.arguments?.[0]);
    if (!client) return null;
    const servers = unwrap(propertyOf(client.object, 'servers')?.value);
    return (servers?.properties ?? []).flatMap((p) => {
      const n = p.type === 'ObjectProperty' ? staticKeyName(p) : null;
      return n === null ? [] : [n];
    });
  }

  /**
   * What a call's callee object names as an agent: `{ object }`, the
   * `new Agent({...})` literal a name is bound to (across the project's own
   * imports), or `{ key }` for `X.getAgent('KEY')`; else `{}`.
   */
  #calledAgent(f, callee) {
    const n = unwrap(callee);
    if (n?.type === 'Identifier') {
      const made = unwrap(this.resolve(f, n.name)?.init);
      if (made?.type === 'NewExpression' && calleeName(made) === 'Agent') return { object: made.arguments[0] };
    }
    if ((n?.type === 'CallExpression' || n?.type === 'OptionalCallExpression') && calleeName(n) === 'getAgent') {
      const key = literalString(n.arguments[0]);
      if (key !== null) return { key };
    }
    return {};
  }

  /** Where the MCP server NAME is written as a key of an MCPClient's `servers`. */
  serverLocation(name) {
    const hits = [];
    for (const c of this.mcpClients) {
      const servers = unwrap(propertyOf(c.object, 'servers')?.value);
      if (servers?.type !== 'ObjectExpression') continue;
      for (const p of servers.properties) {
        if (p.type === 'ObjectProperty' && staticKeyName(p) === name) hits.push(place(c.file, p.key));
      }
    }
    return hits.length === 1 ? hits[0] : null;
  }

  /**
   * The MCP servers an agent's `tools` option asks for tools
   * (`await mcp.listTools()`, `...mcpTools`), by the MCPClient literals the
   * expression reaches: [server name].
   */
  serversOf(agent) {
    const def = this.agentDefinition(agent);
    const tools = def && propertyOf(def.object, 'tools');
    if (tools?.type !== 'ObjectProperty') return [];
    const clients = new Set();
    const seen = new Set();
    const visit = (f, expr, depth) => {
      if (!expr || depth > 6) return;
      walk(expr, (node) => {
        const inline = node.type === 'NewExpression' && this.mcpClients.find((c) => c.object === node.arguments[0]);
        if (inline) clients.add(inline);
        if (node.type !== 'Identifier' || seen.has(`${f.file}\0${node.name}`)) return;
        seen.add(`${f.file}\0${node.name}`);
        const b = this.resolve(f, node.name);
        if (!b) return;
        const made = unwrap(b.init);
        const client = this.mcpClients.find((c) => c.object === made?.arguments?.[0]);
        if (client) clients.add(client);
        else visit(b.file, b.init, depth + 1);
      });
    };
    visit(def.file, tools.value, 0);
    const names = [];
    for (const c of clients) {
      const servers = unwrap(propertyOf(c.object, 'servers')?.value);
      for (const p of servers?.properties ?? []) {
        const n = p.type === 'ObjectProperty' ? staticKeyName(p) : null;
        if (n !== null) names.push(n);
      }
    }
    return names;
  }

  /** Where the agent is defined: its `new Agent(` call's object. */
  agentLocation(agent) {
    const def = this.agentDefinition(agent);
    return def ? place(def.file, def.object) : null;
  }

  /**
   * Why Node's type stripping would not run the project from ENTRY, or
   * null: only the files the entry imports count (statically, or by a
   * literal `import()` or `require()`, through the project's own files and
   * tsconfig aliases), not a script or a route the entry never loads.
   */
  strippingObstacle(entry) {
    for (const f of this.#reachable(entry)) {
      const found = strippingObstacles(f.file, f.ast, this.aliases);
      if (found.length) return `${found[0]} in ${f.rel}`;
    }
    return null;
  }

  /** The project's files ENTRY imports, itself first, each once. */
  #reachable(entry) {
    const start = this.files.find((f) => f.file === entry);
    if (!start) return this.files;
    const out = [start];
    const seen = new Set([start]);
    for (let i = 0; i < out.length; i++) {
      const f = out[i];
      const sources = [];
      walk(f.ast.program, (node) => {
        if (
          (node.type === 'ImportDeclaration' ||
            node.type === 'ExportNamedDeclaration' ||
            node.type === 'ExportAllDeclaration') &&
          node.source
        ) {
          sources.push(node.source.value);
        } else if (node.type === 'ImportExpression') {
          const s = literalString(node.source);
          if (s !== null) sources.push(s);
        } else if (
          node.type === 'CallExpression' &&
          (node.callee.type === 'Import' || (node.callee.type === 'Identifier' && node.callee.name === 'require'))
        ) {
          const s = literalString(node.arguments[0]);
          if (s !== null) sources.push(s);
        }
      });
      for (const source of sources) {
        const target = this.#importedFile(f, source);
        if (target && !seen.has(target)) {
          seen.add(target);
          out.push(target);
        }
      }
    }
    return out;
  }
}

/** The name a `new X(...)` is assigned to: `const name = new X(...)`. */
function bindingNameOf(parents) {
  for (let i = parents.length - 1; i >= 0; i--) {
    const p = parents[i];
    if (p.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
    if (!['AwaitExpression', 'TSAsExpression', 'TSSatisfiesExpression', 'ParenthesizedExpression'].includes(p.type)) {
      if (p.type !== 'NewExpression') return null;
    }
  }
  return null;
}

/** The expressions a function body returns (not those of nested functions). */
function returns(body) {
  const out = [];
  const visit = (node) => {
    if (node.type === 'ReturnStatement') {
      if (node.argument) out.push(node.argument);
      return;
    }
    if (node.type.includes('Function') || node.type === 'ClassMethod' || node.type === 'ObjectMethod') return;
    for (const [, c] of children(node)) visit(c);
  };
  visit(body);
  return out;
}

function place(f, node) {
  return { file: f.rel, line: node.loc.start.line, column: node.loc.start.column + 1 };
}
