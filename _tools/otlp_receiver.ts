/**
 * A tiny OTLP/HTTP receiver for tests and the examples: it listens on
 * 127.0.0.1, accepts `POST /v1/traces` (and ignores logs and metrics) as
 * OTLP JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), and records every
 * span it gets, flattened.
 *
 * Run it to watch an app's spans, one JSON object per line:
 *
 *     deno run --allow-net=127.0.0.1 _tools/otlp_receiver.ts [port, default 4318]
 *     OTEL_DENO=true OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
 *       OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 deno task dev
 */

/** One received span, with its attributes as plain values. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  events: { name: string; attributes: Record<string, unknown> }[];
  scope: string;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Resolves once at least `count` spans were received (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};

function plain(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributesOf(
  list: { key: string; value: AnyValue }[] | undefined,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) out[key] = plain(value);
  return out;
}

/**
 * Starts a receiver on 127.0.0.1 and `port` (default: a free one);
 * `onSpan` sees each span as it arrives.
 */
export function startOtlpReceiver(
  options: { port?: number; onSpan?: (span: ReceivedSpan) => void } = {},
): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  let wake = () => {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      const body = await request.text();
      if (request.method !== "POST") {
        return new Response("POST only", { status: 405 });
      }
      if (url.pathname === "/v1/traces") {
        // deno-lint-ignore no-explicit-any -- OTLP JSON, read field by field
        const data = JSON.parse(body) as any;
        for (const resource of data.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              const received: ReceivedSpan = {
                name: span.name,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? "",
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                status: span.status ?? {},
                events: (span.events ?? []).map((
                  // deno-lint-ignore no-explicit-any -- OTLP JSON
                  event: any,
                ) => ({
                  name: event.name,
                  attributes: attributesOf(event.attributes),
                })),
                scope: scope.scope?.name ?? "",
              };
              spans.push(received);
              options.onSpan?.(received);
            }
          }
        }
        wake();
      }
      return Response.json({});
    },
  );
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    async waitFor(count, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (spans.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `The OTLP receiver got ${spans.length} spans in ${ms} ms, expected ${count}`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return spans;
    },
    close: () => server.shutdown(),
  };
}

if (import.meta.main) {
  const port = Number(Deno.args[0] ?? 4318);
  const receiver = startOtlpReceiver({
    port,
    onSpan: (span) => console.log(JSON.stringify(span)),
  });
  console.error(`OTLP/JSON receiver on ${receiver.endpoint}`);
}
