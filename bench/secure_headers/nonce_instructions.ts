/**
 * What a per-request CSP nonce costs in `secureHeaders()`, in instructions
 * (callgrind; repeatable whatever else the machine runs): each contender
 * runs alone in a process under valgrind, with `n` and `2n` requests after
 * the same warm-up; `(count(2n) - count(n)) / n` is one request.
 *
 *     deno run --allow-all bench/secure_headers/nonce_instructions.ts [n=5000] [only]
 *
 * Contenders, each an HTML page through `router.fetch` and read whole:
 * `plain` (no middleware), `csp` (`secureHeaders()` with `script-src
 * 'self'`), `nonce` (`script-src 'nonce'`: a fresh nonce per request, and
 * the rest of the chain run inside the nonce's `AsyncLocalStorage` scope
 * so `createHtmlResponse()` finds it), `streamed` (`'nonce'`, and the page
 * has an `html.defer()` part whose script takes the nonce).
 *
 * Run it from an older checkout too to compare (same script, same n).
 *
 * @module
 */

const CONTENDERS = ["plain", "csp", "nonce", "streamed"] as const;
type Contender = typeof CONTENDERS[number];

if (Deno.args[0] === "--run") {
  await run(Deno.args[1] as Contender, Number(Deno.args[2]));
} else {
  const n = Number(Deno.args[0] ?? 5000);
  const only = Deno.args[1];
  const rows: string[] = [];
  for (const contender of CONTENDERS) {
    if (only !== undefined && contender !== only) continue;
    const counts: number[] = [];
    for (const count of [n, 2 * n]) {
      counts.push(await instructions(contender, count));
    }
    const perOp = (counts[1] - counts[0]) / n;
    rows.push(`| ${contender} | ${Math.round(perOp).toLocaleString("en")} |`);
    console.error(contender, counts, perOp);
  }
  console.log(
    `n = ${n} (instructions per request: (count(2n) - count(n)) / n)\n`,
  );
  console.log(
    ["| contender | instructions / request |", "| --- | ---: |", ...rows]
      .join("\n"),
  );
}

async function instructions(contender: string, count: number): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "nonce-callgrind-" });
  try {
    const { code, stderr } = await new Deno.Command("valgrind", {
      args: [
        "--tool=callgrind",
        `--callgrind-out-file=${dir}/out.%p`,
        Deno.execPath(),
        "run",
        "--allow-all",
        "--v8-flags=--single-threaded-gc",
        new URL(import.meta.url).pathname,
        "--run",
        contender,
        String(count),
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(new TextDecoder().decode(stderr).slice(-2000));
    }
    let total = 0;
    for await (const entry of Deno.readDir(dir)) {
      const text = await Deno.readTextFile(`${dir}/${entry.name}`);
      const summary = /^summary: (\d+)/m.exec(text) ??
        /^totals: (\d+)/m.exec(text);
      if (summary) total += Number(summary[1]);
    }
    return total;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function run(contender: Contender, count: number): Promise<void> {
  const { createRouter } = await import("@fetchkit/toolkit/fetch-router");
  const { secureHeaders } = await import(
    "@fetchkit/toolkit/secure-headers-middleware"
  );
  const { html } = await import("@fetchkit/toolkit/html-template");
  const { createHtmlResponse } = await import(
    "@fetchkit/toolkit/response/html"
  );
  const middleware = contender === "plain" ? [] : [
    secureHeaders({
      contentSecurityPolicy: {
        scriptSrc: [contender === "csp" ? "'self'" : "'nonce'"],
      },
    }),
  ];
  const router = createRouter({ middleware });
  const items = Array.from({ length: 20 }, (_, i) => `item ${i}`);
  router.get("/", () =>
    createHtmlResponse(
      contender === "streamed"
        ? html`
          <!doctype html>
          <body><ul>${items.map((item) => html`<li>${item}</li>`)}</ul>${html
            .defer(Promise.resolve("late"), "…")}</body>
        `
        : html`
          <!doctype html>
          <body>
            <ul>${items.map((item) => html`<li>${item}</li>`)}</ul>
          </body>
        `,
    ));
  const once = async () =>
    await (await router.fetch(new Request("http://localhost/"))).text();
  for (let i = 0; i < 3000; i++) await once();
  for (let i = 0; i < count; i++) await once();
}
