// Reading a stream as lines: the line protocol of PROTOCOL.md, for the probe
// (its requests on stdin), the fault suite's fake probe (testing/probe.mjs)
// and selftest.mjs (a probe's answers on its stdout).
//
// Lines are split by hand on "\n", a trailing "\r" dropped: readline would
// also split on a lone "\r". A UTF-8 decoder keeps multi-byte characters
// split across chunks intact. A last line without its "\n" is a line too.

import { StringDecoder } from 'node:string_decoder';

/** Call onLine(line) for each line of `stream`, then onEnd() once it ends. */
export function eachLine(stream, onLine, onEnd = () => {}) {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (line) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  stream.on('data', (chunk) => {
    pending += decoder.write(chunk);
    let nl = pending.indexOf('\n');
    while (nl !== -1) {
      emit(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  });
  stream.on('end', () => {
    pending += decoder.end();
    if (pending !== '') emit(pending);
    pending = '';
    onEnd();
  });
}
