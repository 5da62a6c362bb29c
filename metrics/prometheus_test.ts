// Prometheus itself scrapes /metrics (OpenMetrics, as it asks, and the
// text format 0.0.4 on a second job) and answers queries on what the test
// sent. Needs Debian's `prometheus`; skipped with a notice without it,
// unless CI or TOOLKIT_REQUIRE_ALL is set.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createMetricsRegistry,
  metrics,
  metricsHandler,
} from "@fetchkit/toolkit/metrics";
import { serve } from "@fetchkit/toolkit/serve";
import { findExecutable, freePort } from "../_tools/redis.ts";

async function prometheusOrSkip(): Promise<string | undefined> {
  const path = await findExecutable("prometheus");
  if (path !== undefined) return path;
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(
      "prometheus is not installed, and CI or TOOLKIT_REQUIRE_ALL is set",
    );
  }
  console.log("skipping Prometheus tests: prometheus is not installed");
  return undefined;
}

const prometheus = await prometheusOrSkip();

/** `histogram_quantile` as Prometheus computes it, from cumulative buckets. */
function quantile(q: number, bounds: number[], cumulative: number[]): number {
  const total = cumulative[cumulative.length - 1]!;
  const rank = q * total;
  let i = 0;
  while (cumulative[i]! < rank) i++;
  if (i === bounds.length) return bounds[bounds.length - 1]!;
  const lower = i === 0 ? 0 : bounds[i - 1]!;
  const below = i === 0 ? 0 : cumulative[i - 1]!;
  return lower +
    (bounds[i]! - lower) * (rank - below) / (cumulative[i]! - below);
}

Deno.test({
  name: "Prometheus scrapes /metrics: request counts and a histogram quantile",
  ignore: prometheus === undefined,
  async fn() {
    const registry = createMetricsRegistry();
    const buckets = [0.025, 0.05, 0.1, 0.2, 0.4, 0.8];
    const router = createRouter({
      middleware: [metrics({ registry, buckets })],
    });
    const scrape = metricsHandler({ registry });
    router.get("/metrics", scrape);
    // The same numbers for a scraper that does not ask for OpenMetrics.
    router.get(
      "/metrics-text",
      ({ request }) => scrape(new Request(request.url)),
    );
    router.get("/items/:id", ({ params }) => new Response(`item ${params.id}`));
    router.post("/slow/:ms", async ({ params }) => {
      await new Promise((resolve) => setTimeout(resolve, Number(params.ms)));
      return new Response("slow");
    });
    const server = serve(router.fetch, {
      hostname: "127.0.0.1",
      port: 0,
      handleSignals: false,
    });
    const app = `http://127.0.0.1:${server.addr.port}`;
    const dir = await Deno.makeTempDir({ prefix: "prometheus-" });
    let child: Deno.ChildProcess | undefined;
    try {
      for (let id = 0; id < 300; id++) {
        await (await fetch(`${app}/items/${id}`)).arrayBuffer();
      }
      const delays = [10, 30, 30, 60, 60, 60, 120, 120, 250, 300];
      await Promise.all(delays.map(async (ms) => {
        await (await fetch(`${app}/slow/${ms}`, { method: "POST" }))
          .arrayBuffer();
      }));
      await (await fetch(`${app}/nothing/here`)).arrayBuffer();

      const port = freePort();
      await Deno.writeTextFile(
        `${dir}/prometheus.yml`,
        `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: om
    static_configs: [{ targets: ["127.0.0.1:${server.addr.port}"] }]
  - job_name: text
    metrics_path: /metrics-text
    static_configs: [{ targets: ["127.0.0.1:${server.addr.port}"] }]
`,
      );
      child = new Deno.Command(prometheus!, {
        args: [
          `--config.file=${dir}/prometheus.yml`,
          `--storage.tsdb.path=${dir}/data`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const api = `http://127.0.0.1:${port}/api/v1/query?query=`;
      const query = async (expression: string): Promise<
        { metric: Record<string, string>; value: [number, string] }[]
      > => {
        const response = await fetch(api + encodeURIComponent(expression));
        const body = await response.json();
        assert.equal(body.status, "success", JSON.stringify(body));
        return body.data.result;
      };

      // Two scrapes of each job.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const done = await query(
          "count_over_time(up[1m]) >= 2 and up == 1",
        ).catch(() => []);
        if (done.length === 2) break;
        assert.ok(
          Date.now() < deadline,
          "Prometheus scraped twice within 60 s",
        );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }

      const local = registry.get("http_request_duration_seconds") as {
        get(labels: Record<string, string>): { buckets: number[] };
      };
      const cumulative = local.get({ method: "POST", route: "/slow/:ms" })
        .buckets;
      for (const job of ["om", "text"]) {
        const items = await query(
          `http_requests_total{job="${job}",route="/items/:id"}`,
        );
        assert.equal(items.length, 1, JSON.stringify(items));
        assert.equal(items[0]!.metric.method, "GET");
        assert.equal(items[0]!.metric.status, "200");
        assert.equal(Number(items[0]!.value[1]), 300);

        const unmatched = await query(
          `http_requests_total{job="${job}",route="(unmatched)"}`,
        );
        assert.equal(Number(unmatched[0]!.value[1]), 1);
        assert.equal(unmatched[0]!.metric.status, "404");

        const count = await query(
          `http_request_duration_seconds_count{job="${job}",route="/slow/:ms"}`,
        );
        assert.equal(Number(count[0]!.value[1]), delays.length);

        for (const q of [0.5, 0.9]) {
          const [result] = await query(
            `histogram_quantile(${q}, sum by (le) (http_request_duration_seconds_bucket{job="${job}",route="/slow/:ms"}))`,
          );
          const measured = Number(result!.value[1]);
          const expected = quantile(q, buckets, cumulative);
          assert.ok(
            Math.abs(measured - expected) < 1e-9,
            `${job} q${q}: Prometheus ${measured}, sent ${expected}`,
          );
          // And it is where the delays put it.
          assert.ok(measured > 0.025 && measured <= 0.4, `q${q} ${measured}`);
        }
        const rss = await query(`process_resident_memory_bytes{job="${job}"}`);
        assert.ok(Number(rss[0]!.value[1]) > 1e6);
      }
    } finally {
      if (child !== undefined) {
        child.kill("SIGTERM");
        await child.status;
      }
      await server.shutdown();
      registry.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
