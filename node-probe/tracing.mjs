// The `tracing` case field (docs/case-format.md): the agent registered on a
// `new Mastra({ agents, observability })` with the release's own
// observability package and an exporter of the probe's that keeps every
// ended span; the projection's `seen.spans` is read from what it kept.
//
// @mastra/observability is installed beside every 1.x core (harness:
// version/extras.rs) and imported through `lib.importPackage`, on first use.
// Its `Observability` hands each span event to every exporter of a config
// from inside the span's `end()` (1.0.0 `dist/index.js:7366`: emitSpanEnded
// calls each target's exportTracingEvent before its first await), so the
// order kept here is the order the spans ended in.

/** The span types of a tool call (Mastra's SpanType.TOOL_CALL, MCP_TOOL_CALL). */
const TOOL_SPANS = new Set(['tool_call', 'mcp_tool_call']);

/** A string or null: what a span field is written as. */
function text(v) {
  return typeof v === 'string' ? v : null;
}

/**
 * What `seen.spans` keeps of one ended span: its type and name, and the
 * tool's name and id as the span carries them (docs/seen.md).
 */
export function spanView(span) {
  return {
    type: text(span?.type),
    name: text(span?.name),
    entityId: text(span?.entityId),
    entityName: text(span?.entityName),
  };
}

/**
 * A new tracer: `observability` for `new Mastra`, `spans` (every ended tool
 * call span so far), `since(n)` (the views of those after the first n, once
 * pending exports have run), `close()`.
 */
export async function newTracer(lib) {
  const { Observability } = await lib.importPackage('@mastra/observability');
  const spans = [];
  const keep = async (event) => {
    if (event?.type === 'span_ended' && TOOL_SPANS.has(event.exportedSpan?.type)) spans.push(event.exportedSpan);
  };
  const exporter = {
    name: 'mastra-conform',
    exportTracingEvent: keep,
    init() {},
    async flush() {},
    async shutdown() {},
  };
  const observability = new Observability({
    configs: { probe: { serviceName: 'mastra-conform', exporters: [exporter] } },
  });
  return {
    observability,
    spans,
    async since(n) {
      // A span may end in a callback after the call resolved: let those run.
      await new Promise((resolve) => setImmediate(resolve));
      return spans.slice(n).map(spanView);
    },
    async close() {
      await observability.shutdown?.();
    },
  };
}
