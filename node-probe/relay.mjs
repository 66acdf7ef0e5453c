// The probe's way to its listener inside the OS sandbox.
//
// A sandboxed probe has a network namespace of its own: 127.0.0.1 there is
// not the harness's, and no interface leads out. The harness binds one Unix
// socket into the sandbox, its capture listener's, and names it with the
// listener's port in MASTRA_CONFORM_RELAY=PORT=SOCKET. This module listens
// on 127.0.0.1:PORT inside the namespace and carries each connection, byte
// for byte, to that socket: the case URLs the harness writes work
// unchanged, and that port is the only one that leads anywhere.
//
// It imports node builtins only, and keeps net's own Socket#connect before
// the guard replaces it (the guard refuses local sockets to everyone else).

import net from 'node:net';

const connect = net.Socket.prototype.connect;

/** The relay asked for by the environment, or null: { port, socket }. */
export function relayFromEnvironment(env = process.env) {
  const spec = env.MASTRA_CONFORM_RELAY;
  if (!spec) return null;
  // Nobody else needs to know where the socket is.
  delete env.MASTRA_CONFORM_RELAY;
  const at = spec.indexOf('=');
  const port = Number(spec.slice(0, at));
  const socket = spec.slice(at + 1);
  if (at < 1 || !Number.isInteger(port) || port <= 0 || port > 65535 || socket === '') {
    throw new Error(`MASTRA_CONFORM_RELAY=${spec}: expected PORT=SOCKET_PATH`);
  }
  return { port, socket };
}

/** Listen on 127.0.0.1:port and relay every connection to the socket. Resolves once listening. */
export function startRelay({ port, socket }) {
  const server = net.createServer({ allowHalfOpen: true }, (inside) => {
    const out = new net.Socket({ allowHalfOpen: true });
    const end = () => {
      inside.destroy();
      out.destroy();
    };
    inside.on('error', end);
    out.on('error', end);
    inside.pipe(out);
    out.pipe(inside);
    connect.call(out, { path: socket });
  });
  // The relay must never keep a probe alive that has nothing else to do.
  server.unref();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}
