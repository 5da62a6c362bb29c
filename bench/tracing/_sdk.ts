/**
 * Registers the OpenTelemetry SDK for a benchmark process: a tracer
 * provider whose spans go, one by one, to an exporter that drops them
 * (so the figures are the instrumentation's and the SDK's, not an
 * exporter's), the AsyncLocalStorage context manager and W3C propagation.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  ExportResultCode,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

/** How many spans the no-op exporter was given. */
export const exported = { count: 0 };

const noopExporter: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    exported.count += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => Promise.resolve(),
};

trace.setGlobalTracerProvider(
  new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(noopExporter)],
  }),
);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
