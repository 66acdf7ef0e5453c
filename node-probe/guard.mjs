// The one network and process guard for code the harness did not write: the
// @mastra/core under test and its dependencies in the probe (cases.mjs), a
// user's project in the project loader (project.mjs), and Mastra in the repro
// script (repro.template.mjs, which inlines this module).
//
// It is installed once, before that code is imported, and patches every
// JavaScript way out that Node offers:
//
//   fetch              a refused request rejects, like an unreachable host
//   node:http(s)       request() and get() throw for a refused destination
//   node:net           Socket#connect: TCP anywhere but an allowed loopback
//                      port, and every local (Unix) socket, fail with an
//                      'error' event, like a refused connection; this is the
//                      wall under fetch, http(s), tls, http2 and WebSocket
//   node:tls           connect() is net's Socket#connect underneath
//   node:dgram         Socket#send and Socket#connect throw
//   node:worker_threads  new Worker() throws unless the allow-list names its
//                      file: a worker is a fresh JavaScript realm this guard
//                      does not reach
//   node:child_process every spawn (spawn, exec, execFile, fork, and the
//                      ChildProcess#spawn they share; spawnSync, execSync,
//                      execFileSync) throws unless the allow-list names it
//   process.execve     throws: it replaces this process with another
//                      program, which no allow-list names
//
// What is allowed is the caller's allow-list (see installGuard). Named ESM
// imports of the patched modules are synced to the patches, so
// `import { request } from 'node:http'` in a library is guarded too.
//
// The guard holds against ordinary JavaScript, not against code set on
// getting out: a native addon, process.binding, or a DNS query are below it.
// The OS sandbox is the wall for those; this is the wall where there is none
// and the second one where there is.

import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import workerThreads from 'node:worker_threads';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

const installed = Symbol.for('mastra-conform.guard');

/** The URL a fetch() input names. */
function requestUrl(input) {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return String(input?.url ?? input);
}

/** An allow-list that lets nothing out, for code that needs no network. */
export function nothingAllowed(who, refused = () => {}) {
  return { who, ports: new Set(), route: () => null, child: () => false, refused };
}

/** The port an http(s) URL to the loopback interface names, else null. */
export function loopbackPort(url) {
  try {
    const u = new URL(url);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !LOOPBACK_HOSTS.has(u.hostname)) return null;
    return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    return null;
  }
}

/**
 * Install the guard, once per process. `allow` says what may pass:
 *
 *   who                 names the refuser in error messages ("the probe")
 *   ports               a Set of loopback TCP ports sockets may connect to,
 *                       read at each connection (the caller adds to it)
 *   route(url)          fetch: the URL to send a request for `url` to (the
 *                       URL itself, or another one), or null to refuse it;
 *                       the result must still be on an allowed port
 *   child(file, args)   whether a child process `file` with `args` (argv
 *                       without argv0) may start
 *   worker(filename)    whether a Worker running `filename` may start
 *                       (optional: none may)
 *   refused(what)       told of every refusal: a URL for fetch and
 *                       node:http(s), "tcp HOST:PORT", "tls HOST:PORT",
 *                       "unix PATH", "udp HOST:PORT", "worker FILE",
 *                       "spawn FILE ARGS..."
 *
 * Returns the functions it replaced, for the caller's own use.
 */
export function installGuard(allow) {
  if (globalThis[installed]) throw new Error('the guard is installed already');
  // A refused connection reads as one (ECONNREFUSED); a refused process
  // or worker as a permission error.
  const refuse = (what, { type = Error, code = 'ECONNREFUSED' } = {}) => {
    allow.refused(what);
    const e = new type(`${allow.who} refused ${what}`);
    e.code = code;
    return e;
  };
  const reachable = (host, port) => LOOPBACK_HOSTS.has(String(host)) && allow.ports.has(Number(port));
  const urlReachable = (url) => {
    const port = loopbackPort(url);
    return port !== null && allow.ports.has(port);
  };
  const real = {
    fetch: globalThis.fetch,
    spawnSync: childProcess.spawnSync,
  };

  guardFetch(real.fetch, allow, urlReachable, refuse);
  guardHttp(urlReachable, refuse);
  guardSockets(reachable, refuse);
  guardDatagrams(refuse);
  guardWorkers(allow, refuse);
  guardChildren(allow, refuse);
  syncBuiltinESMExports();
  globalThis[installed] = true;
  return real;
}

function guardFetch(realFetch, allow, urlReachable, refuse) {
  if (typeof realFetch !== 'function') return;
  globalThis.fetch = function fetch(input, init) {
    const url = requestUrl(input);
    const to = allow.route(url);
    if (to === null || !urlReachable(to)) {
      return Promise.reject(refuse(url, { type: TypeError }));
    }
    if (to === url) return realFetch(input, init);
    // A Request input keeps its method, headers and body under the new URL.
    return typeof input === 'string' || input instanceof URL
      ? realFetch(to, init)
      : realFetch(new Request(to, input), init);
  };
}

/** The URL a node:http(s) request(url | options, [options], [callback]) is for. */
function nodeRequestUrl(protocol, args) {
  const [first, second] = args;
  if (typeof first === 'string') return first;
  if (first instanceof URL) return first.href;
  const o = first ?? second ?? {};
  const host = o.hostname ?? o.host ?? 'localhost';
  return `${o.protocol ?? protocol}//${host}${o.port ? `:${o.port}` : ''}${o.path ?? '/'}`;
}

// node:http(s) bypass fetch (Mastra's webFetchTool calls https.request
// itself). A refused request throws at once, which a Promise executor turns
// into a rejection.
function guardHttp(urlReachable, refuse) {
  for (const [mod, protocol] of [
    [http, 'http:'],
    [https, 'https:'],
  ]) {
    for (const fn of ['request', 'get']) {
      const realFn = mod[fn];
      mod[fn] = function (...args) {
        const url = nodeRequestUrl(protocol, args);
        if (!urlReachable(url)) throw refuse(url, { type: TypeError });
        return realFn.apply(this, args);
      };
    }
  }
}

/** Where net's Socket#connect(options | port [, host] | path | [normalized]) goes. */
function connectTarget(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') {
    if (typeof first.path === 'string') return { path: first.path };
    return { host: first.host ?? 'localhost', port: first.port };
  }
  // net's own rule: a string that is not a number is a pipe's path.
  if (typeof first === 'string' && Number.isNaN(Number(first))) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

// Every TCP and local socket a client opens goes through Socket#connect:
// net.connect, tls.connect, http(s)' agents and fetch's undici alike. A
// refused one fails the way a refused connection does, with an 'error'
// event, so that a library's connection handling sees a network failure.
function guardSockets(reachable, refuse) {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    const to = connectTarget(args);
    const kind = this instanceof tls.TLSSocket ? 'tls' : 'tcp';
    if (to.path === undefined && reachable(to.host, to.port)) return connect.apply(this, args);
    const err = refuse(to.path === undefined ? `${kind} ${to.host}:${to.port}` : `unix ${to.path}`);
    process.nextTick(() => this.destroy(err));
    return this;
  };
}

// No UDP is ever needed: every datagram is refused, sent or connected.
function guardDatagrams(refuse) {
  dgram.Socket.prototype.send = (_msg, ...rest) => {
    // send(msg, [offset, length,] port, [address,] [callback])
    const [port, address] = typeof rest[2] === 'number' ? rest.slice(2) : rest;
    throw refuse(`udp ${typeof address === 'string' ? address : 'localhost'}:${port}`);
  };
  dgram.Socket.prototype.connect = (port, address) => {
    throw refuse(`udp ${typeof address === 'string' ? address : 'localhost'}:${port}`);
  };
}

function guardWorkers(allow, refuse) {
  const RealWorker = workerThreads.Worker;
  workerThreads.Worker = function Worker(filename, options) {
    if (!allow.worker?.(filename)) throw refuse(`worker ${filename}`, { code: 'EACCES' });
    return Reflect.construct(RealWorker, [filename, options], new.target ?? RealWorker);
  };
  // `instanceof Worker` and `class X extends Worker` keep working.
  workerThreads.Worker.prototype = RealWorker.prototype;
}

function spawnLabel(file, args) {
  return ['spawn', file, ...args].map(String).join(' ');
}

// ChildProcess#spawn is what spawn, exec, execFile and fork end in (exec as
// `/bin/sh -c COMMAND`); the sync functions go through a binding of their
// own, so each is guarded by name.
function guardChildren(allow, refuse) {
  const spawn = childProcess.ChildProcess.prototype.spawn;
  childProcess.ChildProcess.prototype.spawn = function (options) {
    const args = (options?.args ?? []).slice(1);
    if (!allow.child(options?.file, args)) throw refuse(spawnLabel(options?.file, args), { code: 'EACCES' });
    return spawn.call(this, options);
  };
  for (const fn of ['spawnSync', 'execFileSync']) {
    const realFn = childProcess[fn];
    childProcess[fn] = function (file, args, ...rest) {
      const list = Array.isArray(args) ? args : [];
      const shell = (Array.isArray(args) ? rest[0] : args)?.shell;
      if (shell || !allow.child(file, list)) throw refuse(spawnLabel(file, list), { code: 'EACCES' });
      return realFn.call(this, file, args, ...rest);
    };
  }
  childProcess.execSync = (command) => {
    throw refuse(spawnLabel('/bin/sh', ['-c', command]), { code: 'EACCES' });
  };
  // The program that replaces this process keeps its sockets and its
  // output, and none of this guard.
  if (typeof process.execve === 'function') {
    process.execve = (file, args = []) => {
      throw refuse(spawnLabel(file, Array.isArray(args) ? args.slice(1) : []), { code: 'EACCES' });
    };
  }
}
