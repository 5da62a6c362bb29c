// The OpenTelemetry SDK as tests register it: a tracer provider with an
// in-memory exporter, the AsyncLocalStorage context manager and the W3C
// propagators. Registered once per process, on first use (portable tests
// share one process on Node and Bun), and shared by every test after.
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

const KEY = Symbol.for("fetchkit.test.otelExporter");

/** Registers the SDK (once) and returns its exporter, emptied. */
export function useSdk(): InMemorySpanExporter {
  const holder = globalThis as { [KEY]?: InMemorySpanExporter };
  let exporter = holder[KEY];
  if (exporter === undefined) {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const registered = trace.setGlobalTracerProvider(provider) &&
      context.setGlobalContextManager(
        new AsyncLocalStorageContextManager().enable(),
      ) &&
      propagation.setGlobalPropagator(
        new CompositePropagator({
          propagators: [
            new W3CTraceContextPropagator(),
            new W3CBaggagePropagator(),
          ],
        }),
      );
    if (!registered) throw new Error("another OpenTelemetry SDK is registered");
    holder[KEY] = exporter;
  }
  exporter.reset();
  return exporter;
}

/** The finished spans, oldest first. */
export function finished(exporter: InMemorySpanExporter): ReadableSpan[] {
  return exporter.getFinishedSpans();
}
