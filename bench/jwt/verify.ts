/**
 * JWT verification per request, by process CPU time, in interleaved
 * rounds: `jwt()` against Hono's `jwt`, HS256 and ES256 (apps in
 * `_apps.ts`).
 *
 * Run: deno run --allow-all bench/jwt/verify.ts [--rounds=15] [--per-round=2000]
 */
import { apps, esRequest, hsRequest } from "./_apps.ts";
import { interleave, report } from "./_rounds.ts";

const args = new Map(
  Deno.args.map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const rounds = Number(args.get("rounds") ?? 15);
const perRound = Number(args.get("per-round") ?? 2000);

for (
  const [label, ours, hono, request] of [
    ["HS256", apps.oursHs, apps.honoHs, hsRequest],
    ["ES256", apps.oursEs, apps.honoEs, esRequest],
  ] as const
) {
  console.log(`\n${label}, ${rounds} rounds of ${perRound} requests:\n`);
  report(
    await interleave(
      [
        {
          name: `fetchkit jwt() ${label}`,
          run: async () => void await (await ours.fetch(request)).text(),
        },
        {
          name: `hono jwt ${label}`,
          run: async () => void await (await hono.fetch(request)).text(),
        },
      ],
      label === "ES256" ? Math.ceil(rounds / 2) : rounds,
      label === "ES256" ? perRound / 4 : perRound,
    ),
  );
}
