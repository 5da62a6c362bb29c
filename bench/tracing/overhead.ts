/**
 * Per-request CPU time of `tracing()`, `contextStorage()` and
 * `serverTiming()` (each one router middleware, against a pass-through
 * middleware and the bare router), and of Hono with `@hono/otel`, in
 * interleaved rounds (apps in `_apps.ts`, timing in `../jwt/_rounds.ts`).
 * With `--sdk`, the OpenTelemetry SDK with a no-op exporter is registered
 * first (`_sdk.ts`), so spans are made and ended.
 *
 * Run: deno run --allow-all bench/tracing/overhead.ts [--sdk] [--rounds=15] [--per-round=20000]
 */
import { interleave, report } from "../jwt/_rounds.ts";

const args = new Map(
  Deno.args.map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const sdk = args.has("sdk");
if (sdk) await import("./_sdk.ts");
const { check, makeApps, request } = await import("./_apps.ts");
const rounds = Number(args.get("rounds") ?? 15);
const perRound = Number(args.get("per-round") ?? 20000);

const apps = makeApps();
await check(apps);
const names = sdk
  ? [
    "plain",
    "passThrough",
    "tracing",
    "honoPlain",
    "honoPassThrough",
    "honoOtel",
  ] as const
  : [
    "plain",
    "passThrough",
    "tracing",
    "contextStorage",
    "serverTiming",
    "honoPlain",
    "honoPassThrough",
    "honoOtel",
    "honoContextStorage",
    "honoTiming",
  ] as const;
console.log(
  `${
    sdk ? "SDK + no-op exporter" : "no SDK"
  }, ${rounds} rounds of ${perRound} requests:\n`,
);
report(
  await interleave(
    names.map((name) => ({
      name,
      run: async () => {
        await apps[name].fetch(request);
      },
    })),
    rounds,
    perRound,
  ),
);
