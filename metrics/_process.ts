/**
 * Process metrics: memory, event-loop delay, open event streams and
 * WebSockets.
 *
 * @module
 */

import { memoryUsage, unrefTimer } from "../runtime/memory.ts";
import { openWebSockets } from "../serve/shared.ts";
import type { Gauge, Registry } from "./_registry.ts";

/** How often the event-loop delay is sampled, in ms. */
const SAMPLE_MS = 20;
/** Most samples kept between two scrapes (the newest win). */
const MAX_SAMPLES = 4096;

/** The gauges of open long-lived responses, shared with the middleware. */
export interface OpenGauges {
  streams: Gauge;
  sockets: Gauge;
}

/** The gauges of open event streams and WebSockets of `registry`. */
export function openGauges(registry: Registry): OpenGauges {
  let found = registry.parts.get("open") as OpenGauges | undefined;
  if (found === undefined) {
    found = {
      streams: registry.gauge({
        name: "http_open_event_streams",
        help: "Event streams (text/event-stream responses) open now.",
      }),
      sockets: registry.gauge({
        name: "http_open_websockets",
        help: "WebSockets (upgradeWebSocket) open now in this process.",
      }),
    };
    registry.parts.set("open", found);
    const sockets = found.sockets;
    registry.onCollect(() => sockets.set(undefined, openWebSockets().count));
  }
  return found;
}

/**
 * Registers the process metrics on `registry` once: memory read at each
 * scrape, and the event-loop delay sampled every 20 ms by a timer that
 * does not keep the process alive (stopped by `registry.close()`).
 */
export function processMetrics(registry: Registry): void {
  if (registry.parts.has("process")) return;
  registry.parts.set("process", true);
  const rss = registry.gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
  });
  const heapUsed = registry.gauge({
    name: "process_heap_used_bytes",
    help: "JavaScript heap in use, in bytes.",
  });
  const heapTotal = registry.gauge({
    name: "process_heap_total_bytes",
    help: "JavaScript heap size, in bytes.",
  });
  const delay = registry.gauge({
    name: "process_event_loop_delay_seconds",
    help:
      "Event-loop delay since the previous scrape (quantile 0.5 and 0.99 of samples every 20 ms).",
    labelNames: ["quantile"],
  });
  const p50 = delay.child(["0.5"]);
  const p99 = delay.child(["0.99"]);
  openGauges(registry);

  const samples = new Float64Array(MAX_SAMPLES);
  let count = 0;
  let expected = performance.now() + SAMPLE_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    samples[count++ % MAX_SAMPLES] = Math.max(0, now - expected);
    expected = now + SAMPLE_MS;
  }, SAMPLE_MS);
  unrefTimer(timer);
  registry.onClose(() => clearInterval(timer));

  registry.onCollect(() => {
    const memory = memoryUsage();
    if (memory !== undefined) {
      rss.set(undefined, memory.rss);
      heapUsed.set(undefined, memory.heapUsed);
      heapTotal.set(undefined, memory.heapTotal);
    }
    const n = Math.min(count, MAX_SAMPLES);
    if (n > 0) {
      const sorted = samples.slice(0, n).sort();
      p50.value = sorted[Math.floor((n - 1) * 0.5)]! / 1000;
      p99.value = sorted[Math.floor((n - 1) * 0.99)]! / 1000;
    }
    count = 0;
  });
}
